import { program_rule } from "../grammar/declarative.js";
import type { ProgramRule } from "../grammar/types.js";

/** Programs that read, list and compare files (GNU coreutils 9.4 manual, `info coreutils`). */
export const FILE_RULES: readonly ProgramRule[] = [
  // cat(1): `cat [OPTION]... [FILE]...`
  program_rule({
    rule: "cat",
    manual: "cat(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-A|--show-all": {},
      "-b|--number-nonblank": {},
      "-e": {},
      "-E|--show-ends": {},
      "-n|--number": {},
      "-s|--squeeze-blank": {},
      "-t": {},
      "-T|--show-tabs": {},
      "-u": {},
      "-v|--show-nonprinting": {},
      "--help": {},
      "--version": {},
    },
    operands: { rest: "read" },
  }),
  // head(1): `head [OPTION]... [FILE]...`; `-NUM` is the obsolete spelling of `-n NUM`
  program_rule({
    rule: "head",
    manual: "head(1), GNU coreutils 9.4",
    category: "read_only",
    number_option: "-n",
    options: {
      "-c|--bytes": { value: "number" },
      "-n|--lines": { value: "number" },
      "-q|--quiet|--silent": {},
      "-v|--verbose": {},
      "-z|--zero-terminated": {},
      "--help": {},
      "--version": {},
    },
    operands: { rest: "read" },
  }),
];

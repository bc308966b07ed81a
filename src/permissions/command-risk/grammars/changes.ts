import path from "node:path";
import { judge_value, program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { INFO, SUFFIX, one_of } from "./common.js";

/** The backup options of cp, mv, ln and install: an overwritten destination is kept under a suffixed name. */
const BACKUP: Readonly<Record<string, OptionSpec>> = {
  "--backup": { value: one_of("none", "off", "numbered", "t", "existing", "nil", "simple", "never"), optional_value: true },
  "-b": {},
  "-S|--suffix": { value: SUFFIX },
};

/** A moved file is read where it was and removed from there. */
const MOVED: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    matched.read(word);
    matched.write(word, true);
  },
};

/**
 * cp's sources: a file is read (its symlink followed, which the path judgement sees); with `-r` every
 * entry below a folder is read, through the symlinks inside with `-L` (`-H` follows only the operands).
 */
function copied(seen: Seen): ValueKind {
  if (!seen.has("-R") && !seen.has("-a")) return "read";
  return seen.has("-L") ? "linked_tree" : "tree";
}

/** Operands of cp, mv and install: the sources, then the destination, or every one a source with `-t DIR`. */
const into = (source: ValueKind, seen: Seen) => (seen.has("-t") ? { rest: source } : { rest: source, last: "write" as const });

/**
 * Programs that create, change, copy, move and remove files (GNU coreutils 9.4, `info coreutils`). What they
 * write is judged as a write; `rm`, `rmdir`, `unlink`, `shred` and `truncate` are destructive, so they ask.
 */
export const CHANGE_RULES: readonly ProgramRule[] = [
  // touch(1): `touch [OPTION]... FILE...`
  program_rule({
    rule: "touch",
    manual: "touch(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a": {},
      "-c|--no-create": {},
      "-d|--date": { value: "text" },
      "-f": {},
      "-h|--no-dereference": {},
      "-m": {},
      "-r|--reference": { value: "read" },
      "-t": { value: "text" },
      "--time": { value: one_of("access", "atime", "use", "modify", "mtime") },
      ...INFO,
    },
    operands: { rest: "write" },
  }),
  // mkdir(1): `mkdir [OPTION]... DIRECTORY...`
  program_rule({
    rule: "mkdir",
    manual: "mkdir(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-m|--mode": { value: "text" },
      "-p|--parents": {},
      "-v|--verbose": {},
      "-Z": {},
      "--context": { value: "text", optional_value: true },
      ...INFO,
    },
    operands: { rest: "write" },
  }),
  // rmdir(1): `rmdir [OPTION]... DIRECTORY...`
  program_rule({
    rule: "rmdir",
    manual: "rmdir(1), GNU coreutils 9.4",
    category: "destructive",
    options: { "--ignore-fail-on-non-empty": {}, "-p|--parents": {}, "-v|--verbose": {}, ...INFO },
    operands: { rest: "delete" },
  }),
  // rm(1): `rm [OPTION]... [FILE]...`; `--no-preserve-root` exists only to remove `/`
  program_rule({
    rule: "rm",
    manual: "rm(1), GNU coreutils 9.4",
    category: "destructive",
    options: {
      "-f|--force": {},
      "-i": {},
      "-I": {},
      "--interactive": { value: one_of("never", "no", "none", "once", "always", "yes"), optional_value: true },
      "--one-file-system": {},
      "--no-preserve-root": { deny: "removes the file system root when asked to", category: "destructive" },
      "--preserve-root": { value: one_of("all"), optional_value: true },
      "-r|-R|--recursive": {},
      "-d|--dir": {},
      "-v|--verbose": {},
      ...INFO,
    },
    operands: { rest: "delete" },
  }),
  // unlink(1): `unlink FILE`
  program_rule({ rule: "unlink", manual: "unlink(1), GNU coreutils 9.4", category: "destructive", options: INFO, operands: { first: ["delete"] } }),
  // shred(1): `shred [OPTION]... FILE...`
  program_rule({
    rule: "shred",
    manual: "shred(1), GNU coreutils 9.4",
    category: "destructive",
    options: {
      "-f|--force": {},
      "-n|--iterations": { value: "number" },
      "--random-source": { value: "read" },
      "-s|--size": { value: "number" },
      "-u": {},
      "--remove": { value: one_of("unlink", "wipe", "wipesync"), optional_value: true },
      "-v|--verbose": {},
      "-x|--exact": {},
      "-z|--zero": {},
      ...INFO,
    },
    operands: { rest: "delete" },
  }),
  // truncate(1): `truncate OPTION... FILE...`
  program_rule({
    rule: "truncate",
    manual: "truncate(1), GNU coreutils 9.4",
    category: "destructive",
    options: { "-c|--no-create": {}, "-o|--io-blocks": {}, "-r|--reference": { value: "read" }, "-s|--size": { value: "number" }, ...INFO },
    operands: { rest: "write" },
  }),
  // tee(1): `tee [OPTION]... [FILE]...`
  program_rule({
    rule: "tee",
    manual: "tee(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--append": {},
      "-i|--ignore-interrupts": {},
      "-p": {},
      "--output-error": { value: one_of("warn", "warn-nopipe", "exit", "exit-nopipe"), optional_value: true },
      ...INFO,
    },
    operands: { rest: "write" },
  }),
  // cp(1): `cp [OPTION]... [-T] SOURCE DEST`, `cp [OPTION]... SOURCE... DIRECTORY`, `cp [OPTION]... -t DIRECTORY SOURCE...`
  program_rule({
    rule: "cp",
    manual: "cp(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--archive": {},
      "--attributes-only": {},
      ...BACKUP,
      "--copy-contents": {},
      "-d": {},
      "--debug": {},
      "-f|--force": {},
      "-i|--interactive": {},
      "-H": {},
      "--keep-directory-symlink": {},
      "-l|--link": {},
      "-L|--dereference": {},
      "-n|--no-clobber": {},
      "-P|--no-dereference": {},
      "-p": {},
      "--preserve": { value: "text", optional_value: true },
      "--no-preserve": { value: "text" },
      "--parents": {},
      "-R|-r|--recursive": {},
      "--reflink": { value: one_of("auto", "always", "never"), optional_value: true },
      "--remove-destination": {},
      "--sparse": { value: one_of("auto", "always", "never") },
      "--strip-trailing-slashes": {},
      "-s|--symbolic-link": {},
      "-t|--target-directory": { value: "write" },
      "-T|--no-target-directory": {},
      "-u": {},
      "--update": { value: one_of("all", "none", "none-fail", "older"), optional_value: true },
      "-v|--verbose": {},
      "-x|--one-file-system": {},
      "-Z": {},
      "--context": { value: "text", optional_value: true },
      ...INFO,
    },
    operands: (seen) => into(copied(seen), seen),
  }),
  // mv(1): `mv [OPTION]... [-T] SOURCE DEST`, `mv [OPTION]... SOURCE... DIRECTORY`, `mv [OPTION]... -t DIRECTORY SOURCE...`
  program_rule({
    rule: "mv",
    manual: "mv(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      ...BACKUP,
      "--debug": {},
      "-f|--force": {},
      "-i|--interactive": {},
      "-n|--no-clobber": {},
      "--no-copy": {},
      "--strip-trailing-slashes": {},
      "-t|--target-directory": { value: "write" },
      "-T|--no-target-directory": {},
      "-u": {},
      "--update": { value: one_of("all", "none", "none-fail", "older"), optional_value: true },
      "-v|--verbose": {},
      "-Z|--context": {},
      ...INFO,
    },
    operands: (seen) => into(MOVED, seen),
  }),
  // install(1): `install [OPTION]... [-T] SOURCE DEST`, `install [OPTION]... SOURCE... DIRECTORY`,
  // `install [OPTION]... -t DIRECTORY SOURCE...`, `install [OPTION]... -d DIRECTORY...`
  program_rule({
    rule: "install",
    manual: "install(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      ...BACKUP,
      "-c": {},
      "-C|--compare": {},
      "-d|--directory": {},
      "-D": {},
      "--debug": {},
      "-g|--group": { value: "text" },
      "-m|--mode": { value: "text" },
      "-o|--owner": { value: "text" },
      "-p|--preserve-timestamps": {},
      "-s|--strip": {},
      "--strip-program": { value: "command" },
      "-t|--target-directory": { value: "write" },
      "-T|--no-target-directory": {},
      "-v|--verbose": {},
      "--preserve-context": {},
      "-Z": {},
      "--context": { value: "text", optional_value: true },
      ...INFO,
    },
    operands: (seen) => (seen.has("-d") ? { rest: "write" } : into("read", seen)),
  }),
  // chmod(1): `chmod [OPTION]... MODE[,MODE]... FILE...`, `chmod [OPTION]... --reference=RFILE FILE...`; a mode
  // spelt like an option (`-x`) is not read as one here, so it asks
  program_rule({
    rule: "chmod",
    manual: "chmod(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-c|--changes": {},
      "-f|--silent|--quiet": {},
      "-v|--verbose": {},
      "--no-preserve-root": {},
      "--preserve-root": {},
      "--reference": { value: "read" },
      "-R|--recursive": {},
      ...INFO,
    },
    operands: (seen) => (seen.has("--reference") ? { rest: "write" } : { first: ["text"], rest: "write" }),
  }),
  // ln(1): `ln [OPTION]... [-T] TARGET LINK_NAME`, `ln [OPTION]... TARGET`, `ln [OPTION]... TARGET... DIRECTORY`,
  // `ln [OPTION]... -t DIRECTORY TARGET...`
  program_rule({
    rule: "ln",
    manual: "ln(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      ...BACKUP,
      "-d|-F|--directory": {},
      "-f|--force": {},
      "-i|--interactive": {},
      "-L|--logical": {},
      "-n|--no-dereference": {},
      "-P|--physical": {},
      "-r|--relative": {},
      "-s|--symbolic": {},
      "-t|--target-directory": { value: "write" },
      "-T|--no-target-directory": {},
      "-v|--verbose": {},
      ...INFO,
    },
    operands: { rest: "text" },
    check: link_operands,
  }),
  // dd(1): `dd [OPERAND]...`: `if=FILE` is read, `of=FILE` written
  program_rule({ rule: "dd", manual: "dd(1), GNU coreutils 9.4", category: "read_only", options: INFO, operands: { rest: { judge: dd_operand } } }),
];

/**
 * ln's targets are read (a link to a credential is as good as the credential) and the link is written. A
 * relative symlink target is resolved from the folder the link is made in (unless `-r` makes it relative to
 * here): the link's own folder, or the link itself when it names a folder, so it is judged from both.
 */
function link_operands(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const folder = seen.get("-t")?.[0];
  const targets = folder !== undefined || operands.length < 2 ? operands : operands.slice(0, -1);
  const link = folder ?? (operands.length < 2 ? undefined : operands.at(-1));
  if (link !== undefined && folder === undefined) matched.write(link);
  for (const target of targets) {
    if (link === undefined && target.literal) matched.write(literal_word(path.posix.basename(target.value)));
    const from_link = seen.has("-s") && !seen.has("-r") && link?.literal === true && target.literal && !path.posix.isAbsolute(target.value);
    if (!from_link) matched.read(target);
    else {
      const bases = folder === undefined ? [link.value, path.posix.dirname(link.value)] : [link.value];
      for (const base of new Set(bases)) matched.read(literal_word(`${base}/${target.value}`));
    }
  }
}

const DD_NUMBERS = new Set(["bs", "ibs", "obs", "cbs", "count", "skip", "seek", "iseek", "oseek"]);
/** Conversions and flags: how blocks are copied, never where. */
const DD_SETTINGS = new Set(["conv", "iflag", "oflag", "status"]);

/** One `KEY=VALUE` operand of dd. */
function dd_operand(word: ShellWord, matched: Matched): void {
  const equals = word.value.indexOf("=");
  const key = word.value.slice(0, Math.max(equals, 0));
  const value = literal_word(word.value.slice(equals + 1));
  if (word.literal && key === "if") matched.read(value);
  else if (word.literal && key === "of") matched.write(value);
  else if (word.literal && DD_NUMBERS.has(key)) judge_value("number", value, `dd ${key}=`, matched);
  else if (!word.literal || !DD_SETTINGS.has(key)) matched.ask(`dd ${word.value} is not an operand this analyzer knows`);
}

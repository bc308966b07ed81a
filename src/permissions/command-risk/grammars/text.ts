import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";

/** `--help` and `--version`, which every GNU program takes and which print and exit. */
export const INFO: Readonly<Record<string, OptionSpec>> = { "--help": {}, "--version": {} };

/**
 * `--files0-from=F`: F is read, and so is every file named in it, names this analyzer never sees. wc and du
 * print only counts and sizes of those files; sort prints them, so there it asks.
 */
export const FILES0_FROM: OptionSpec = { value: "read" };

export const one_of = (...values: string[]): ValueKind => ({ one_of: values });

/**
 * A suffix added to an output file's name (`cp -S`, `sed -i`, `split --additional-suffix`): the file is
 * written beside the one it is named after, unless a slash in the suffix puts it in another folder.
 */
export const SUFFIX: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    if (!word.literal || word.value.includes("/")) matched.ask(`the file name suffix ${word.value} may put a file in another folder`);
  },
};

/**
 * Text filters of GNU coreutils 9.4 (`info coreutils`): they read their operands and write standard
 * output, except where an option or operand names an output file (`sort -o`, `uniq IN OUT`, `split`).
 */
export const TEXT_RULES: readonly ProgramRule[] = [
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
      ...INFO,
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
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // tail(1): `tail [OPTION]... [FILE]...`; `-f` follows the file until interrupted, which reads nothing more
  program_rule({
    rule: "tail",
    manual: "tail(1), GNU coreutils 9.4",
    category: "read_only",
    number_option: "-n",
    options: {
      "-c|--bytes": { value: "number" },
      "-f": {},
      "--follow": { value: one_of("name", "descriptor"), optional_value: true },
      "-F": {},
      "-n|--lines": { value: "number" },
      "--max-unchanged-stats": { value: "number" },
      "--pid": { value: "number" },
      "-q|--quiet|--silent": {},
      "--retry": {},
      "-s|--sleep-interval": { value: "number" },
      "-v|--verbose": {},
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // wc(1): `wc [OPTION]... [FILE]...`, `wc [OPTION]... --files0-from=F`
  program_rule({
    rule: "wc",
    manual: "wc(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-c|--bytes": {},
      "-m|--chars": {},
      "-l|--lines": {},
      "--files0-from": FILES0_FROM,
      "-L|--max-line-length": {},
      "-w|--words": {},
      "--total": { value: one_of("auto", "always", "only", "never") },
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // sort(1): `sort [OPTION]... [FILE]...`; it writes `-o` and temporary files in `-T`, and runs `--compress-program`
  program_rule({
    rule: "sort",
    manual: "sort(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-b|--ignore-leading-blanks": {},
      "-d|--dictionary-order": {},
      "-f|--ignore-case": {},
      "-g|--general-numeric-sort": {},
      "-i|--ignore-nonprinting": {},
      "-M|--month-sort": {},
      "-h|--human-numeric-sort": {},
      "-n|--numeric-sort": {},
      "-R|--random-sort": {},
      "--random-source": { value: "read" },
      "-r|--reverse": {},
      "--sort": { value: one_of("general-numeric", "human-numeric", "month", "numeric", "random", "version") },
      "-V|--version-sort": {},
      "--batch-size": { value: "number" },
      "-c": {},
      "--check": { value: one_of("diagnose-first", "quiet", "silent"), optional_value: true },
      "-C": {},
      "--compress-program": { value: "command" },
      "--debug": {},
      "--files0-from": { value: "read", ask: "prints the files named in that file, which this analyzer cannot see" },
      "-k|--key": { value: "text" },
      "-m|--merge": {},
      "-o|--output": { value: "write" },
      "-s|--stable": {},
      "-S|--buffer-size": { value: "number" },
      "-t|--field-separator": { value: "text" },
      "-T|--temporary-directory": { value: "write" },
      "--parallel": { value: "number" },
      "-u|--unique": {},
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // uniq(1): `uniq [OPTION]... [INPUT [OUTPUT]]`: the second operand is written
  program_rule({
    rule: "uniq",
    manual: "uniq(1), GNU coreutils 9.4",
    category: "read_only",
    number_option: "-f",
    options: {
      "-c|--count": {},
      "-d|--repeated": {},
      "-D": {},
      "--all-repeated": { value: one_of("none", "prepend", "separate"), optional_value: true },
      "-f|--skip-fields": { value: "number" },
      "--group": { value: one_of("separate", "prepend", "append", "both"), optional_value: true },
      "-i|--ignore-case": {},
      "-s|--skip-chars": { value: "number" },
      "-u|--unique": {},
      "-z|--zero-terminated": {},
      "-w|--check-chars": { value: "number" },
      ...INFO,
    },
    operands: { first: ["read", "write"] },
  }),
  // cut(1): `cut OPTION... [FILE]...`
  program_rule({
    rule: "cut",
    manual: "cut(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-b|--bytes": { value: "text" },
      "-c|--characters": { value: "text" },
      "-d|--delimiter": { value: "text" },
      "-f|--fields": { value: "text" },
      "-n": {},
      "--complement": {},
      "-s|--only-delimited": {},
      "--output-delimiter": { value: "text" },
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // tr(1): `tr [OPTION]... STRING1 [STRING2]`: it reads standard input only; its operands are character sets
  program_rule({
    rule: "tr",
    manual: "tr(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-c|-C|--complement": {}, "-d|--delete": {}, "-s|--squeeze-repeats": {}, "-t|--truncate-set1": {}, ...INFO },
    operands: { first: ["text", "text"] },
  }),
  // comm(1): `comm [OPTION]... FILE1 FILE2`
  program_rule({
    rule: "comm",
    manual: "comm(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-1": {},
      "-2": {},
      "-3": {},
      "--check-order": {},
      "--nocheck-order": {},
      "--output-delimiter": { value: "text" },
      "--total": {},
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: { first: ["read", "read"] },
  }),
  // join(1): `join [OPTION]... FILE1 FILE2`
  program_rule({
    rule: "join",
    manual: "join(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a": { value: one_of("1", "2") },
      "-e": { value: "text" },
      "-i|--ignore-case": {},
      "-j": { value: "number" },
      "-o": { value: "text" },
      "-t": { value: "text" },
      "-v": { value: one_of("1", "2") },
      "-1": { value: "number" },
      "-2": { value: "number" },
      "--check-order": {},
      "--nocheck-order": {},
      "--header": {},
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: { first: ["read", "read"] },
  }),
  // paste(1): `paste [OPTION]... [FILE]...`
  program_rule({
    rule: "paste",
    manual: "paste(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-d|--delimiters": { value: "text" }, "-s|--serial": {}, "-z|--zero-terminated": {}, ...INFO },
    operands: { rest: "read" },
  }),
  // nl(1): `nl [OPTION]... [FILE]...`
  program_rule({
    rule: "nl",
    manual: "nl(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-b|--body-numbering": { value: "text" },
      "-d|--section-delimiter": { value: "text" },
      "-f|--footer-numbering": { value: "text" },
      "-h|--header-numbering": { value: "text" },
      "-i|--line-increment": { value: "number" },
      "-l|--join-blank-lines": { value: "number" },
      "-n|--number-format": { value: one_of("ln", "rn", "rz") },
      "-p|--no-renumber": {},
      "-s|--number-separator": { value: "text" },
      "-v|--starting-line-number": { value: "number" },
      "-w|--number-width": { value: "number" },
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // od(1): `od [OPTION]... [FILE]...`
  program_rule({
    rule: "od",
    manual: "od(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-A|--address-radix": { value: one_of("d", "o", "x", "n") },
      "--endian": { value: one_of("big", "little") },
      "-j|--skip-bytes": { value: "number" },
      "-N|--read-bytes": { value: "number" },
      "-S": { value: "number" },
      "--strings": { value: "number", optional_value: true },
      "-t|--format": { value: "text" },
      "-v|--output-duplicates": {},
      "-w|--width": { value: "number", optional_value: true },
      "--traditional": {},
      "-a": {},
      "-b": {},
      "-c": {},
      "-d": {},
      "-f": {},
      "-i": {},
      "-l": {},
      "-o": {},
      "-s": {},
      "-x": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // fold(1): `fold [OPTION]... [FILE]...`
  program_rule({
    rule: "fold",
    manual: "fold(1), GNU coreutils 9.4",
    category: "read_only",
    number_option: "-w",
    options: { "-b|--bytes": {}, "-s|--spaces": {}, "-w|--width": { value: "number" }, ...INFO },
    operands: { rest: "read" },
  }),
  // fmt(1): `fmt [-WIDTH] [OPTION]... [FILE]...`
  program_rule({
    rule: "fmt",
    manual: "fmt(1), GNU coreutils 9.4",
    category: "read_only",
    number_option: "-w",
    options: {
      "-c|--crown-margin": {},
      "-p|--prefix": { value: "text" },
      "-s|--split-only": {},
      "-t|--tagged-paragraph": {},
      "-u|--uniform-spacing": {},
      "-w|--width": { value: "number" },
      "-g|--goal": { value: "number" },
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // tac(1): `tac [OPTION]... [FILE]...`
  program_rule({
    rule: "tac",
    manual: "tac(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-b|--before": {}, "-r|--regex": {}, "-s|--separator": { value: "text" }, ...INFO },
    operands: { rest: "read" },
  }),
  // expand(1): `expand [OPTION]... [FILE]...`
  program_rule({
    rule: "expand",
    manual: "expand(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-i|--initial": {}, "-t|--tabs": { value: "text" }, ...INFO },
    operands: { rest: "read" },
  }),
  // unexpand(1): `unexpand [OPTION]... [FILE]...`
  program_rule({
    rule: "unexpand",
    manual: "unexpand(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-a|--all": {}, "--first-only": {}, "-t|--tabs": { value: "text" }, ...INFO },
    operands: { rest: "read" },
  }),
  // md5sum(1), sha1sum(1), sha2 family, b2sum(1): `sha256sum [OPTION]... [FILE]...`; `-c` reads the sums from FILE and
  // opens each file named there, which it only hashes
  program_rule(
    {
      rule: "sha256sum",
      manual: "md5sum(1), sha256sum(1), b2sum(1), GNU coreutils 9.4",
      category: "read_only",
      options: {
        "-b|--binary": {},
        "-c|--check": {},
        "-l|--length": { value: "number" },
        "--tag": {},
        "-t|--text": {},
        "-z|--zero": {},
        "--ignore-missing": {},
        "--quiet": {},
        "--status": {},
        "--strict": {},
        "-w|--warn": {},
        ...INFO,
      },
      operands: { rest: "read" },
    },
    ["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"],
  ),
  // cksum(1): `cksum [OPTION]... [FILE]...`
  program_rule({
    rule: "cksum",
    manual: "cksum(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--algorithm": { value: one_of("sysv", "bsd", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3") },
      "--base64": {},
      "-c|--check": {},
      "-l|--length": { value: "number" },
      "--raw": {},
      "--tag": {},
      "--untagged": {},
      "-z|--zero": {},
      "--ignore-missing": {},
      "--quiet": {},
      "--status": {},
      "--strict": {},
      "-w|--warn": {},
      "--debug": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // base64(1), base32(1): `base64 [OPTION]... [FILE]`
  program_rule(
    {
      rule: "base64",
      manual: "base64(1), base32(1), GNU coreutils 9.4",
      category: "read_only",
      options: { "-d|--decode": {}, "-i|--ignore-garbage": {}, "-w|--wrap": { value: "number" }, ...INFO },
      operands: { first: ["read"] },
    },
    ["base64", "base32"],
  ),
  // shuf(1): `shuf [OPTION]... [FILE]`, `shuf -e [OPTION]... [ARG]...`, `shuf -i LO-HI [OPTION]...`
  program_rule({
    rule: "shuf",
    manual: "shuf(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-e|--echo": {},
      "-i|--input-range": { value: "text" },
      "-n|--head-count": { value: "number" },
      "-o|--output": { value: "write" },
      "--random-source": { value: "read" },
      "-r|--repeat": {},
      "-z|--zero-terminated": {},
      ...INFO,
    },
    operands: (seen) => (seen.has("-e") ? { rest: "text" } : { first: ["read"] }),
  }),
  // split(1): `split [OPTION]... [FILE [PREFIX]]`: it writes PREFIXaa, PREFIXab … (`x` when PREFIX is not given);
  // `--filter` hands every piece to a shell command
  program_rule({
    rule: "split",
    manual: "split(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--suffix-length": { value: "number" },
      "--additional-suffix": { value: SUFFIX },
      "-b|--bytes": { value: "number" },
      "-C|--line-bytes": { value: "number" },
      "-d": {},
      "--numeric-suffixes": { value: "number", optional_value: true },
      "-x": {},
      "--hex-suffixes": { value: "number", optional_value: true },
      "-e|--elide-empty-files": {},
      "--filter": { value: "command" },
      "-l|--lines": { value: "number" },
      "-n|--number": { value: "text" },
      "-t|--separator": { value: "text" },
      "-u|--unbuffered": {},
      "--verbose": {},
      ...INFO,
    },
    operands: { first: ["read", "write"] },
    check: (matched, _, operands) => {
      if (operands.length < 2) matched.write(literal_word("x"));
    },
  }),
  // csplit(1): `csplit [OPTION]... FILE PATTERN...`: it writes PREFIX00, PREFIX01 … (`xx` by default)
  program_rule({
    rule: "csplit",
    manual: "csplit(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-b|--suffix-format": { value: SUFFIX },
      "-f|--prefix": { value: "write" },
      "-k|--keep-files": {},
      "--suppress-matched": {},
      "-n|--digits": { value: "number" },
      "-s|--quiet|--silent": {},
      "-z|--elide-empty-files": {},
      ...INFO,
    },
    operands: { first: ["read"], rest: "text" },
    check: (matched, seen) => {
      if (!seen.has("-f")) matched.write(literal_word("xx"));
    },
  }),
];

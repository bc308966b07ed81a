import { program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { ProgramRule, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { FILES0_FROM, INFO, one_of } from "./common.js";

const WHEN = one_of("always", "yes", "force", "never", "no", "none", "auto", "tty", "if-tty");

/**
 * A walk that lists names, sizes and times (`ls -R`, `du`, `tree`) opens no file it finds, so only its
 * operands are judged — unless it follows the symlinks inside, which lead the listing anywhere.
 */
const listing = (follows: boolean): "read" | "linked_tree" => (follows ? "linked_tree" : "read");

/** Lists `.` when a following walk is given no operand. */
function list_here(matched: Matched, operands: readonly ShellWord[], follows: boolean): void {
  if (operands.length === 0 && follows) matched.read(literal_word("."), "linked_tree");
}

/** `file -m a:b`: a colon-separated list of magic files, each read. */
const MAGIC_FILES: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    if (!word.literal) matched.read(word);
    else for (const file of word.value.split(":")) matched.read(literal_word(file));
  },
};

/**
 * Programs that list, describe and dump files (GNU coreutils 9.4, diffutils 3.10, file 5.45, util-linux 2.39,
 * tree 2.1, binutils 2.42, xxd 2023): they read their operands and print; none of them runs a program.
 */
export const LISTING_RULES: readonly ProgramRule[] = [
  // ls(1): `ls [OPTION]... [FILE]...`; `-R` lists every folder below, and with `-L` through the symlinks there
  program_rule({
    rule: "ls",
    manual: "ls(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--all": {},
      "-A|--almost-all": {},
      "--author": {},
      "-b|--escape": {},
      "--block-size": { value: "text" },
      "-B|--ignore-backups": {},
      "-c": {},
      "-C": {},
      "--color|--colour": { value: WHEN, optional_value: true },
      "-d|--directory": {},
      "-D|--dired": {},
      "-f": {},
      "-F": {},
      "--classify": { value: WHEN, optional_value: true },
      "--file-type": {},
      "--format": { value: one_of("across", "commas", "horizontal", "long", "single-column", "verbose", "vertical") },
      "--full-time": {},
      "-g": {},
      "--group-directories-first": {},
      "-G|--no-group": {},
      "-h|--human-readable": {},
      "--si": {},
      "-H|--dereference-command-line": {},
      "--dereference-command-line-symlink-to-dir": {},
      "--hide": { value: "text" },
      "--hyperlink": { value: WHEN, optional_value: true },
      "--indicator-style": { value: one_of("none", "slash", "file-type", "classify") },
      "-i|--inode": {},
      "-I|--ignore": { value: "text" },
      "-k|--kibibytes": {},
      "-l": {},
      "-L|--dereference": {},
      "-m": {},
      "-n|--numeric-uid-gid": {},
      "-N|--literal": {},
      "-o": {},
      "-p": {},
      "-q|--hide-control-chars": {},
      "--show-control-chars": {},
      "-Q|--quote-name": {},
      "--quoting-style": { value: one_of("literal", "locale", "shell", "shell-always", "shell-escape", "shell-escape-always", "c", "escape") },
      "-r|--reverse": {},
      "-R|--recursive": {},
      "-s|--size": {},
      "-S": {},
      "--sort": { value: one_of("none", "size", "time", "version", "extension", "width") },
      "--time": { value: one_of("atime", "access", "use", "ctime", "status", "mtime", "modification", "birth", "creation") },
      "--time-style": { value: "text" },
      "-t": {},
      "-T|--tabsize": { value: "number" },
      "-u": {},
      "-U": {},
      "-v": {},
      "-w|--width": { value: "number" },
      "-x": {},
      "-X": {},
      "-Z|--context": {},
      "--zero": {},
      "-1": {},
      ...INFO,
    },
    operands: (seen) => ({ rest: listing(seen.has("-R") && seen.has("-L")) }),
    check: (matched, seen, operands) => list_here(matched, operands, seen.has("-R") && seen.has("-L")),
  }),
  // stat(1): `stat [OPTION]... FILE...`
  program_rule({
    rule: "stat",
    manual: "stat(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-L|--dereference": {},
      "-f|--file-system": {},
      "--cached": { value: one_of("always", "never", "default") },
      "-c|--format": { value: "text" },
      "--printf": { value: "text" },
      "-t|--terse": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // du(1): `du [OPTION]... [FILE]...`: it sizes every entry below its operands (`.` by default), through the
  // symlinks there with `-L`
  program_rule({
    rule: "du",
    manual: "du(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-0|--null": {},
      "-a|--all": {},
      "--apparent-size": {},
      "-B|--block-size": { value: "text" },
      "-b|--bytes": {},
      "-c|--total": {},
      "-D|-H|--dereference-args": {},
      "-d|--max-depth": { value: "number" },
      "--files0-from": FILES0_FROM,
      "-h|--human-readable": {},
      "--inodes": {},
      "-k": {},
      "-L|--dereference": {},
      "-l|--count-links": {},
      "-m": {},
      "-P|--no-dereference": {},
      "-S|--separate-dirs": {},
      "--si": {},
      "-s|--summarize": {},
      "-t|--threshold": { value: "number" },
      "--time": { value: one_of("atime", "access", "use", "ctime", "status"), optional_value: true },
      "--time-style": { value: "text" },
      "-X|--exclude-from": { value: "read" },
      "--exclude": { value: "text" },
      "-x|--one-file-system": {},
      ...INFO,
    },
    operands: (seen) => ({ rest: listing(seen.has("-L")) }),
    check: (matched, seen, operands) => list_here(matched, operands, seen.has("-L")),
  }),
  // df(1): `df [OPTION]... [FILE]...`: the file systems holding FILE
  program_rule({
    rule: "df",
    manual: "df(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-a|--all": {},
      "-B|--block-size": { value: "text" },
      "-h|--human-readable": {},
      "-H|--si": {},
      "-i|--inodes": {},
      "-k": {},
      "-l|--local": {},
      "--no-sync": {},
      "--output": { value: "text", optional_value: true },
      "-P|--portability": {},
      "--sync": {},
      "--total": {},
      "-t|--type": { value: "text" },
      "-T|--print-type": {},
      "-x|--exclude-type": { value: "text" },
      "-v": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // basename(1): `basename NAME [SUFFIX]`, `basename OPTION... NAME...`: it only edits the names it is given
  program_rule({
    rule: "basename",
    manual: "basename(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-a|--multiple": {}, "-s|--suffix": { value: "text" }, "-z|--zero": {}, ...INFO },
    operands: { rest: "text" },
  }),
  // dirname(1): `dirname [OPTION] NAME...`
  program_rule({
    rule: "dirname",
    manual: "dirname(1), GNU coreutils 9.4",
    category: "read_only",
    options: { "-z|--zero": {}, ...INFO },
    operands: { rest: "text" },
  }),
  // realpath(1): `realpath [OPTION]... FILE...`
  program_rule({
    rule: "realpath",
    manual: "realpath(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-e|--canonicalize-existing": {},
      "-m|--canonicalize-missing": {},
      "-L|--logical": {},
      "-P|--physical": {},
      "-q|--quiet": {},
      "--relative-to": { value: "read" },
      "--relative-base": { value: "read" },
      "-s|--strip|--no-symlinks": {},
      "-z|--zero": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // readlink(1): `readlink [OPTION]... FILE...`
  program_rule({
    rule: "readlink",
    manual: "readlink(1), GNU coreutils 9.4",
    category: "read_only",
    options: {
      "-f|--canonicalize": {},
      "-e|--canonicalize-existing": {},
      "-m|--canonicalize-missing": {},
      "-n|--no-newline": {},
      "-q|--quiet": {},
      "-s|--silent": {},
      "-v|--verbose": {},
      "-z|--zero": {},
      ...INFO,
    },
    operands: { rest: "read" },
  }),
  // file(1): `file [OPTION...] [FILE...]`; `-f` reads the names to examine from a file this analyzer cannot see,
  // `-z`/`-Z` run decompression programs on what they read
  program_rule({
    rule: "file",
    manual: "file(1), file 5.45",
    category: "read_only",
    options: {
      "-v|--version": {},
      "--help": {},
      "-m|--magic-file": { value: MAGIC_FILES },
      "-z|--uncompress": { ask: "runs decompression programs on the files it reads" },
      "-Z|--uncompress-noreport": { ask: "runs decompression programs on the files it reads" },
      "-b|--brief": {},
      "-c|--checking-printout": {},
      "-e|--exclude": { value: "text" },
      "--exclude-quiet": { value: "text" },
      "-f|--files-from": { value: "read", ask: "reads the names of the files to examine from a file this analyzer cannot see" },
      "-F|--separator": { value: "text" },
      "-i|--mime": {},
      "--apple": {},
      "--extension": {},
      "--mime-type": {},
      "--mime-encoding": {},
      "-k|--keep-going": {},
      "-l|--list": {},
      "-L|--dereference": {},
      "-h|--no-dereference": {},
      "-n|--no-buffer": {},
      "-N|--no-pad": {},
      "-0|--print0": {},
      "-P|--parameter": { value: "text" },
      "-r|--raw": {},
      "-s|--special-files": {},
      "-d|--debug": {},
    },
    operands: { rest: "read" },
  }),
  // tree(1): `tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level] [-P pattern] [-I pattern] [-o filename] [directory ...]`:
  // it lists every entry below its operands (`.` by default), through the symlinks to folders with `-l`
  program_rule({
    rule: "tree",
    manual: "tree(1), tree 2.1",
    category: "read_only",
    options: {
      "-a": {},
      "-d": {},
      "-l": {},
      "-f": {},
      "-x": {},
      "-L": { value: "number" },
      "-P": { value: "text" },
      "-I": { value: "text" },
      "--gitignore": {},
      "--ignore-case": {},
      "--matchdirs": {},
      "--prune": {},
      "--noreport": {},
      "--charset": { value: "text" },
      "--filelimit": { value: "number" },
      "-o": { value: "write" },
      "-q": {},
      "-N": {},
      "-Q": {},
      "-p": {},
      "-u": {},
      "-g": {},
      "-s": {},
      "-h": {},
      "--si": {},
      "--du": {},
      "-D": {},
      "-F": {},
      "--inodes": {},
      "--device": {},
      "-v": {},
      "-t": {},
      "-c": {},
      "-U": {},
      "-r": {},
      "--dirsfirst": {},
      "-i": {},
      "-A": {},
      "-S": {},
      "-n": {},
      "-C": {},
      "-J": {},
      "-X": {},
      ...INFO,
    },
    operands: (seen) => ({ rest: listing(seen.has("-l")) }),
    check: (matched, seen, operands) => list_here(matched, operands, seen.has("-l")),
  }),
  // hexdump(1): `hexdump [options] file...`
  program_rule(
    {
      rule: "hexdump",
      manual: "hexdump(1), util-linux 2.39",
      category: "read_only",
      options: {
        "-b|--one-byte-octal": {},
        "-c|--one-byte-char": {},
        "-C|--canonical": {},
        "-d|--two-bytes-decimal": {},
        "-o|--two-bytes-octal": {},
        "-x|--two-bytes-hex": {},
        "-L|--color": { value: WHEN, optional_value: true },
        "-e|--format": { value: "text" },
        "-f|--format-file": { value: "read" },
        "-n|--length": { value: "number" },
        "-s|--skip": { value: "text" },
        "-v|--no-squeezing": {},
        "-h|--help": {},
        "-V|--version": {},
      },
      operands: { rest: "read" },
    },
    ["hexdump", "hd"],
  ),
  // strings(1): `strings [-afovV] [-min-len] [-n min-len] [-t radix] [-e encoding] [@file] [file...]`; an `@file`
  // operand is a file of further options, which this analyzer does not read
  program_rule({
    rule: "strings",
    manual: "strings(1), GNU binutils 2.42",
    category: "read_only",
    number_option: "-n",
    options: {
      "-a|--all": {},
      "-d|--data": {},
      "-f|--print-file-name": {},
      "-n|--bytes": { value: "number" },
      "-t|--radix": { value: one_of("o", "d", "x") },
      "-o": {},
      "-w|--include-all-whitespace": {},
      "-T|--target": { value: "text" },
      "-e|--encoding": { value: one_of("s", "S", "b", "l", "B", "L") },
      "-U|--unicode": { value: one_of("default", "show", "invalid", "hex", "escape", "highlight", "d", "s", "i", "x", "e", "h") },
      "-s|--output-separator": { value: "text" },
      "-h|--help": {},
      "-v|-V|--version": {},
    },
    operands: { rest: { judge: not_a_response_file } },
  }),
  // column(1): `column [options] [file ...]`
  program_rule({
    rule: "column",
    manual: "column(1), util-linux 2.39",
    category: "read_only",
    options: {
      "-t|--table": {},
      "-n|--table-name": { value: "text" },
      "-O|--table-order": { value: "text" },
      "-N|--table-columns": { value: "text" },
      "-l|--table-columns-limit": { value: "number" },
      "-E|--table-noextreme": { value: "text" },
      "-d|--table-noheadings": {},
      "-e|--table-header-repeat": {},
      "-H|--table-hide": { value: "text" },
      "-R|--table-right": { value: "text" },
      "-T|--table-truncate": { value: "text" },
      "-W|--table-wrap": { value: "text" },
      "-L|--keep-empty-lines": {},
      "-J|--json": {},
      "-r|--tree": { value: "text" },
      "-i|--tree-id": { value: "text" },
      "-p|--tree-parent": { value: "text" },
      "-c|--output-width": { value: "number" },
      "-o|--output-separator": { value: "text" },
      "-s|--separator": { value: "text" },
      "-x|--fillrows": {},
      "-h|--help": {},
      "-V|--version": {},
    },
    operands: { rest: "read" },
  }),
  // rev(1): `rev [options] [file ...]`
  program_rule({
    rule: "rev",
    manual: "rev(1), util-linux 2.39",
    category: "read_only",
    options: { "-0|--zero": {}, "-h|--help": {}, "-V|--version": {} },
    operands: { rest: "read" },
  }),
  // diff(1): `diff [OPTION]... FILES`: it reads the files inside folder operands (every level with `-r`), and
  // follows the symlinks there unless `--no-dereference`; `-N` prints a file missing on one side whole
  program_rule({
    rule: "diff",
    manual: "diff(1), GNU diffutils 3.10",
    category: "read_only",
    options: {
      "--normal": {},
      "-q|--brief": {},
      "-s|--report-identical-files": {},
      "-c": {},
      "-C": { value: "number" },
      "--context": { value: "number", optional_value: true },
      "-u": {},
      "-U": { value: "number" },
      "--unified": { value: "number", optional_value: true },
      "-e|--ed": {},
      "-n|--rcs": {},
      "-y|--side-by-side": {},
      "-W|--width": { value: "number" },
      "--left-column": {},
      "--suppress-common-lines": {},
      "-p|--show-c-function": {},
      "-F|--show-function-line": { value: "text" },
      "--label": { value: "text" },
      "-t|--expand-tabs": {},
      "-T|--initial-tab": {},
      "--tabsize": { value: "number" },
      "--suppress-blank-empty": {},
      "-l|--paginate": {},
      "-r|--recursive": {},
      "--no-dereference": {},
      "-N|--new-file": {},
      "--unidirectional-new-file": {},
      "--ignore-file-name-case": {},
      "--no-ignore-file-name-case": {},
      "-x|--exclude": { value: "text" },
      "-X|--exclude-from": { value: "read" },
      "-S|--starting-file": { value: "text" },
      "--from-file": { value: "read" },
      "--to-file": { value: "read" },
      "-i|--ignore-case": {},
      "-E|--ignore-tab-expansion": {},
      "-Z|--ignore-trailing-space": {},
      "-b|--ignore-space-change": {},
      "-w|--ignore-all-space": {},
      "-B|--ignore-blank-lines": {},
      "-I|--ignore-matching-lines": { value: "text" },
      "-a|--text": {},
      "--strip-trailing-cr": {},
      "-D|--ifdef": { value: "text" },
      "--old-group-format|--new-group-format|--unchanged-group-format|--changed-group-format": { value: "text" },
      "--line-format|--old-line-format|--new-line-format|--unchanged-line-format": { value: "text" },
      "-d|--minimal": {},
      "--horizon-lines": { value: "number" },
      "--speed-large-files": {},
      "--color": { value: one_of("never", "always", "auto"), optional_value: true },
      "--palette": { value: "text" },
      "--help": {},
      "-v|--version": {},
    },
    operands: (seen) => ({ rest: seen.has("--no-dereference") ? "tree" : "linked_tree" }),
  }),
  // cmp(1): `cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]`
  program_rule({
    rule: "cmp",
    manual: "cmp(1), GNU diffutils 3.10",
    category: "read_only",
    options: {
      "-b|--print-bytes": {},
      "-i|--ignore-initial": { value: "text" },
      "-l|--verbose": {},
      "-n|--bytes": { value: "number" },
      "-s|--quiet|--silent": {},
      "--help": {},
      "-v|--version": {},
    },
    operands: { first: ["read", "read", "number", "number"] },
  }),
  pager("less", "less(1), less 643"),
  pager("more", "more(1), util-linux 2.39"),
  xxd_rule(),
];

/** A strings operand: a file read, or an `@file` of further options. */
function not_a_response_file(word: ShellWord, matched: Matched): void {
  if (word.literal && word.value.startsWith("@")) matched.ask(`strings ${word.value} reads further options from a file this analyzer does not read`);
  else matched.read(word);
}

/**
 * less(1), more(1): interactive pagers. Their commands run shell commands (`!`, `|`, `v` opens an editor) and
 * `LESSOPEN` runs a preprocessor on every file, so they always ask; their file operands are still judged.
 */
function pager(name: string, manual: string): ProgramRule {
  return {
    names: [name],
    match(args) {
      const matched = new Matched(name, manual);
      matched.categories.add("read_only");
      matched.ask(`${name} is an interactive pager: its commands run shell commands and LESSOPEN runs a preprocessor`);
      for (const word of args) if (!word.literal || !/^[-+]/.test(word.value)) matched.read(word);
      return matched;
    },
  };
}

/** xxd's flags, and its options taking a value with the long spelling each also answers to (`-c 8`, `-c8`, `-cols 8`). */
const XXD_FLAGS = new Set(["-a", "-b", "-C", "-d", "-e", "-E", "-i", "-p", "-r", "-u", "-v"]);
const XXD_VALUED: Readonly<Record<string, string>> = { "-c": "ols", "-g": "roupsize", "-l": "en", "-n": "ame", "-o": "ffset", "-s": "eek", "-R": "" };

/**
 * xxd(1): `xxd [options] [infile [outfile]]`, `xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]`. As xxd
 * does, an option is recognised by its first two characters (`-ps`, `-revert`), a value attached or next; the
 * outfile is written, dump or reverse alike.
 */
function xxd_rule(): ProgramRule {
  const manual = "xxd(1), xxd 2023-10-25 (Vim 9.1)";
  return {
    names: ["xxd"],
    match(args) {
      const matched = new Matched("xxd", manual);
      matched.categories.add("read_only");
      let index = 0;
      for (; index < args.length; index += 1) {
        // biome-ignore lint/style/noNonNullAssertion: index < args.length
        const word = args[index]!;
        if (!word.literal || !word.value.startsWith("-") || word.value === "-") break;
        if (word.value === "--") {
          index += 1;
          break;
        }
        const text = word.value.startsWith("--") ? word.value.slice(1) : word.value;
        const option = text.slice(0, 2);
        const long = XXD_VALUED[option];
        if (option === "-c" && text.startsWith("-capitalize")) continue;
        if (long === undefined) {
          if (!XXD_FLAGS.has(option)) matched.ask(`xxd ${word.value} is not an option this analyzer knows, so what it does cannot be checked`);
          continue;
        }
        if (text.length === 2 || (long !== "" && text.slice(2).startsWith(long))) index += 1;
      }
      const [infile, outfile, ...extra] = args.slice(index);
      if (infile !== undefined) matched.read(infile);
      if (outfile !== undefined) matched.write(outfile);
      if (extra.length > 0) matched.ask("xxd takes at most an input and an output file");
      return matched;
    },
  };
}

import { judge_value } from "../grammar/declarative.js";
import { Matched, type ReadDepth } from "../grammar/matched.js";
import type { ProgramRule, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { one_of } from "./common.js";

/**
 * The entries a search finds under a starting point, as a word for the command it runs on them: the
 * starting point marked as a glob's base, so a write is judged as one inside it (`find . -exec rm {} +`
 * removes what is in the project, not the project) and a read as one of it. What the entries below may
 * reach through symlinks is judged on the starting point's tree read.
 */
function found(start: ShellWord): ShellWord {
  return { value: start.value, literal: start.literal, glob: true };
}

/**
 * A command a search runs on what it finds (`find -exec`, `fd -x`): one per starting point, each
 * placeholder replaced by the entries found there. A placeholder inside a longer word builds a path this
 * analyzer cannot follow, and one in the command's name runs the found files themselves: both ask.
 */
export function run_on_found(
  matched: Matched,
  words: readonly ShellWord[],
  starts: readonly ShellWord[],
  via: string,
  placeholders: { readonly whole: RegExp; readonly inside: RegExp },
): void {
  const [program] = words;
  if (program === undefined) return;
  if (placeholders.inside.test(program.value)) {
    matched.ask(`${via} runs the files it finds as programs`);
    return;
  }
  for (const word of words) {
    if (placeholders.inside.test(word.value) && !placeholders.whole.test(word.value))
      matched.ask(`${via} ${word.value} builds a path from a found file's name, which this analyzer cannot follow`);
  }
  for (const start of starts) matched.argv.push({ words: words.map((word) => (placeholders.whole.test(word.value) ? found(start) : word)), via });
}

const MANUAL = "find(1), GNU findutils 4.9";
const FIND_PLACEHOLDER = { whole: /^\{\}$/, inside: /\{\}/ };
const REGEX_TYPES = one_of(
  "findutils-default",
  "ed",
  "emacs",
  "gnu-awk",
  "grep",
  "posix-awk",
  "awk",
  "posix-basic",
  "posix-egrep",
  "egrep",
  "posix-extended",
  "posix-minimal-basic",
  "sed",
);

const each = (kind: ValueKind, ...names: string[]): Record<string, ValueKind> => Object.fromEntries(names.map((name) => [name, kind]));

/** Primaries taking one value, by its kind. */
const VALUED: Readonly<Record<string, ValueKind>> = {
  ...each("text", "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname"),
  ...each("text", "-type", "-xtype", "-fstype", "-user", "-group", "-perm", "-context", "-printf"),
  ...each("number", "-amin", "-atime", "-cmin", "-ctime", "-mmin", "-mtime", "-used", "-links", "-inum", "-size", "-uid", "-gid"),
  ...each("number", "-maxdepth", "-mindepth"),
  ...each("read", "-newer", "-anewer", "-cnewer", "-samefile"),
  ...each("write", "-fprint", "-fprint0", "-fls"),
  "-regextype": REGEX_TYPES,
};

/** Operators, tests, options and actions without a value; `-follow` also follows symlinks, as `-L` does. */
const FLAGS = new Set([
  "(",
  ")",
  "!",
  ",",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-true",
  "-false",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-warn",
  "-nowarn",
  "-follow",
  "-help",
  "--help",
  "-version",
  "--version",
]);
const EXECUTES = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Where the expression starts: an option-like word, or an operator. */
const starts_expression = (word: ShellWord): boolean => word.literal && (word.value.startsWith("-") || ["(", ")", "!", ","].includes(word.value));

/** The state of one find command line as it is read. */
type Reading = {
  readonly matched: Matched;
  readonly args: readonly ShellWord[];
  readonly starts: readonly ShellWord[];
  follows: boolean;
  deletes: boolean;
  /** Whether a command runs on the entries found, which opens them: then the starting points are read as trees. */
  opens: boolean;
  /** Whether every entry found is of a `-type` that is not a symlink: the expression is a plain conjunction with one. */
  no_links: boolean;
  /** Whether the expression has an operator (`-o`, `!`, `,`, parentheses), after which a `-type` no longer holds for every entry. */
  branches: boolean;
};

const OPERATORS = new Set(["(", ")", "!", ",", "-not", "-o", "-or"]);

/**
 * How the starting points are read: listed only, unless a command opens the entries found; that command
 * follows the symlinks among them (`grep -r PATTERN {}` walks a symlinked folder it is given), so they are
 * read through their symlinks unless `-type` keeps symlinks out.
 */
function start_depth(reading: Reading): ReadDepth {
  if (reading.follows) return "linked_tree";
  if (!reading.opens) return "path";
  return reading.no_links && !reading.branches ? "tree" : "linked_tree";
}

/**
 * find(1): `find [-H] [-L] [-P] [-D debugopts] [-Olevel] [starting-point...] [expression]`. find lists the
 * entries below its starting points (`.` when none), through the symlinks there with `-L` or `-follow`;
 * `-exec` and its kin run a command on them (see `start_depth`), `-delete` removes them, `-fprint` and its
 * kin write a file.
 */
export const FIND_RULE: ProgramRule = {
  names: ["find"],
  match(args) {
    const matched = new Matched("find", MANUAL);
    matched.categories.add("read_only");
    let index = 0;
    let follows = false;
    for (; index < args.length; index += 1) {
      // biome-ignore lint/style/noNonNullAssertion: index < args.length
      const word = args[index]!;
      if (!word.literal) break;
      if (word.value === "-L" || word.value === "-H" || word.value === "-P") follows = word.value === "-L";
      else if (word.value === "-D") index += 1;
      else if (!/^-O\d$/.test(word.value)) break;
    }
    const starts: ShellWord[] = [];
    for (let start = args[index]; start !== undefined && !starts_expression(start); start = args[++index]) {
      if (!start.literal) matched.ask(`${start.value} is only known at run time, and may be a find expression that runs a command`);
      starts.push(start);
    }
    if (starts.length === 0) starts.push(literal_word("."));
    const reading: Reading = { matched, args, starts, follows, deletes: false, opens: false, no_links: false, branches: false };
    while (index < args.length) index = primary(reading, index) + 1;
    for (const start of starts) {
      matched.read(start, start_depth(reading));
      if (reading.deletes) matched.write(found(start), true);
    }
    return matched;
  },
};

/** Reads the primary at `index`; returns the index of the last word it took. */
function primary(reading: Reading, index: number): number {
  const { matched, args } = reading;
  // biome-ignore lint/style/noNonNullAssertion: the caller passes an index inside args
  const word = args[index]!;
  const name = word.value;
  if (!word.literal) {
    matched.ask(`${name} is only known at run time, and may be a find expression that runs a command`);
    return index;
  }
  if (FLAGS.has(name)) {
    if (name === "-follow") reading.follows = true;
    if (OPERATORS.has(name)) reading.branches = true;
    return index;
  }
  if (name === "-delete") {
    matched.categories.add("destructive");
    reading.deletes = true;
    return index;
  }
  if (EXECUTES.has(name)) return execute(reading, index);
  const newer = /^-newer[aBcm]([aBcmt])$/.exec(name);
  const kind = VALUED[name] ?? (newer === null ? undefined : newer[1] === "t" ? "text" : "read");
  const arity = name === "-fprintf" ? 2 : kind !== undefined || name === "-files0-from" ? 1 : 0;
  if (arity === 0) {
    matched.ask(`find ${name} is not a primary this analyzer knows, so what it does cannot be checked`);
    return index;
  }
  const values = args.slice(index + 1, index + 1 + arity);
  if (values.length < arity) matched.ask(`find ${name} is missing its value`);
  const [value] = values;
  if (value === undefined) return index;
  if (name === "-type" && !value.value.split(",").includes("l")) reading.no_links = true;
  if (name === "-fprintf") matched.write(value);
  else if (name === "-files0-from") {
    matched.read(value);
    matched.ask("find -files0-from reads its starting points from a file this analyzer cannot see");
  } else if (kind !== undefined) judge_value(kind, value, `find ${name}`, matched);
  return index + values.length;
}

/**
 * `-exec COMMAND ;`, `-exec COMMAND {} +` and kin: the command runs on the entries found. `+` ends it only
 * right after `{}`. `-execdir` and `-okdir` run it in each entry's folder, where its relative paths lead
 * elsewhere than they do here.
 */
function execute(reading: Reading, index: number): number {
  const { matched, args } = reading;
  // biome-ignore lint/style/noNonNullAssertion: the caller passes an index inside args
  const name = args[index]!.value;
  let end = index + 1;
  while (end < args.length) {
    // biome-ignore lint/style/noNonNullAssertion: end < args.length
    const word = args[end]!;
    if (word.literal && (word.value === ";" || (word.value === "+" && end > index + 2 && args[end - 1]?.value === "{}"))) break;
    end += 1;
  }
  if (end === args.length) matched.ask(`find ${name} has no terminating ';' or '+'`);
  if (name === "-execdir" || name === "-okdir")
    matched.ask(`find ${name} runs its command in the folder of each entry found, where its relative paths lead elsewhere`);
  reading.opens = true;
  run_on_found(matched, args.slice(index + 1, end), reading.starts, `find ${name}`, FIND_PLACEHOLDER);
  return end;
}

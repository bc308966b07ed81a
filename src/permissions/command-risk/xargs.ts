import fs from "node:fs";
import path from "node:path";
import type { PathUse } from "./grammar/matched.js";
import type { SimpleCommand } from "./parse.js";
import { piped_text } from "./piped.js";
import type { ShellWord } from "./types.js";
import { literal_word } from "./words.js";
import type { XargsInput } from "./wrappers.js";

/**
 * The command xargs runs, with the arguments it reads (findutils 4.9 xargs(1)): they come from standard
 * input, so they are words only known at run time (`echo ~/.ssh/id_rsa | xargs cat` asks) — unless the
 * producer of the pipe shows what they are: literal words (`echo a b | xargs …`), or the paths `find`
 * prints under literal start points, which are then a tree read of those start points.
 */
type Fed = { readonly words: ShellWord[]; readonly trees: PathUse[] };

/** Stands for the items read at run time; not a plain word, so no path is made of it. */
const INPUT = "$(input of xargs)";
const UNKNOWN: ShellWord = { value: INPUT, literal: false, glob: false };

/** find's tests and operators that select paths without printing anything else, and the ones that take a value. */
const FIND_TESTS = new Set([
  "-empty",
  "-readable",
  "-writable",
  "-executable",
  "-true",
  "-false",
  "-prune",
  "-print",
  "-print0",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  "!",
  "(",
  ")",
  ",",
  "-depth",
  "-xdev",
  "-mount",
  "-nouser",
  "-nogroup",
  "-noleaf",
  "-daystart",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
]);
const FIND_VALUED = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-regextype",
  "-type",
  "-xtype",
  "-maxdepth",
  "-mindepth",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-size",
  "-perm",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-links",
  "-inum",
  "-samefile",
  "-used",
]);

/**
 * The start points of `find [-P] [-D opts] [-Olevel] [starting-point...] [expression]` when its output
 * is only paths under them (no `-printf`, `-ls`, `-exec` …, no `-L`/`-H`/`-follow`), with whether they
 * end in NUL (`-print0`); `undefined` otherwise.
 */
function find_output(words: readonly ShellWord[]): { starts: ShellWord[]; null: boolean } | undefined {
  const [, ...args] = words;
  let index = 0;
  while (index < args.length && /^-(P|D|O\d*)$/.test(args[index]?.value ?? "")) index += args[index]?.value === "-D" ? 2 : 1;
  const starts: ShellWord[] = [];
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (word.literal && /^[-(!,]/.test(word.value)) break;
    if (!word.literal || word.glob) return undefined;
    starts.push(word);
  }
  let null_output = false;
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (!word.literal) return undefined;
    if (word.value === "-print0") null_output = true;
    if (FIND_VALUED.has(word.value)) index += 1;
    else if (!FIND_TESTS.has(word.value)) return undefined;
  }
  return { starts: starts.length > 0 ? starts : [literal_word(".")], null: null_output };
}

/** Characters xargs splits or unquotes at when items are not NUL-delimited. */
const XARGS_SPECIAL = /[\s'"\\]/;
const SCAN_LIMIT = 2000;

/**
 * Whether every name under `start` is plain for xargs (no blank, newline, quote or backslash, which would
 * split a path into other words, `src/x /etc/passwd` into two), looked at without following symlinks and
 * up to a bound.
 */
function plain_names(start: string, cwd: string): boolean {
  if (XARGS_SPECIAL.test(start)) return false;
  const folders = [path.resolve(cwd, start)];
  let seen = 0;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > SCAN_LIMIT || XARGS_SPECIAL.test(entry.name)) return false;
      if (entry.isDirectory()) folders.push(path.join(folder, entry.name));
    }
  }
  return true;
}

/** The items xargs reads, when its producer shows them; `undefined` when they are only known at run time. */
function items_of(input: XargsInput, producer: SimpleCommand | undefined, cwd: string): { items: ShellWord[]; trees: PathUse[] } | undefined {
  if (input.from_file || producer === undefined) return undefined;
  if (producer.words[0]?.value === "find" && producer.words[0].literal) {
    const found = find_output(producer.words);
    if (found === undefined || found.null !== input.null) return undefined;
    if (!found.null && !found.starts.every((start) => plain_names(start.value, cwd))) return undefined;
    return { items: found.starts, trees: found.starts.map((word) => ({ word, depth: "tree" })) };
  }
  const piped = piped_text(producer);
  if (piped === undefined || !piped.literal || input.null || input.delimited || XARGS_SPECIAL.test(piped.text.replace(/\s/g, ""))) return undefined;
  const separator = input.replace === undefined ? /\s+/ : /\n/;
  const items = piped.text
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return { items: items.map(literal_word), trees: [] };
}

/**
 * The command xargs runs: its words with the items appended, or with `-I`'s string replaced by the one
 * item there is; items only known at run time stand as a word that is not literal.
 */
export function xargs_command(words: readonly ShellWord[], input: XargsInput, producer: SimpleCommand | undefined, cwd: string): Fed {
  const fed = items_of(input, producer, cwd);
  const replace = input.replace;
  if (replace === undefined) return { words: [...words, ...(fed?.items ?? [UNKNOWN])], trees: fed?.trees ?? [] };
  const item = fed?.items.length === 1 ? fed.items[0] : undefined;
  const replaced = words.map((word): ShellWord => {
    if (!word.value.includes(replace)) return word;
    const parts = word.value.split(replace);
    // a path found under a start point may be a symlink: `{}/id_rsa` goes through it, `{}.bak` does not
    const through = (fed?.trees.length ?? 0) > 0 && parts.slice(1).some((part) => part.includes("/"));
    if (item !== undefined && word.literal && !through) return { value: parts.join(item.value), literal: true, glob: word.glob };
    return { value: parts.join(INPUT), literal: false, glob: false };
  });
  return { words: replaced, trees: item === undefined ? [] : (fed?.trees ?? []) };
}

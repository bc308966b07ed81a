import { expand_braces } from "./braces.js";
import { type Globs, MAX_MATCHES } from "./glob.js";
import type { SimpleCommand } from "./parse.js";
import { glob_base } from "./paths.js";
import { has_glob, unquote } from "./pattern.js";
import type { ShellWord } from "./types.js";
import type { Variables } from "./variables.js";
import { literal_word } from "./words.js";

/** At most this many spellings of one word are judged; more ⇒ the word counts as unknown. */
const MAX_CANDIDATES = MAX_MATCHES;
/** A word made only of plain text, double quotes and `$name` / `${name}` references. */
const SIMPLE_WORD = /^(?:[^$`'\\]|\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\})*$/;

/** What a pattern expands to: fields (a path, or the pattern as written when it matched nothing), or too much. */
type Expansion = { readonly fields: readonly Field[] } | { readonly over: string };
type Field = { readonly value: string; readonly unmatched?: string };

/** Brace expansion, then filename expansion of every word it gives (bash(1), "Expansion", in that order). */
function expand_pattern(pattern: string, globs: Globs): Expansion {
  const spellings = expand_braces(pattern, MAX_MATCHES);
  if (spellings === undefined) return { over: `${unquote(pattern)} expands to more than ${MAX_MATCHES} words: too many to check` };
  const fields: Field[] = [];
  for (const spelling of spellings) {
    const matched = has_glob(spelling) ? globs.match(spelling) : { paths: [unquote(spelling)] };
    if (matched === undefined) fields.push({ value: unquote(spelling), unmatched: spelling });
    else if ("over" in matched) return matched;
    else fields.push(...matched.paths.map((value) => ({ value })));
    if (fields.length > MAX_MATCHES) return { over: `${unquote(pattern)} expands to more than ${MAX_MATCHES} words: too many to check` };
  }
  return { fields };
}

/**
 * The words bash runs: a literal word with active braces or glob characters is replaced by what it
 * expands to against the file system — `cat .e*` reads `.env`, `rg foo *` in `tools/` is given an option
 * `--pre=sh`. A pattern matching nothing stays as written (it keeps its pattern, for its base folder to be
 * judged). `over`: the words that expand to too much to check, kept as written.
 */
export function expand_words(words: readonly ShellWord[], globs: Globs): { readonly words: readonly ShellWord[]; readonly over: readonly string[] } {
  if (!words.some((word) => word.literal && word.pattern !== undefined)) return { words, over: [] };
  const out: ShellWord[] = [];
  const over: string[] = [];
  for (const word of words) {
    const expansion = word.literal && word.pattern !== undefined ? expand_pattern(word.pattern, globs) : undefined;
    if (expansion === undefined || "over" in expansion) {
      if (expansion !== undefined) over.push(expansion.over);
      out.push(word);
      continue;
    }
    for (const field of expansion.fields)
      out.push(field.unmatched === undefined ? literal_word(field.value) : { value: field.value, literal: true, glob: true, pattern: field.unmatched });
  }
  return { words: out, over };
}

/** A path a word may stand for; `base`: the base folder of a glob that matched nothing, whose entries it names. */
type Candidate = { readonly path: string; readonly base: boolean };

/**
 * The paths a word may stand for when bash runs it: a literal word is itself, or what its braces and
 * globs expand to (a glob matching nothing, its base folder — unless `..` follows the pattern, which could
 * climb anywhere); a word of `$name` references is spelt out with every literal value the script gives
 * those names, expanded too (`$HOME` is `~` unless the script sets it). `undefined` when the word is only
 * known at run time, or stands for too many paths to check.
 */
export function path_candidates(word: ShellWord, variables: Variables, globs: Globs): readonly Candidate[] | undefined {
  // a rule's word for "the entries found under" a folder (find's `{}`, `-delete`): a glob with no pattern left
  if (word.literal && word.glob && word.pattern === undefined && !/[*?[]/.test(word.value)) return [{ path: word.value, base: true }];
  if (word.literal)
    return word.pattern !== undefined || word.glob ? pattern_candidates(word.pattern ?? word.value, globs) : [{ path: word.value, base: false }];
  if (!SIMPLE_WORD.test(word.value)) return undefined;
  let spellings: Candidate[] = [{ path: "", base: false }];
  for (const match of word.value.replace(/"/g, "").matchAll(/\$\{?([A-Za-z_]\w*)\}?|[^$]+/g)) {
    // Without a name, the match is a run of plain text.
    const values = match[1] === undefined ? [{ path: match[0], base: false }] : values_of(match[1], variables, globs);
    if (values === undefined) return undefined;
    spellings = spellings.flatMap((spelling) => values.map((value) => ({ path: spelling.path + value.path, base: spelling.base || value.base })));
    if (spellings.length > MAX_CANDIDATES) return undefined;
  }
  const spelt: Candidate[] = [];
  for (const spelling of spellings) {
    const expanded = spelling.base || !/[*?[{]/.test(spelling.path) ? [spelling] : pattern_candidates(spelling.path, globs);
    if (expanded === undefined) return undefined;
    spelt.push(...expanded);
  }
  return spelt;
}

function pattern_candidates(pattern: string, globs: Globs): Candidate[] | undefined {
  const expansion = expand_pattern(pattern, globs);
  if ("over" in expansion) return undefined;
  const candidates: Candidate[] = [];
  for (const field of expansion.fields) {
    if (field.unmatched === undefined) {
      candidates.push({ path: field.value, base: false });
      continue;
    }
    const start = field.value.search(/[*?[]/);
    if (start !== -1 && field.value.slice(start).split("/").includes("..")) return undefined;
    candidates.push({ path: glob_base(field.value), base: true });
  }
  return candidates;
}

function values_of(name: string, variables: Variables, globs: Globs): Candidate[] | undefined {
  const values = variables.bindings.get(name);
  if (values === undefined) return name === "HOME" ? [{ path: "~", base: false }] : undefined;
  if (values.some((value) => !value.literal)) return undefined;
  const spelt: Candidate[] = [];
  for (const value of values) {
    const candidates =
      value.pattern !== undefined || value.glob ? pattern_candidates(value.pattern ?? value.value, globs) : [{ path: value.value, base: false }];
    if (candidates === undefined) return undefined;
    spelt.push(...candidates);
  }
  return spelt;
}

/** Shell options and variables that change what patterns match (`dotglob`, `nocaseglob`, `GLOBIGNORE` …). */
const GLOB_SETTINGS = /\b(shopt|GLOBIGNORE|BASHOPTS)\b/;
const GLOB_VARIABLES = ["GLOBIGNORE", "BASHOPTS"];
/** Shells whose patterns are not bash's (zsh's `**` and qualifiers, ksh's extglob by default). */
const OTHER_SHELLS = /^(zsh|ksh|mksh|fish|busybox)\b/;
/** A `cd` inside a string some command may run (`eval "cd /tmp"`, `bash -c 'cd src && …'`). */
const CD_IN_TEXT = /(?:^|[\s;&|({`])(?:cd|pushd)(?=$|[\s;&|)`])(?:\s+([^\s;&|()`]+))?/g;

/**
 * Before a script's commands are judged: what in it changes where and how its globs expand. `shopt`
 * (any option: dotglob, nocaseglob, extglob, globstar, nullglob …), `GLOBIGNORE` (which turns dotglob
 * on) or `BASHOPTS` anywhere — even in a string — widen every match to a superset. `set` does not: its
 * options can only turn expansion off (`noglob`, `braceexpand`). Folders it may `cd` or `pushd` into —
 * in any order, since loops repeat — are where relative patterns expand too.
 */
export function notice_script(commands: readonly SimpleCommand[], variables: Variables, globs: Globs, via: string | undefined): void {
  if (via !== undefined && OTHER_SHELLS.test(via)) globs.widen();
  if (GLOB_VARIABLES.some((name) => variables.bindings.has(name))) globs.widen();
  if (variables.bindings.has("CDPATH")) globs.enter(undefined);
  for (const command of commands) {
    if (command.assignments.some((assignment) => GLOB_VARIABLES.includes(assignment.name))) globs.widen();
    const words = command.words[0]?.value === "builtin" || command.words[0]?.value === "command" ? command.words.slice(1) : command.words;
    const [name, ...args] = words;
    if (name?.literal === true && (name.value === "cd" || name.value === "pushd")) enter_folder(args, variables, globs);
    for (const [index, word] of words.entries()) {
      if (!word.literal) continue;
      if (GLOB_SETTINGS.test(word.value)) globs.widen();
      if (index > 0) for (const found of word.value.matchAll(CD_IN_TEXT)) enter_text(found[1], globs);
    }
  }
}

/** `cd [-L|-P|-e|-@] [dir]`: no folder is the home folder, `-` one already reached, `+N` a stack entry. */
function enter_folder(args: readonly ShellWord[], variables: Variables, globs: Globs): void {
  const target = args.find((word) => !(word.literal && /^-[LPe@]+$/.test(word.value)));
  if (target === undefined) return globs.enter("~");
  if (target.literal && (target.value === "-" || /^[+-]\d+$/.test(target.value))) return;
  const candidates = path_candidates(target, variables, globs);
  if (candidates === undefined) return globs.enter(undefined);
  for (const candidate of candidates) globs.enter(candidate.path);
}

function enter_text(target: string | undefined, globs: Globs): void {
  if (target === undefined) return globs.enter("~");
  const folder = target.replace(/^["']|["']$/g, "");
  if (/[$`\\]/.test(folder)) globs.enter(undefined);
  else if (folder !== "-") globs.enter(folder);
}

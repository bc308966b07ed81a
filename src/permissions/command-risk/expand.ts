import type { ShellWord } from "./types.js";
import { glob_base } from "./paths.js";
import type { Variables } from "./variables.js";

/** At most this many spellings of one word are judged; more ⇒ the word counts as unknown. */
const MAX_CANDIDATES = 16;
/** A word made only of plain text, double quotes and `$name` / `${name}` references. */
const SIMPLE_WORD = /^(?:[^$`'\\]|\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\})*$/;

/**
 * The paths a word may stand for when bash runs it: a literal word is itself (a glob, its base folder —
 * unless `..` follows the pattern, which could climb anywhere); a word of `$name` references is spelt out
 * with every literal value the script gives those names (`$HOME` is `~` unless the script sets it).
 * `undefined` when the word is only known at run time.
 */
export function path_candidates(word: ShellWord, variables: Variables): string[] | undefined {
  if (word.literal) return word.glob ? glob_candidates(word.value) : [word.value];
  if (!SIMPLE_WORD.test(word.value)) return undefined;
  let spellings = [""];
  for (const match of word.value.replace(/"/g, "").matchAll(/\$\{?([A-Za-z_]\w*)\}?|[^$]+/g)) {
    // Without a name, the match is a run of plain text.
    const values = match[1] === undefined ? [match[0]] : values_of(match[1], variables);
    if (values === undefined) return undefined;
    spellings = spellings.flatMap((spelling) => values.map((value) => spelling + value));
    if (spellings.length > MAX_CANDIDATES) return undefined;
  }
  return spellings.flatMap((spelling) => (/[*?[]/.test(spelling) ? (glob_candidates(spelling) ?? [spelling]) : [spelling]));
}

function glob_candidates(value: string): string[] | undefined {
  const pattern = value.search(/[*?[]/);
  if (pattern !== -1 && value.slice(pattern).split("/").includes("..")) return undefined;
  return [glob_base(value)];
}

function values_of(name: string, variables: Variables): string[] | undefined {
  const values = variables.bindings.get(name);
  if (values === undefined) return name === "HOME" ? ["~"] : undefined;
  if (values.some((value) => !value.literal)) return undefined;
  const spelt: string[] = [];
  for (const value of values) {
    const candidates = value.glob ? glob_candidates(value.value) : [value.value];
    if (candidates === undefined) return undefined;
    spelt.push(...candidates);
  }
  return spelt;
}

import picomatch from "picomatch";
import type { WriteArea } from "../../contracts/write-area.js";

/** The glob reported for a task without a write area: it may write the whole project. */
export const WHOLE_PROJECT = "**";

export type AreaOverlap = { readonly overlap: boolean; readonly a_glob?: string; readonly b_glob?: string };

/**
 * One segment of a glob, as far as overlap can reason about it. `open` stands for everything from this
 * segment on: a globstar, or a segment whose meaning depends on its neighbours (a brace or class split by
 * `/`, an empty segment) — past it, segments of two globs no longer line up.
 */
type Segment =
  | { readonly kind: "literal"; readonly text: string; readonly folded: string }
  | { readonly kind: "simple"; readonly source: string; readonly head: string; readonly tail: string }
  | { readonly kind: "pattern"; readonly source: string }
  | { readonly kind: "open" };

/** Every character with a meaning in picomatch's syntax; a segment free of them is literal text. */
const SYNTAX = /[*?[\]{}()!+@|^$\\]/;
/** A segment using only `*` and `?`: whatever it matches starts with its head and ends with its tail. */
const SIMPLE = /^[^[\]{}()!+@|^$\\]*$/;
const OPENERS: Record<string, string> = { "]": "[", "}": "{", ")": "(" };

function balanced(segment: string): boolean {
  const stack: string[] = [];
  for (const char of segment) {
    if (char === "[" || char === "{" || char === "(") stack.push(char);
    else if (char in OPENERS && stack.pop() !== OPENERS[char]) return false;
  }
  return stack.length === 0;
}

/*
 * Names are folded to lower case before they are compared: on a case-insensitive file system (macOS,
 * Windows) `Src/a` and `src/a` are one file, and an overlap answer must hold wherever the project lives.
 */
const fold = (text: string) => text.toLowerCase();

function literal(text: string): Segment {
  return { kind: "literal", text, folded: fold(text) };
}

function pattern_segment(source: string): Segment {
  if (source === "" || source.includes("**") || !balanced(source)) return { kind: "open" };
  if (!SYNTAX.test(source)) return literal(source);
  if (!SIMPLE.test(source)) return { kind: "pattern", source };
  const wildcard = /[*?]/;
  const first = source.search(wildcard);
  let last = source.length - 1;
  while (last >= 0 && !wildcard.test(source.charAt(last))) last -= 1;
  return { kind: "simple", source, head: fold(source.slice(0, first)), tail: fold(source.slice(last + 1)) };
}

/** The glob's segments up to and including the first `open` one: the part where segments line up. */
function parse(glob: string): readonly Segment[] {
  const scan = picomatch.scan(glob);
  // Not a glob to picomatch: in_write_area compares it as plain text, so every segment is literal.
  if (!scan.isGlob) return glob.split("/").map((part) => (part === "" ? { kind: "open" } : literal(part)));
  if (scan.negated) return [{ kind: "open" }];
  const segments: Segment[] = [];
  for (const part of glob.split("/")) {
    const segment = pattern_segment(part);
    segments.push(segment);
    if (segment.kind === "open") break;
  }
  return segments;
}

/** Bounded memo tables: the planner asks about the same few globs thousands of times per wave. */
const CACHE_LIMIT = 4096;
const parsed = new Map<string, readonly Segment[]>();
const matchers = new Map<string, (text: string) => boolean>();

function remember<V>(table: Map<string, V>, key: string, make: () => V): V {
  const known = table.get(key);
  if (known !== undefined) return known;
  if (table.size >= CACHE_LIMIT) table.clear();
  const made = make();
  table.set(key, made);
  return made;
}

function matches(source: string, text: string): boolean {
  return remember(matchers, source, () => picomatch(source, { dot: true, nocase: true }))(text);
}

const compatible_heads = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);
const compatible_tails = (a: string, b: string) => a.endsWith(b) || b.endsWith(a);

/** Whether no single path segment can match both: only answered `true` when it is certain. */
function segments_disjoint(a: Segment, b: Segment): boolean {
  if (a.kind === "open" || b.kind === "open") return false;
  if (a.kind === "literal" && b.kind === "literal") return a.folded !== b.folded;
  if (a.kind === "literal" && b.kind !== "literal") return !matches(b.source, a.text);
  if (b.kind === "literal" && a.kind !== "literal") return !matches(a.source, b.text);
  if (a.kind === "simple" && b.kind === "simple") return !compatible_heads(a.head, b.head) || !compatible_tails(a.tail, b.tail);
  return false;
}

/**
 * Whether some path lies in both globs. A glob covers what it matches and everything under that (see
 * in_write_area), so two globs overlap when a match of one is the other's match or inside it. Without a
 * globstar a glob matches paths of exactly its segment count, and the k-th segment of each is chosen
 * independently: the globs are disjoint exactly when, at some position both have, no name matches both
 * segments. Past the first `open` segment of either, positions no longer line up and nothing is proven.
 */
function globs_overlap(a: string, b: string): boolean {
  const left = remember(parsed, a, () => parse(a));
  const right = remember(parsed, b, () => parse(b));
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index += 1) {
    const x = left[index];
    const y = right[index];
    if (x === undefined || y === undefined || x.kind === "open" || y.kind === "open") return true;
    if (segments_disjoint(x, y)) return false;
  }
  return true;
}

/**
 * Whether two write areas may touch a common path, and if so one glob of each that do. Conservative: the
 * answer is "disjoint" only when it is proven; an area of `undefined` is the whole project.
 */
export function areas_overlap(a: WriteArea | undefined, b: WriteArea | undefined): AreaOverlap {
  if (a === undefined || b === undefined) return { overlap: true, a_glob: a?.[0] ?? WHOLE_PROJECT, b_glob: b?.[0] ?? WHOLE_PROJECT };
  for (const a_glob of a) {
    for (const b_glob of b) {
      if (globs_overlap(a_glob, b_glob)) return { overlap: true, a_glob, b_glob };
    }
  }
  return { overlap: false };
}

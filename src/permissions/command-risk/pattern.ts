import type { WordPart } from "unbash";

/**
 * Bash patterns as air keeps them: a word's brace, glob and extglob characters active where they were
 * unquoted, and every character that was quoted (or is plain text) escaped with a backslash where it
 * would otherwise mean something — the form bash itself expands, since quote removal comes last.
 */

const SPECIAL = /[\\*?[\]{},()]/g;
/** A quoted `~` is not the home folder either. */
const QUOTED_SPECIAL = /[\\*?[\]{},()~]/g;

function quoted(text: string): string {
  return text.replace(QUOTED_SPECIAL, "\\$&");
}

function double_quoted(parts: readonly WordPart[]): string {
  return quoted(parts.map((part) => (part.type === "Literal" ? part.value : part.text)).join(""));
}

/** A part inside a brace expansion, a bracket or an extglob group: unbash keeps unquoted text raw there. */
function inner(part: WordPart): string {
  switch (part.type) {
    case "Literal":
      return part.text;
    case "SingleQuoted":
    case "AnsiCQuoted":
      return quoted(part.value);
    case "DoubleQuoted":
    case "LocaleString":
      return double_quoted(part.parts);
    default:
      return part_pattern(part);
  }
}

function part_pattern(part: WordPart): string {
  switch (part.type) {
    case "Literal":
      // unquoted text: its special characters were escaped in the source, or they would be parts of their own
      return part.value.replace(SPECIAL, "\\$&");
    case "SingleQuoted":
    case "AnsiCQuoted":
      return quoted(part.value);
    case "DoubleQuoted":
    case "LocaleString":
      return double_quoted(part.parts);
    case "Glob":
      return part.kind === "bracket" ? `[${part.parts.map(inner).join("")}]` : part.text;
    case "BraceExpansion":
      return part.parts === undefined ? part.text : `{${part.parts.map(inner).join("")}}`;
    case "ExtendedGlob":
      return part.parts === undefined ? part.text : `${part.text.charAt(0)}(${part.parts.map(inner).join("")})`;
    default:
      return part.text;
  }
}

/** The pattern of a literal word, when some part of it is a brace expansion, a glob or an extglob group. */
export function word_pattern(parts: readonly WordPart[]): string | undefined {
  if (!parts.some((part) => part.type === "Glob" || part.type === "BraceExpansion" || part.type === "ExtendedGlob")) return undefined;
  return parts.map(part_pattern).join("");
}

/** Quote removal: the text a pattern stands for when it matches nothing. */
export function unquote(pattern: string): string {
  return pattern.replace(/\\(.)/gsu, "$1");
}

/** The index of the `)` closing the group opened at `open`, or -1. */
function group_end(pattern: string, open: number): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === "\\") index += 1;
    else if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return index;
  }
  return -1;
}

/**
 * The pattern with every extglob group (`@(a|b)`, `!(x)` …) replaced by `*`, which matches all it
 * matches; `undefined` when a group spans a `/`, which no segment-wise match can follow.
 */
export function without_extglob(pattern: string): { readonly pattern: string; readonly had: boolean } | undefined {
  let out = "";
  let had = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === "\\") {
      out += pattern.slice(index, index + 2);
      index += 1;
      continue;
    }
    if ("?*+@!".includes(char) && pattern.charAt(index + 1) === "(") {
      const end = group_end(pattern, index + 1);
      if (end !== -1) {
        if (pattern.slice(index, end).includes("/")) return undefined;
        out += "*";
        had = true;
        index = end;
        continue;
      }
    }
    out += char;
  }
  return { pattern: out, had };
}

const CLASSES: Readonly<Record<string, string>> = {
  alpha: "\\p{Alphabetic}",
  upper: "\\p{Uppercase}",
  lower: "\\p{Lowercase}",
  digit: "0-9",
  xdigit: "0-9A-Fa-f",
  alnum: "\\p{Alphabetic}\\p{Nd}",
  word: "\\p{Alphabetic}\\p{Nd}_",
  space: "\\s",
  blank: " \\t",
  punct: "\\p{P}\\p{S}",
  cntrl: "\\p{Cc}",
  print: "\\P{Cc}",
  graph: "\\P{Cc}",
};

const class_char = (char: string): string => (/[\\\][^-]/.test(char) ? `\\${char}` : char);

/**
 * The bracket expression starting at `chars[start]` (`[a-z]`, `[!.]`, `[[:alpha:]]`) as a regular
 * expression class and the index of its closing `]`; `undefined` when it is not closed (bash then
 * matches the `[` itself). A class name bash would not know makes the bracket match any character.
 */
function bracket(chars: readonly string[], start: number): { readonly source: string; readonly end: number } | undefined {
  let index = start + 1;
  const negated = chars[index] === "!" || chars[index] === "^";
  if (negated) index += 1;
  const items: string[] = [];
  let unknown = false;
  for (let first = true; index < chars.length; first = false) {
    const char = chars[index] as string;
    if (char === "]" && !first) return { source: unknown ? "." : `[${negated ? "^" : ""}${items.join("")}]`, end: index };
    const kind = chars[index + 1];
    if (char === "[" && (kind === ":" || kind === "=" || kind === ".")) {
      const close = chars.findIndex((c, at) => at > index + 1 && c === kind && chars[at + 1] === "]");
      if (close !== -1) {
        const name = chars.slice(index + 2, close).join("");
        const source = kind === ":" ? CLASSES[name] : [...name].map(class_char).join("");
        if (source === undefined) unknown = true;
        else items.push(source);
        index = close + 2;
        continue;
      }
    }
    let low = char;
    if (char === "\\" && index + 1 < chars.length) low = chars[++index] as string;
    if (chars[index + 1] === "-" && chars[index + 2] !== undefined && chars[index + 2] !== "]") {
      let high = chars[index + 2] as string;
      index += 3;
      if (high === "\\" && index < chars.length) high = chars[index++] as string;
      // a range running backwards matches nothing in bash
      if ((low.codePointAt(0) ?? 0) <= (high.codePointAt(0) ?? 0)) items.push(`${class_char(low)}-${class_char(high)}`);
      continue;
    }
    items.push(class_char(low));
    index += 1;
  }
  return undefined;
}

/** Whether a pattern has anything filename expansion acts on: `*`, `?`, an extglob group or a closed bracket, unescaped. */
export function has_glob(pattern: string): boolean {
  const chars = [...pattern];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index];
    if (char === "\\") index += 1;
    else if (char === "*" || char === "?" || ("+@!".includes(char as string) && chars[index + 1] === "(")) return true;
    else if (char === "[" && bracket(chars, index) !== undefined) return true;
  }
  return false;
}

/** A segment that may match names starting with a dot: bash wants that dot written, bare or escaped. */
export function explicit_dot(segment: string): boolean {
  return segment.startsWith(".") || segment.startsWith("\\.");
}

/**
 * One path segment of a pattern as a regular expression over a name. `wide`: case-insensitive, as
 * under `nocaseglob` (the dot rule is the caller's).
 */
export function segment_expression(segment: string, wide: boolean): RegExp {
  const chars = [...segment];
  let source = "";
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === "\\" && index + 1 < chars.length) {
      source += (chars[++index] as string).replace(/[.*+?^${}()|[\]\\/]/, "\\$&");
      continue;
    }
    if (char === "*") source += source.endsWith(".*") ? "" : ".*";
    else if (char === "?") source += ".";
    else if (char === "[") {
      const found = bracket(chars, index);
      if (found === undefined) source += "\\[";
      else {
        source += found.source;
        index = found.end;
      }
    } else source += char.replace(/[.*+?^${}()|[\]\\/]/, "\\$&");
  }
  return new RegExp(`^${source}$`, wide ? "isu" : "su");
}

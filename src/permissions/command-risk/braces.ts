/**
 * Brace expansion as bash does it (bash(1), "Brace Expansion"), on a pattern of `pattern.ts`: `a{b,c}d`,
 * nested lists, sequences `{1..10}`, `{01..10..2}`, `{a..e}`. A `{` that opens neither a list with a
 * comma at its top level nor a valid sequence is text, and the scan moves on past it.
 */

const NUMBERS = /^([+-]?\d+)\.\.([+-]?\d+)(?:\.\.([+-]?\d+))?$/;
const LETTERS = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([+-]?\d+))?$/;

/** The `}` closing the `{` at `open` (escapes and nesting respected), and whether a comma is at its top level. */
function closing(pattern: string, open: number): { readonly end: number; readonly comma: boolean } | undefined {
  let depth = 0;
  let comma = false;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === "\\") index += 1;
    else if (char === "{") depth += 1;
    else if (char === "}" && --depth === 0) return { end: index, comma };
    else if (char === "," && depth === 1) comma = true;
  }
  return undefined;
}

/** The elements of a list's inside, split at its top-level commas. */
function elements(inside: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < inside.length; index += 1) {
    const char = inside.charAt(index);
    if (char === "\\") index += 1;
    else if (char === "{") depth += 1;
    else if (char === "}") depth -= 1;
    else if (char === "," && depth === 0) {
      out.push(inside.slice(start, index));
      start = index + 1;
    }
  }
  out.push(inside.slice(start));
  return out;
}

/** The terms of a sequence expression, `undefined` when `inside` is none, `null` when it has more than `limit`. */
function sequence(inside: string, limit: number): string[] | null | undefined {
  const numbers = NUMBERS.exec(inside);
  const letters = numbers === null ? LETTERS.exec(inside) : null;
  const match = numbers ?? letters;
  if (match === null) return undefined;
  const from = numbers === null ? (match[1] as string).charCodeAt(0) : Number(match[1]);
  const to = numbers === null ? (match[2] as string).charCodeAt(0) : Number(match[2]);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.floor(Math.abs(to - from) / step) + 1 > limit) return null;
  // `{01..10}`: either end written with a leading zero pads every term to the wider end
  const padded = numbers !== null && [match[1], match[2]].some((end) => /^[+-]?0\d/.test(end as string));
  const size = Math.max((match[1] as string).length, (match[2] as string).length);
  const terms: string[] = [];
  const direction = to >= from ? 1 : -1;
  for (let value = from; direction > 0 ? value <= to : value >= to; value += direction * step) {
    if (numbers === null) terms.push(String.fromCharCode(value).replace(/[\\*?[\]{},()~]/, "\\$&"));
    else if (!padded) terms.push(String(value));
    else terms.push(value < 0 ? `-${String(-value).padStart(size - 1, "0")}` : String(value).padStart(size, "0"));
  }
  return terms;
}

/**
 * Every word a pattern's braces expand to, in bash's order; `undefined` when that is more than `limit`.
 * The terms of a letter sequence that are special in a pattern come out escaped.
 */
export function expand_braces(pattern: string, limit: number): string[] | undefined {
  for (let open = 0; open < pattern.length; open += 1) {
    const char = pattern.charAt(open);
    if (char === "\\") open += 1;
    if (char !== "{") continue;
    const close = closing(pattern, open);
    if (close === undefined) continue;
    const inside = pattern.slice(open + 1, close.end);
    const terms = close.comma ? elements(inside) : sequence(inside, limit);
    if (terms === null) return undefined;
    if (terms === undefined) continue;
    const head = pattern.slice(0, open);
    const tails = expand_braces(pattern.slice(close.end + 1), limit);
    if (tails === undefined) return undefined;
    const out: string[] = [];
    for (const term of terms) {
      const expanded = close.comma ? expand_braces(term, limit) : [term];
      if (expanded === undefined) return undefined;
      for (const middle of expanded) for (const tail of tails) out.push(head + middle + tail);
      if (out.length > limit) return undefined;
    }
    return out;
  }
  return [pattern];
}

import { type MarkdownBlock, parse_markdown, type Span } from "./markdown.js";

/**
 * The Markdown of `Markdown` (markdown.ts) as a string of terminal text: the same lines, styles and word
 * wrapping, without a React render and ink's layout. A streaming reply's settled lines are written with it
 * above the live region several times a second, where rendering them through ink cost more than the rest
 * of the frame. Widths count UTF-16 units, as the live region's `tail_lines` does.
 */
type Run = { readonly text: string; readonly codes: readonly number[] };

const BOLD = 1;
const DIM = 2;
const ITALIC = 3;
const UNDERLINE = 4;
const BLUE = 34;
const MAGENTA = 35;
const CYAN = 36;
const YELLOW = 33;

const SPAN_CODES: Record<Span["style"], readonly number[]> = {
  plain: [],
  bold: [BOLD],
  italic: [ITALIC],
  code: [CYAN],
  link: [UNDERLINE, BLUE],
  url: [DIM],
};

function styled(text: string, codes: readonly number[], colors: boolean): string {
  return !colors || codes.length === 0 || text === "" ? text : `\u001b[${codes.join(";")}m${text}\u001b[0m`;
}

function spans_runs(prefix: string, spans: readonly Span[], codes: readonly number[]): Run[] {
  return [{ text: prefix, codes }, ...spans.map((span) => ({ text: span.text, codes: [...codes, ...SPAN_CODES[span.style]] }))];
}

/** The block's text as runs of one style each, and the columns it is indented by (code's padding). */
function block_runs(block: MarkdownBlock): { runs: Run[]; padding: number }[] {
  switch (block.kind) {
    case "heading":
      return [{ runs: spans_runs("", block.spans, block.level === 1 ? [BOLD, MAGENTA, UNDERLINE] : [BOLD, MAGENTA]), padding: 0 }];
    case "paragraph":
      return [{ runs: spans_runs("", block.spans, []), padding: 0 }];
    case "item":
      return [{ runs: spans_runs(`${"  ".repeat(block.indent + 1)}${block.bullet} `, block.spans, []), padding: 0 }];
    case "quote":
      return [{ runs: spans_runs("│ ", block.spans, [DIM]), padding: 0 }];
    case "code":
      return [
        ...(block.language === "" ? [] : [{ runs: [{ text: block.language, codes: [DIM] }], padding: 2 }]),
        ...block.lines.map((line) => ({ runs: [{ text: line, codes: [YELLOW] }], padding: 2 })),
      ];
    case "rule":
      return [{ runs: [{ text: "─".repeat(40), codes: [DIM] }], padding: 0 }];
    case "blank":
      return [{ runs: [], padding: 0 }];
  }
}

type Row = { start: number; end: number };

/** A long word cut into rows of `width`, the first filling what is left of the current row. */
function cut_word(rows: Row[], from: number, length: number, width: number): void {
  // biome-ignore lint/style/noNonNullAssertion: rows is never empty
  let visible = rows.at(-1)!.end - rows.at(-1)!.start;
  for (let index = 0; index < length; index++) {
    // biome-ignore lint/style/noNonNullAssertion: rows is never empty
    if (visible + 1 <= width) rows.at(-1)!.end += 1;
    else {
      rows.push({ start: from + index, end: from + index + 1 });
      visible = 0;
    }
    visible += 1;
    if (visible === width && index < length - 1) {
      rows.push({ start: from + index + 1, end: from + index + 1 });
      visible = 0;
    }
  }
}

/**
 * The rows of one line wrapped at `width` as ink wraps a `Text` (wrap-ansi, hard, spaces kept): words move
 * to the next row whole, a word wider than a row is cut, and a row that is full takes the next space along.
 */
function wrap_rows(text: string, width: number): Row[] {
  const rows: Row[] = [{ start: 0, end: 0 }];
  let position = 0;
  for (const [index, word] of text.split(" ").entries()) {
    // biome-ignore lint/style/noNonNullAssertion: rows is never empty
    let row = rows.at(-1)!;
    if (index !== 0) {
      if (row.end - row.start >= width) {
        row = { start: position - 1, end: position - 1 };
        rows.push(row);
      }
      row.end = position;
    }
    const used = row.end - row.start;
    if (word.length > width) {
      const breaks_here = 1 + Math.floor((word.length - (width - used) - 1) / width);
      const breaks_next = Math.floor((word.length - 1) / width);
      if (breaks_next < breaks_here) rows.push({ start: position, end: position });
      cut_word(rows, position, word.length, width);
    } else {
      if (used + word.length > width && used > 0 && word.length > 0) rows.push({ start: position, end: position });
      // biome-ignore lint/style/noNonNullAssertion: rows is never empty
      rows.at(-1)!.end = position + word.length;
    }
    position += word.length + 1;
  }
  return rows;
}

/** The rows of one line of runs wrapped at `width`, each styled, without trailing spaces (as ink prints them). */
function wrap_runs(runs: readonly Run[], width: number, colors: boolean): string[] {
  const text = runs.map((run) => run.text).join("");
  return wrap_rows(text, Math.max(1, width)).map(({ start, end }) => {
    const row_end = start + text.slice(start, end).trimEnd().length;
    let out = "";
    let offset = 0;
    for (const run of runs) {
      const from = Math.max(start, offset);
      const to = Math.min(row_end, offset + run.text.length);
      if (from < to) out += styled(run.text.slice(from - offset, to - offset), run.codes, colors);
      offset += run.text.length;
    }
    return out;
  });
}

/**
 * `source` rendered as `Markdown` renders it in a box `columns` wide, one string of lines; styled only for
 * a terminal that `colors` (as ink styles only then).
 */
export function markdown_text(source: string, columns: number, colors: boolean): string {
  if (source === "") return "";
  const rows: string[] = [];
  for (const block of parse_markdown(source)) {
    for (const { runs, padding } of block_runs(block)) {
      rows.push(...wrap_runs(runs, columns - padding, colors).map((row) => (row === "" ? "" : " ".repeat(padding) + row)));
    }
  }
  return rows.join("\n");
}

/** Whether ink's text on `terminal` is styled: its chalk styles only a terminal that shows colours. */
export function has_colors(terminal: NodeJS.WriteStream): boolean {
  return typeof terminal.hasColors === "function" && terminal.hasColors();
}

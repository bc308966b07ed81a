/**
 * A terminal screen as an SVG picture: the text of `tmux capture-pane -e -p` (SGR colour and style escapes,
 * one line per row) drawn cell by cell in a window frame, so the README shows the TUI as a terminal does.
 * Every run of text is placed at its own column and stretched to its cells, so box drawing lines up in any
 * monospace font.
 */

type Style = {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
};
type Run = { readonly column: number; readonly text: string; readonly style: Style };

/** The 16 colours of the palette (a dark theme close to the usual terminal defaults). */
const PALETTE = [
  "#1e1e1e",
  "#f14c4c",
  "#23d18b",
  "#e5e510",
  "#3b8eea",
  "#d670d6",
  "#29b8db",
  "#cccccc",
  "#666666",
  "#f14c4c",
  "#23d18b",
  "#f5f543",
  "#3b8eea",
  "#d670d6",
  "#29b8db",
  "#ffffff",
];
const FOREGROUND = "#d4d4d4";
const BACKGROUND = "#1e1e1e";

const CELL_WIDTH = 8.4;
/** Close to the font's own line height, so box drawing joins from row to row. */
const LINE_HEIGHT = 17;
const FONT_SIZE = 14;
const PADDING = 16;
const TITLE_BAR = 28;

/** Colour `n` of the 256-colour table: the palette, the 6×6×6 cube, then the grey ramp. */
function colour_256(n: number): string {
  if (n < 16) return PALETTE[n] ?? FOREGROUND;
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return rgb(level, level, level);
  }
  const index = n - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  return rgb(steps[Math.floor(index / 36)] ?? 0, steps[Math.floor(index / 6) % 6] ?? 0, steps[index % 6] ?? 0);
}

function rgb(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((value) => value.toString(16).padStart(2, "0")).join("")}`;
}

/** `38;5;n` / `38;2;r;g;b` (or 48): the colour and how many parameters it took after the 38/48. */
function extended_colour(params: readonly number[], at: number): { colour?: string; used: number } {
  if (params[at + 1] === 5) return { colour: colour_256(params[at + 2] ?? 0), used: 2 };
  if (params[at + 1] === 2) return { colour: rgb(params[at + 2] ?? 0, params[at + 3] ?? 0, params[at + 4] ?? 0), used: 4 };
  return { used: 0 };
}

type Flag = "bold" | "dim" | "italic" | "underline" | "inverse";
const ATTRIBUTES: Readonly<Record<number, Partial<Record<Flag, true | undefined>>>> = {
  1: { bold: true },
  2: { dim: true },
  3: { italic: true },
  4: { underline: true },
  7: { inverse: true },
  22: { bold: undefined, dim: undefined },
  23: { italic: undefined },
  24: { underline: undefined },
  27: { inverse: undefined },
};

/** The style after one SGR sequence's parameters (`ESC [ … m`). */
function apply_sgr(style: Style, params: readonly number[]): Style {
  let next: Style = { ...style };
  for (let at = 0; at < params.length; at += 1) {
    const code = params[at] ?? 0;
    if (code === 0) next = {};
    else if (ATTRIBUTES[code] !== undefined) next = { ...next, ...ATTRIBUTES[code] };
    else if (code >= 30 && code <= 37) next.fg = PALETTE[code - 30];
    else if (code >= 90 && code <= 97) next.fg = PALETTE[code - 90 + 8];
    else if (code >= 40 && code <= 47) next.bg = PALETTE[code - 40];
    else if (code >= 100 && code <= 107) next.bg = PALETTE[code - 100 + 8];
    else if (code === 39) next.fg = undefined;
    else if (code === 49) next.bg = undefined;
    else if (code === 38 || code === 48) {
      const { colour, used } = extended_colour(params, at);
      if (code === 38) next.fg = colour;
      else next.bg = colour;
      at += used;
    }
  }
  return next;
}

/** One row of the capture as runs of equally styled text, each at its column; other escapes are dropped. */
export function parse_line(line: string): Run[] {
  const runs: Run[] = [];
  let style: Style = {};
  let column = 0;
  let text = "";
  const flush = () => {
    if (text !== "") runs.push({ column: column - [...text].length, text, style });
    text = "";
  };
  for (const part of line.split(/(\u001b\[[0-9;:?]*[A-Za-z])/)) {
    const sgr = /^\u001b\[([0-9;:]*)m$/.exec(part);
    if (sgr !== null) {
      flush();
      style = apply_sgr(
        style,
        (sgr[1] ?? "").split(/[;:]/).map((value) => (value === "" ? 0 : Number(value))),
      );
    } else if (!part.startsWith("\u001b[")) {
      text += part;
      column += [...part].length;
    }
  }
  flush();
  return runs;
}

function escape_xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function colours_of(style: Style): { fg: string; bg: string | undefined } {
  const fg = style.fg ?? FOREGROUND;
  if (style.inverse) return { fg: style.bg ?? BACKGROUND, bg: fg };
  return { fg, bg: style.bg };
}

function run_svg(run: Run, row: number): string {
  const x = PADDING + run.column * CELL_WIDTH;
  const top = TITLE_BAR + PADDING + row * LINE_HEIGHT;
  const cells = [...run.text].length;
  const { fg, bg } = colours_of(run.style);
  const parts: string[] = [];
  if (bg !== undefined) parts.push(`<rect x="${x}" y="${top}" width="${(cells * CELL_WIDTH).toFixed(1)}" height="${LINE_HEIGHT}" fill="${bg}"/>`);
  if (run.text.trim() === "") return parts.join("");
  const attributes = [
    `x="${x.toFixed(1)}"`,
    `y="${top + LINE_HEIGHT - 4}"`,
    `fill="${fg}"`,
    `textLength="${(cells * CELL_WIDTH).toFixed(1)}"`,
    `lengthAdjust="spacingAndGlyphs"`,
    ...(run.style.bold ? [`font-weight="bold"`] : []),
    ...(run.style.dim ? [`opacity="0.6"`] : []),
    ...(run.style.italic ? [`font-style="italic"`] : []),
    ...(run.style.underline ? [`text-decoration="underline"`] : []),
  ];
  parts.push(`<text ${attributes.join(" ")}>${escape_xml(run.text)}</text>`);
  return parts.join("");
}

const blank = (line: string | undefined) => line !== undefined && line.replace(/\u001b\[[0-9;:?]*[A-Za-z]/g, "").trim() === "";

/** The capture (`columns` wide) as a standalone SVG document; empty rows above and below the text are left out. */
export function ansi_to_svg(capture: string, columns: number, title: string): string {
  const lines = capture.replace(/\n$/, "").split("\n");
  while (blank(lines.at(-1))) lines.pop();
  while (blank(lines[0])) lines.shift();
  const width = PADDING * 2 + columns * CELL_WIDTH;
  const height = TITLE_BAR + PADDING * 2 + lines.length * LINE_HEIGHT;
  const body = lines.flatMap((line, row) => parse_line(line).map((run) => run_svg(run, row)));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width.toFixed(0)}" height="${height}" viewBox="0 0 ${width.toFixed(0)} ${height}" role="img" aria-label="${escape_xml(title)}">`,
    `<rect width="100%" height="100%" rx="8" fill="${BACKGROUND}"/>`,
    `<circle cx="20" cy="14" r="6" fill="#ff5f57"/><circle cx="40" cy="14" r="6" fill="#febc2e"/><circle cx="60" cy="14" r="6" fill="#28c840"/>`,
    `<text x="${(width / 2).toFixed(0)}" y="19" fill="#999999" font-family="sans-serif" font-size="13" text-anchor="middle">${escape_xml(title)}</text>`,
    `<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${FONT_SIZE}" xml:space="preserve">`,
    ...body,
    "</g>",
    "</svg>",
    "",
  ].join("\n");
}

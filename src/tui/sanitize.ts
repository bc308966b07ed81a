/**
 * Text from a model, a command or a file reaches the terminal only through here: an escape sequence in it
 * could move the cursor, recolour or clear the screen, retitle the window, write the clipboard (OSC 52) or
 * forge a permission dialog. Whole sequences are dropped (so no `[31m` residue), then every other control
 * character; bidirectional overrides go too, so text cannot appear in a different order than it is.
 */
const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;
const OSC_DCS_PM_APC = /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)/g;
const C1_CSI = /\u009b[0-?]*[ -/]*[@-~]/g;
const SHORT_ESCAPE = /\u001b[ -~]?/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function clean_text(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(CSI, "")
    .replace(OSC_DCS_PM_APC, "")
    .replace(C1_CSI, "")
    .replace(SHORT_ESCAPE, "")
    .replace(/\t/g, "  ")
    .replace(CONTROL, "")
    .replace(BIDI, "");
}

/** Beyond this a line is cut: ink lays out one long line in time that grows faster than its length. */
const MAX_LINE_CHARS = 2000;

/** `text` with every line longer than `MAX_LINE_CHARS` cut, saying how much was left out. */
export function clip_lines(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… (${line.length - MAX_LINE_CHARS} more characters)`))
    .join("\n");
}

/** One line for a one-line slot (a title, a command): newlines shown as `⏎`. */
export function clean_line(text: string): string {
  return clip_lines(clean_text(text).replace(/\n/g, " ⏎ "));
}

/** The last `max_lines` screen lines of `text` when wrapped at `columns` (the live region stays short). */
export function tail_lines(text: string, max_lines: number, columns: number): { lines: string[]; hidden: number } {
  const width = Math.max(10, columns);
  const wrapped = text.split("\n").flatMap((line) => {
    if (line.length <= width) return [line];
    const parts: string[] = [];
    for (let start = 0; start < line.length; start += width) parts.push(line.slice(start, start + width));
    return parts;
  });
  const keep = Math.max(0, max_lines);
  return { lines: wrapped.slice(Math.max(0, wrapped.length - keep)), hidden: Math.max(0, wrapped.length - keep) };
}

/** The width help text keeps to: the narrowest terminal people still use, so no terminal wraps it. */
export const HELP_WIDTH = 80;

type HelpEntry = {
  /** What a person types, as `air session list`. */
  readonly name: string;
  readonly summary: string;
  /** The arguments and flags after the name, as `[--json] [--all-projects]`. */
  readonly args?: string;
};

/**
 * `air --help`: a column of names and, beside it, each entry's summary and then its arguments, both
 * wrapped within `width` so every line of the second column starts at the same offset.
 */
export function format_help(title: string, entries: readonly HelpEntry[], width: number = HELP_WIDTH): string {
  const column = Math.max(...entries.map((entry) => entry.name.length)) + 4;
  const lines = [title, "", "Usage: air <command> [arguments]", "", "Commands:"];
  for (const entry of entries) {
    const text = [...wrap(entry.summary, width - column), ...(entry.args === undefined ? [] : wrap_usage(entry.args, width - column))];
    for (const [index, line] of text.entries()) lines.push(`${index === 0 ? `  ${entry.name}`.padEnd(column) : " ".repeat(column)}${line}`);
  }
  lines.push("", "`air <command> --help` shows one command's usage.", "No API key yet? `air demo` shows the TUI at work with a scripted model.", "");
  return lines.join("\n");
}

/** `air <command> --help`: the usage wrapped with its continuation indented, then the summary. */
export function format_command_help(usage: string, summary: string, width: number = HELP_WIDTH): string {
  const usage_lines = wrap_usage(usage, width - 4).map((line, index) => (index === 0 ? line : `    ${line}`));
  const summary_lines = wrap(summary, width - 2).map((line) => `  ${line}`);
  return `${[...usage_lines, ...summary_lines].join("\n")}\n`;
}

/** Prose in lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  return fill(text.split(" "), width);
}

/**
 * A usage in lines of at most `width` characters, broken only at spaces outside brackets, parentheses and
 * quotes, so that `[--max-turns N]` stays whole; a group wider than the line is broken at its own spaces.
 */
function wrap_usage(usage: string, width: number): string[] {
  return fill(
    groups(usage).flatMap((group) => (group.length > width ? group.split(" ") : [group])),
    width,
  );
}

function fill(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (word === "") continue;
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

const CLOSER_OF: Readonly<Record<string, string>> = { "[": "]", "(": ")", "<": ">", '"': '"' };

/** `text` split at the spaces that are not inside a bracketed or quoted group. */
function groups(text: string): string[] {
  const found: string[] = [];
  const closers: string[] = [];
  let current = "";
  for (const char of text) {
    if (char === " " && closers.length === 0) {
      found.push(current);
      current = "";
      continue;
    }
    current += char;
    const closer = CLOSER_OF[char];
    if (char === closers.at(-1)) closers.pop();
    else if (closer !== undefined && closers.at(-1) !== '"') closers.push(closer);
  }
  found.push(current);
  return found;
}

import { change_size_text, command_part_text, path_text } from "../../contracts/prompt-text.js";
import type { PermissionPromptView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";

export type PromptAnswer = { readonly answer: "allow" | "deny"; readonly grant_scope: "once" | "session" | "project" };
export type Option = PromptAnswer & { readonly key: string; readonly label: string };

const ALLOW_OPTIONS: readonly Option[] = [
  { key: "y", label: "Allow once", answer: "allow", grant_scope: "once" },
  { key: "s", label: "Allow for this session", answer: "allow", grant_scope: "session" },
  { key: "p", label: "Allow for this project", answer: "allow", grant_scope: "project" },
];
const DENY: Option = { key: "n", label: "Deny", answer: "deny", grant_scope: "once" };

/** Paths listed before "… N more paths": a command over a glob can name hundreds. */
const SHOWN_PATHS = 4;
/** The border (2), the title, the question and the blank line above the answers. */
const FRAME_LINES = 5;

/** The answers a prompt offers: the allow scopes the engine offered, and deny always. */
function prompt_options(prompt: PermissionPromptView): readonly Option[] {
  return [...ALLOW_OPTIONS.filter((option) => prompt.offered_scopes.includes(option.grant_scope)), DENY];
}

/** A tool by name; an MCP server's (`mcp.<server>.<tool>`) with its server named, so the user knows who is asking. */
export function describe_tool(tool_name: string): string {
  const [prefix, server, ...rest] = tool_name.split(".");
  const clean = clean_line(tool_name);
  return prefix === "mcp" && server !== undefined && rest.length > 0
    ? `${clean}: tool ${clean_line(rest.join("."))} of the MCP server ${clean_line(server)}`
    : clean;
}

function subject_line(subject: PermissionPromptView["subjects"][number]): string {
  switch (subject.kind) {
    case "command":
    case "command_line":
      return `$ ${clean_line(subject.command)}`;
    case "path":
      return `${subject.op} ${clean_line(subject.path)}`;
    case "capability_tool":
      return `first use of ${clean_line(subject.tool_name)} (${clean_line(subject.capability_id)})`;
    case "mcp_server":
      return `start the MCP server ${clean_line(subject.server)} (from the project's .mcp.json)`;
    case "network":
      return `network (${describe_tool(subject.tool_name)})`;
  }
}

/**
 * What the dialog says about the call above its diff: the categories, every command (with what the analyzer
 * found in it) or else the subjects, and the paths with where they are. Every command is always shown.
 */
function detail_lines(prompt: PermissionPromptView): { readonly text: string; readonly dim: boolean }[] {
  const categories = prompt.categories.length > 0 ? [{ text: `categories: ${prompt.categories.map(clean_line).join(", ")}`, dim: true }] : [];
  const commands =
    prompt.command_parts.length > 0
      ? prompt.command_parts.map((part) => `$ ${clean_line(command_part_text(part))}`)
      : prompt.commands.length > 0
        ? prompt.commands.map((command) => `$ ${clean_line(command)}`)
        : prompt.subjects.filter((subject) => subject.kind !== "path" || prompt.paths.length === 0).map(subject_line);
  const paths = prompt.paths.slice(0, SHOWN_PATHS).map((path) => clean_line(path_text(path)));
  const more = prompt.paths.length - paths.length;
  return [
    ...categories,
    ...commands.map((text) => ({ text, dim: false })),
    ...paths.map((text) => ({ text, dim: true })),
    ...(more > 0 ? [{ text: `… ${more} more paths`, dim: true }] : []),
  ];
}

/** The diff's lines as the dialog scrolls them, with a last line saying what the prompt does not hold. */
function change_rows(prompt: PermissionPromptView): string[] {
  const { change } = prompt;
  if (change === null) return [];
  const rows = change.diff === "" ? [] : change.diff.split("\n").map(clean_line);
  return change.clipped ? [...rows, `… ${change.lines - rows.length} more lines (the whole diff is kept as an artifact once the call runs)`] : rows;
}

export type DialogLayout = {
  readonly details: ReturnType<typeof detail_lines>;
  readonly options: readonly Option[];
  readonly rows: readonly string[];
  /** How many diff rows fit; the dialog's height is `lines`. */
  readonly window: number;
  readonly lines: number;
  readonly size: string | null;
};

/**
 * The dialog's lines within `max_lines` (the rows the live region leaves it): everything but the diff is
 * always shown, the diff gets the rest, so the live region never outgrows the terminal (ink would clear it).
 */
export function dialog_layout(prompt: PermissionPromptView, max_lines: number): DialogLayout {
  const details = detail_lines(prompt);
  const options = prompt_options(prompt);
  const rows = change_rows(prompt);
  const size = prompt.change === null ? null : change_size_text(prompt.change);
  const fixed = FRAME_LINES + details.length + options.length + (size === null ? 0 : 1);
  const window = Math.max(0, Math.min(rows.length, max_lines - fixed));
  return { details, options, rows, window, lines: fixed + window, size };
}

/** How many lines the dialog takes within `max_lines`. */
export function dialog_lines(prompt: PermissionPromptView, max_lines: number): number {
  return dialog_layout(prompt, max_lines).lines;
}

import { Box, Text, useInput } from "ink";
import { createElement as h, useRef, useState, type ReactNode } from "react";
import type { PermissionPromptView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";

export type PromptAnswer = { readonly answer: "allow" | "deny"; readonly grant_scope: "once" | "session" | "project" };
type Option = PromptAnswer & { readonly key: string; readonly label: string };

const ALLOW_OPTIONS: readonly Option[] = [
  { key: "y", label: "Allow once", answer: "allow", grant_scope: "once" },
  { key: "s", label: "Allow for this session", answer: "allow", grant_scope: "session" },
  { key: "p", label: "Allow for this project", answer: "allow", grant_scope: "project" },
];
const DENY: Option = { key: "n", label: "Deny", answer: "deny", grant_scope: "once" };

/** The answers a prompt offers: the allow scopes the engine offered, and deny always. */
function prompt_options(prompt: PermissionPromptView): readonly Option[] {
  return [...ALLOW_OPTIONS.filter((option) => prompt.offered_scopes.includes(option.grant_scope)), DENY];
}

const RISK_COLOR: Record<string, string> = { none: "gray", low: "green", medium: "yellow", high: "red", critical: "redBright" };

/** A tool by name; an MCP server's (`mcp.<server>.<tool>`) with its server named, so the user knows who is asking. */
function describe_tool(tool_name: string): string {
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

/** How many lines the dialog takes: every command is always shown, however many. */
export function dialog_lines(prompt: PermissionPromptView): number {
  const commands = prompt.commands.length > 0 ? prompt.commands.length : prompt.subjects.length;
  return 5 + (prompt.categories.length > 0 ? 1 : 0) + commands + prompt_options(prompt).length;
}

/**
 * The permission dialog (seeds 000 §9): the tool, the risk, the categories and every command the analyzer
 * found, then the answers — by their key (y/s/p/n) or arrows and Enter. Everything shown comes from the
 * projection and is cleaned, so a command cannot draw a fake dialog of its own.
 */
export function PermissionDialog(props: { readonly prompt: PermissionPromptView; readonly on_answer: (answer: PromptAnswer) => void }): ReactNode {
  const { prompt } = props;
  const options = prompt_options(prompt);
  const [selected, set_selected] = useState(0);
  // The keys of one input burst all reach the handler before React renders again, so each must read the
  // selection the previous one left: the ref holds it, the state only redraws.
  const selection = useRef(0);
  const select = (index: number): void => {
    selection.current = index;
    set_selected(index);
  };
  useInput((input, key) => {
    if (key.upArrow) select((selection.current + options.length - 1) % options.length);
    else if (key.downArrow || key.tab) select((selection.current + 1) % options.length);
    // biome-ignore lint/style/noNonNullAssertion: the selection moves modulo options.length, and options always holds deny
    else if (key.return) props.on_answer(options[selection.current]!);
    else {
      const chosen = options.find((option) => option.key === input.toLowerCase());
      if (chosen !== undefined) props.on_answer(chosen);
    }
  });
  const commands = prompt.commands.length > 0 ? prompt.commands.map((command) => `$ ${clean_line(command)}`) : prompt.subjects.map(subject_line);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "double", borderColor: RISK_COLOR[prompt.risk_level] ?? "yellow", paddingX: 1 },
    h(
      Text,
      { bold: true },
      "Permission needed: ",
      h(Text, { color: "cyan" }, describe_tool(prompt.tool_name)),
      "  risk ",
      h(Text, { color: RISK_COLOR[prompt.risk_level] ?? "yellow", bold: true }, prompt.risk_level),
    ),
    h(Text, null, clean_line(prompt.question)),
    ...(prompt.categories.length > 0 ? [h(Text, { key: "categories", dimColor: true }, `categories: ${prompt.categories.map(clean_line).join(", ")}`)] : []),
    ...commands.map((line, index) => h(Text, { key: `c${index}`, color: "white" }, `  ${line}`)),
    h(Text, null, " "),
    ...options.map((option, index) =>
      h(
        Text,
        { key: option.key, ...(index === selected ? { color: "cyan", bold: true } : {}) },
        `${index === selected ? "›" : " "} [${option.key}] ${option.label}`,
      ),
    ),
  );
}

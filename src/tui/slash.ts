/** The slash commands of the prompt line (issue 6; `/direct` … `/done` is 003 §10.5's direct mode). */
const SLASH_COMMANDS = {
  help: "list these commands",
  compact: "compact the conversation's context now",
  direct: "work directly with the Main Agent (it uses the tools itself) until /done",
  done: "leave direct mode: evidence, summary, back to the Main Agent",
  approve: "run the plan that waits for your confirmation",
  reject: "drop the plan that waits (nothing is recorded), or /reject WHY",
  hud: "cycle the HUD preset (full → essential → minimal), or /hud full|essential|minimal",
  sessions: "list this project's sessions",
  exit: "leave; the session stays resumable (air resume)",
} as const;

export type SlashName = keyof typeof SLASH_COMMANDS;
export type ParsedInput =
  | { readonly kind: "empty" }
  | { readonly kind: "message"; readonly text: string }
  | { readonly kind: "command"; readonly name: SlashName; readonly args: string }
  | { readonly kind: "unknown_command"; readonly name: string };

/**
 * What a submitted line is. A line starting with `/` is a command; `//` escapes a message that starts with
 * a slash (a path, a regex). Surrounding whitespace of a command is ignored, a message is kept as typed.
 */
export function parse_input(line: string): ParsedInput {
  const trimmed = line.trim();
  if (trimmed === "") return { kind: "empty" };
  if (trimmed.startsWith("//")) return { kind: "message", text: trimmed.slice(1) };
  if (!trimmed.startsWith("/")) return { kind: "message", text: line };
  const [head = "", ...rest] = trimmed.slice(1).split(/\s+/);
  const name = head.toLowerCase();
  if (!Object.hasOwn(SLASH_COMMANDS, name)) return { kind: "unknown_command", name };
  return { kind: "command", name: name as SlashName, args: rest.join(" ") };
}

export function help_text(): string {
  const lines = Object.entries(SLASH_COMMANDS).map(([name, what]) => `  /${name.padEnd(9)} ${what}`);
  return [
    "Commands:",
    ...lines,
    "  Esc       interrupt the running turn",
    "  ↑         edit the newest message queued behind the turn",
    "  Ctrl+X    drop the newest queued message",
    "  Ctrl+C ×2 exit",
  ].join("\n");
}

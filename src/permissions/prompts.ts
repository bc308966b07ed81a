import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { PermissionGrantScope, PermissionPrompt } from "../contracts/events/permission.js";
import { change_size_text, command_part_text, path_text } from "../contracts/prompt-text.js";

export type { PermissionPrompt };

export type PromptAnswer = {
  readonly answer: "allow" | "deny";
  readonly grant_scope: PermissionGrantScope;
  readonly resolved_by: "user" | "policy";
  readonly note?: string;
};

/** Whoever answers permission prompts: the user at a terminal, a UI, or a headless policy. */
export type PromptAnswerer = {
  answer(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PromptAnswer>;
};

/** Headless runs: nobody to ask, so every prompt is denied at once — never left hanging. */
export const DENY_PROMPTS: PromptAnswerer = {
  answer: async () => ({
    answer: "deny",
    grant_scope: "once",
    resolved_by: "policy",
    note: "headless run: prompts are denied (choose another --permission-mode to allow more)",
  }),
};

const KEYS: Record<string, { answer: "allow" | "deny"; grant_scope: PermissionGrantScope }> = {
  y: { answer: "allow", grant_scope: "once" },
  s: { answer: "allow", grant_scope: "session" },
  p: { answer: "allow", grant_scope: "project" },
  g: { answer: "allow", grant_scope: "global" },
  n: { answer: "deny", grant_scope: "once" },
};
const SCOPE_KEY: Record<PermissionGrantScope, string> = { once: "[y] once", session: "[s] this session", project: "[p] this project", global: "[g] always" };

/** The diff a prompt holds, as plain text under its size. */
function change_text(prompt: PermissionPrompt): string[] {
  const { change } = prompt;
  if (change === undefined) return [];
  const more = change.clipped ? [`  … ${change.lines - change.diff.split("\n").length} more lines`] : [];
  return [`  change: ${change_size_text(change)}`, ...change.diff.split("\n").map((line) => `  ${line}`), ...more];
}

function render_prompt(prompt: PermissionPrompt): string {
  const lines = [`\nPermission needed (${prompt.risk_level} risk): ${prompt.tool_name}`];
  const parts = prompt.command_parts ?? [];
  if (parts.length > 0) for (const part of parts) lines.push(`  $ ${command_part_text(part)}`);
  else for (const command of prompt.commands) lines.push(`  $ ${command}`);
  const paths = prompt.paths ?? [];
  for (const path of paths) lines.push(`  ${path_text(path)}`);
  for (const subject of prompt.subjects) {
    if (subject.kind === "path" && paths.length === 0) lines.push(`  ${subject.op} ${subject.path}`);
    if (subject.kind === "capability_tool") lines.push(`  first use of ${subject.tool_name} (capability ${subject.capability_id})`);
    if (subject.kind === "mcp_server") lines.push(`  first start of the MCP server ${subject.server}`);
  }
  if (prompt.categories.length > 0) lines.push(`  categories: ${prompt.categories.join(", ")}`);
  lines.push(...change_text(prompt));
  lines.push(`  why: ${prompt.reason}`);
  lines.push(`Allow? ${prompt.offered_scopes.map((scope) => SCOPE_KEY[scope]).join("  ")}  [n] deny: `);
  return lines.join("\n");
}

/**
 * Asks on a line-oriented stream (a terminal, or a pipe with `--prompts stdin`): one prompt at a time, a
 * key per answer; an answer outside the offered scopes is asked again, and the end of input denies.
 */
export class LinePromptAnswerer implements PromptAnswerer {
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #closed = false;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #interface: readline.Interface;

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    this.#interface = readline.createInterface({ input, terminal: false });
    this.#interface.on("line", (line) => {
      const waiter = this.#waiting.shift();
      if (waiter !== undefined) waiter(line);
      else this.#lines.push(line);
    });
    this.#interface.on("close", () => {
      this.#closed = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
  }

  answer(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PromptAnswer> {
    const turn = this.#queue.then(() => this.#ask(prompt, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  close(): void {
    this.#interface.close();
  }

  async #ask(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PromptAnswer> {
    for (;;) {
      if (signal?.aborted === true) return { answer: "deny", grant_scope: "once", resolved_by: "policy", note: "the call was cancelled while waiting" };
      this.output.write(render_prompt(prompt));
      const line = await this.#next_line(signal);
      if (line === undefined) return { answer: "deny", grant_scope: "once", resolved_by: "policy", note: "no more input to answer prompts" };
      const choice = KEYS[line.trim().toLowerCase()];
      if (choice !== undefined && (choice.answer === "deny" || prompt.offered_scopes.includes(choice.grant_scope))) {
        return { ...choice, resolved_by: "user" };
      }
      this.output.write(`  (answer one of: ${prompt.offered_scopes.map((scope) => SCOPE_KEY[scope]).join(", ")}, [n] deny)\n`);
    }
  }

  #next_line(signal?: AbortSignal): Promise<string | undefined> {
    const buffered = this.#lines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (line: string | undefined) => {
        signal?.removeEventListener("abort", on_abort);
        resolve(line);
      };
      const on_abort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener("abort", on_abort, { once: true });
      this.#waiting.push(waiter);
    });
  }
}

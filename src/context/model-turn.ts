import type { ContentBlock } from "../contracts/provider.js";
import type { ToolOutcome } from "../contracts/tool.js";
import { clip_tool_output } from "./assembler.js";

/**
 * Reading a model's reply and answering its tool calls, the same way for every model ↔ tools loop (a worker's
 * executor, the Main Agent's direct mode).
 */

export type ToolUse = { readonly id: string; readonly name: string; readonly input: unknown };

/** Tools whose success means the code changed (seeds 003 §10.9 rule 5 applies to them). */
export const CODE_CHANGING_TOOLS: ReadonlySet<string> = new Set(["fs.write", "fs.edit", "fs.patch"]);

export function is_object(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function tool_uses_of(content: readonly ContentBlock[]): ToolUse[] {
  return content
    .filter((block) => block.type === "tool_use")
    .map((block) => ({ id: String(block.id ?? ""), name: String(block.name ?? ""), input: block.input }));
}

export function text_of(content: readonly ContentBlock[]): string {
  return content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n")
    .trim();
}

/** A tool's outcome as the text of its tool_result: the error with what to do, or the output, clipped. */
export function render_outcome(outcome: ToolOutcome): string {
  if (!outcome.ok) {
    const { kind, message, user_action } = outcome.error;
    return `error (${kind}): ${message}${user_action === undefined ? "" : `\n${user_action}`}`;
  }
  const text = typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output ?? null, null, 1);
  return clip_tool_output(text);
}

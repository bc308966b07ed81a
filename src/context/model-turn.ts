import * as v from "valibot";
import type { ContentBlock } from "../contracts/provider.js";
import { ToolResultBlocks, type ToolCall, type ToolOutcome } from "../contracts/tool.js";
import { clip_tool_output } from "./assembler.js";

/**
 * Reading a model's reply and answering its tool calls, the same way for every model ↔ tools loop (a worker's
 * executor, the Main Agent's direct mode).
 */

export type ToolUse = { readonly id: string; readonly name: string; readonly input: unknown };

function is_object(value: unknown): value is Record<string, unknown> {
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

/**
 * A tool's outcome as the content of its tool_result: the error with what to do, the blocks of a tool that answers
 * in blocks (an MCP tool's text and images), or the output as text, clipped.
 */
function render_outcome(outcome: ToolOutcome): string | ContentBlock[] {
  if (outcome.ok && v.is(ToolResultBlocks, outcome.output)) {
    const blocks: ContentBlock[] = outcome.output.blocks.map((block) => (block.type === "text" ? { ...block, text: clip_tool_output(block.text) } : block));
    return blocks.length > 0 ? blocks : "(the tool returned no content)";
  }
  if (!outcome.ok) {
    const { kind, message, user_action } = outcome.error;
    return `error (${kind}): ${message}${user_action === undefined ? "" : `\n${user_action}`}`;
  }
  const text = typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output ?? null, null, 1);
  return clip_tool_output(text);
}

/** The tool_result block that answers a tool use; `is_error` only on an error, as the APIs expect. */
function tool_result(use: ToolUse, content: string | ContentBlock[], is_error: boolean): ContentBlock {
  return is_error ? { type: "tool_result", tool_use_id: use.id, content, is_error: true } : { type: "tool_result", tool_use_id: use.id, content };
}

/** A tool use answered: the tool_result for the model, and the outcome when the tool was called. */
type ToolUseAnswer = { readonly result: ContentBlock; readonly outcome?: ToolOutcome };

/**
 * Answers one tool use of the model: an error result, without calling anything, when its tool is not offered or
 * its input is not an object; otherwise the outcome of `call`, rendered.
 */
export async function answer_tool_use(
  use: ToolUse,
  offered: (tool_name: string) => boolean,
  call: (call: ToolCall) => Promise<ToolOutcome>,
): Promise<ToolUseAnswer> {
  if (!offered(use.name)) return { result: tool_result(use, `error: no tool named "${use.name}" is available`, true) };
  if (!is_object(use.input)) return { result: tool_result(use, `error: the input of ${use.name} must be a JSON object`, true) };
  const outcome = await call({ tool_name: use.name, input: use.input });
  return { result: tool_result(use, render_outcome(outcome), !outcome.ok), outcome };
}

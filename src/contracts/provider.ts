import * as v from "valibot";
import { TokenUsage } from "./events/message.js";
import { ToolSchema } from "./tool.js";

/**
 * Anthropic canonical messages (seeds 001 D-046): content is a string or content blocks. Blocks are kept
 * loose here — adapters own the exact provider shapes — but every block names its type.
 */
export const ContentBlock = v.looseObject({ type: v.pipe(v.string(), v.minLength(1)) });
export type ContentBlock = v.InferOutput<typeof ContentBlock>;

export const CanonicalMessage = v.strictObject({
  role: v.picklist(["user", "assistant"]),
  content: v.union([v.string(), v.array(ContentBlock)]),
});
export type CanonicalMessage = v.InferOutput<typeof CanonicalMessage>;

/** Input of the internal `model.complete` tool: everything but the model, which is fixed per session. */
export const ModelRequest = v.strictObject({
  purpose: v.picklist(["classification", "answer", "task_execution", "summary"]),
  system: v.optional(v.string()),
  messages: v.pipe(v.array(CanonicalMessage), v.minLength(1)),
  tools: v.optional(v.array(ToolSchema)),
  max_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type ModelRequest = v.InferOutput<typeof ModelRequest>;

export const StopReason = v.picklist(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]);
export type StopReason = v.InferOutput<typeof StopReason>;

/** Output of `model.complete`: one assistant message with its stop reason and token usage. */
export const ModelResponse = v.strictObject({
  model_id: v.string(),
  content: v.array(ContentBlock),
  stop_reason: StopReason,
  usage: TokenUsage,
});
export type ModelResponse = v.InferOutput<typeof ModelResponse>;

/** A streamed piece of a response (`tool.stream` of `model.complete`). */
export const ModelDelta = v.variant("kind", [
  v.strictObject({ kind: v.literal("text"), index: v.number(), text: v.string() }),
  v.strictObject({ kind: v.literal("tool_input"), index: v.number(), partial_json: v.string() }),
]);
export type ModelDelta = v.InferOutput<typeof ModelDelta>;

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

/**
 * A system prompt block, Anthropic canonical. `cache_control` marks a prompt-cache breakpoint: everything up
 * to and including this block is the stable prefix a provider may cache (Anthropic honours it; an adapter that
 * cannot carry it says so in its conversion report).
 */
export const SystemBlock = v.strictObject({
  type: v.literal("text"),
  text: v.string(),
  cache_control: v.optional(v.strictObject({ type: v.literal("ephemeral") })),
});
export type SystemBlock = v.InferOutput<typeof SystemBlock>;

/** Input of the internal `model.complete` tool: everything but the model, which is fixed per session. */
export const ModelRequest = v.strictObject({
  purpose: v.picklist(["classification", "answer", "task_execution", "summary"]),
  system: v.optional(v.union([v.string(), v.array(SystemBlock)])),
  messages: v.pipe(v.array(CanonicalMessage), v.minLength(1)),
  tools: v.optional(v.array(ToolSchema)),
  max_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type ModelRequest = v.InferOutput<typeof ModelRequest>;

export const StopReason = v.picklist(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]);
export type StopReason = v.InferOutput<typeof StopReason>;

/**
 * What an adapter could not carry between Anthropic canonical and its provider's format (DESIGN §7: nothing
 * is dropped silently): one entry per feature and direction, with how many times it happened.
 */
export const ConversionLoss = v.strictObject({
  /** e.g. `thinking`, `cache_control`, `citations`, `document`, `image`, `stop_sequence`. */
  feature: v.pipe(v.string(), v.minLength(1)),
  direction: v.picklist(["request", "response"]),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
  detail: v.string(),
});
export type ConversionLoss = v.InferOutput<typeof ConversionLoss>;

export const ConversionReport = v.strictObject({
  /** The provider format converted to and from (`openai_chat`). */
  format: v.pipe(v.string(), v.minLength(1)),
  losses: v.array(ConversionLoss),
});
export type ConversionReport = v.InferOutput<typeof ConversionReport>;

/** Output of `model.complete`: one assistant message with its stop reason and token usage. */
export const ModelResponse = v.strictObject({
  model_id: v.string(),
  content: v.array(ContentBlock),
  stop_reason: StopReason,
  usage: TokenUsage,
  /** Present when the provider is not Anthropic: what the conversion both ways could not carry. */
  conversion: v.optional(ConversionReport),
});
export type ModelResponse = v.InferOutput<typeof ModelResponse>;

/** A streamed piece of a response (`tool.stream` of `model.complete`). */
export const ModelDelta = v.variant("kind", [
  v.strictObject({ kind: v.literal("text"), index: v.number(), text: v.string() }),
  v.strictObject({ kind: v.literal("tool_input"), index: v.number(), partial_json: v.string() }),
]);
export type ModelDelta = v.InferOutput<typeof ModelDelta>;

/** Quality and cost tiers of seeds 003 §14's capability matrix. */
export const QualityTier = v.picklist(["basic", "standard", "strong", "frontier"]);
export const CostTier = v.picklist(["free", "low", "medium", "high"]);

/**
 * What a model can do (seeds 003 §14): requests needing more are refused before any network call with a
 * `model_capability_error`.
 */
export const ModelCapabilities = v.strictObject({
  quality_tier: QualityTier,
  cost_tier: CostTier,
  context_window: v.pipe(v.number(), v.integer(), v.minValue(1)),
  max_output_tokens: v.pipe(v.number(), v.integer(), v.minValue(1)),
  supports: v.strictObject({
    tools: v.boolean(),
    vision: v.boolean(),
    thinking: v.boolean(),
    prompt_caching: v.boolean(),
    streaming: v.boolean(),
    count_tokens: v.boolean(),
  }),
});
export type ModelCapabilities = v.InferOutput<typeof ModelCapabilities>;

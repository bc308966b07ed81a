import * as v from "valibot";
import { Count, NonEmpty } from "./events/common.js";
import { ArtifactId } from "./ids.js";
import { ModelRequest } from "./provider.js";
import { PromptLayerLevel } from "./prompt-layer.js";

/** A layer as an assembled context reports it: what was included, without its text. */
export const LayerSummary = v.strictObject({ level: PromptLayerLevel, id: NonEmpty, token_estimate: Count });
export type LayerSummary = v.InferOutput<typeof LayerSummary>;

/** What budget fitting left out (seeds 001 D-046: agents are told what they do not see). */
export const ContextOmission = v.strictObject({
  level: PromptLayerLevel,
  id: NonEmpty,
  reason: NonEmpty,
  token_estimate: Count,
});
export type ContextOmission = v.InferOutput<typeof ContextOmission>;

export const AssembledContext = v.strictObject({
  /** Anthropic canonical (D-046): provider conversion happens only in the adapters. */
  request: ModelRequest,
  layers: v.array(LayerSummary),
  omissions: v.array(ContextOmission),
  token_estimate: Count,
  token_budget: Count,
  /** The layers that may not be dropped (L0–L3, L5, the newest turn) do not fit the budget. */
  compaction_requested: v.boolean(),
  /** The whole request, written as a `messages` artifact because it is large. */
  messages_artifact_id: v.optional(ArtifactId),
});
export type AssembledContext = v.InferOutput<typeof AssembledContext>;

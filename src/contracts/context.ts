import * as v from "valibot";
import { ArtifactId } from "./ids.js";
import { ModelRequest } from "./provider.js";

/**
 * The prompt layers of seeds 000 §10.2, in L0–L9 order. The order is also the order of assembly: the
 * stable layers come first so that every request of a session starts with the previous request's bytes.
 */
export const PromptLayerLevel = v.picklist([
  "runtime_invariant",
  "role",
  "safety",
  "project_rules",
  "architecture",
  "task_spec",
  "evidence",
  "conversation",
  "tool_output",
  "user_override",
]);
export type PromptLayerLevel = v.InferOutput<typeof PromptLayerLevel>;

/** L0–L2: never dropped to fit a budget (prompt-layering `Mutable: no`). */
export const IMMUTABLE_LEVELS: ReadonlySet<PromptLayerLevel> = new Set(["runtime_invariant", "role", "safety"]);

/** L0–L6: fixed for the life of an agent, so they form the cached prefix of every request. */
export const STABLE_LEVELS: ReadonlySet<PromptLayerLevel> = new Set([
  "runtime_invariant",
  "role",
  "safety",
  "project_rules",
  "architecture",
  "task_spec",
  "evidence",
]);

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const NonEmpty = v.pipe(v.string(), v.minLength(1));

export const PromptLayer = v.strictObject({
  level: PromptLayerLevel,
  /** Names the layer among those of its level, e.g. `rules/style.md`, `AGENTS.md`, `role/executor`. */
  id: NonEmpty,
  text: v.string(),
  immutable: v.boolean(),
  /** Part of the cached prefix: unchanged between the requests of one agent. */
  stable: v.boolean(),
  token_estimate: Count,
  /** The file it was read from, when it came from one (project rules, plan documents). */
  source: v.optional(NonEmpty),
});
export type PromptLayer = v.InferOutput<typeof PromptLayer>;

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

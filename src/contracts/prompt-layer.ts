import * as v from "valibot";
import { Count, NonEmpty } from "./events/common.js";

/**
 * One prompt layer, in a module of its own because a worker is told its stable layers at start: the
 * `agent.start` schema needs this one, and none of the assembled request's.
 */

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
export const IMMUTABLE_LEVELS: ReadonlySet<PromptLayerLevel> = new Set(PromptLayerLevel.options.slice(0, 3));

/** L0–L6: fixed for the life of an agent, so they form the cached prefix of every request. */
export const STABLE_LEVELS: ReadonlySet<PromptLayerLevel> = new Set(PromptLayerLevel.options.slice(0, 7));

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

import * as v from "valibot";

/** Why a pending task does not start in this wave: the wave planner's answer, and what `wave.planned` shows. */
export const WaitReason = v.variant("kind", [
  /** Hard dependencies not completed yet (still pending, running or interrupted). */
  v.object({ kind: v.literal("dependency"), on: v.array(v.string()) }),
  /** Hard dependencies that ended without completing (or are unknown): the task cannot start from these rows. */
  v.object({ kind: v.literal("dependency_failed"), on: v.array(v.string()) }),
  /** `on` runs, or goes first, and writes `glob`, which the task's area overlaps. */
  v.object({ kind: v.literal("overlap"), on: v.string(), glob: v.string() }),
  /** A conflict or serialization row puts the task after `on`, though their areas are not seen to overlap. */
  v.object({ kind: v.literal("serialized"), on: v.string() }),
  /** Every slot of `max_parallel` is taken. */
  v.object({ kind: v.literal("capacity") }),
  /** The task runs alone (see `WaveTask.alone`) and other tasks still run or were just picked. */
  v.object({ kind: v.literal("runs_alone") }),
  /** `on` runs alone and comes first in the planner's order: nothing after it starts until it has. */
  v.object({ kind: v.literal("alone"), on: v.string() }),
]);
export type WaitReason = v.InferOutput<typeof WaitReason>;

import * as v from "valibot";
import { WaitReason } from "../wait-reason.js";
import { TaskId } from "../ids.js";
import { durable } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

const NamedTask = { task_id: TaskId, title: NonEmpty };

export const WavePlanned = v.strictObject({
  /** The tasks started together now, in the planner's order. */
  dispatched: v.array(v.strictObject(NamedTask)),
  /** Every other pending task, and why it does not start in this wave. */
  waiting: v.array(v.strictObject({ ...NamedTask, reason: WaitReason })),
  /** Set once per run when tasks cannot run side by side here, with why (a project that is not a git checkout). */
  one_at_a_time: v.optional(Reason),
});
export type WavePlanned = v.InferOutput<typeof WavePlanned>;

export const wave_events = {
  "wave.planned": durable(
    WavePlanned,
    "Not in the seeds' event list: what the Scheduler started together and why the rest waits, for the UIs; the rows stay the truth of the graph.",
  ),
} as const;

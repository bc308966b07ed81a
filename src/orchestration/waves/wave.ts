import * as v from "valibot";
import { TaskStatus } from "../../contracts/status.js";
import { DependencyKind } from "../../contracts/task.js";
import { WaitReason } from "../../contracts/wait-reason.js";
import { WriteArea } from "../../contracts/write-area.js";

/** What the wave planner needs of one task row. `area` absent: the task may write the whole project. */
export const WaveTask = v.object({
  id: v.string(),
  status: TaskStatus,
  priority: v.number(),
  area: v.optional(WriteArea),
  /** A read-only task (review, analysis) never conflicts with anyone. */
  writes_code: v.boolean(),
  /** Creation order, the last tie-break before the id. */
  created_seq: v.number(),
  /** A retry after its merge conflicted: it starts with nothing running, and nothing starts beside it. */
  alone: v.optional(v.boolean()),
});
export type WaveTask = v.InferOutput<typeof WaveTask>;

/** One `task_dependencies` row: `task_id` depends on (hard, soft) or goes after (conflict, serialization) `depends_on`. */
export const WaveEdge = v.object({ task_id: v.string(), depends_on: v.string(), kind: DependencyKind });
export type WaveEdge = v.InferOutput<typeof WaveEdge>;

/** Every task the edges name must be among `tasks`, finished ones included: they decide what is runnable. */
export type WaveInput = {
  readonly tasks: readonly WaveTask[];
  readonly edges: readonly WaveEdge[];
  readonly max_parallel: number;
};

/** A new `serialization` row to record: `task_id` goes after `depends_on`, the globs are where they meet. */
const SerializationEdge = v.object({ task_id: v.string(), depends_on: v.string(), task_glob: v.string(), other_glob: v.string() });

export const WavePlan = v.object({
  /** Tasks to start now, in order. */
  dispatch: v.array(v.string()),
  serialize: v.array(SerializationEdge),
  /** Every other pending task, with its reason, in the planner's order. */
  waiting: v.array(v.object({ task_id: v.string(), reason: WaitReason })),
});
export type WavePlan = v.InferOutput<typeof WavePlan>;

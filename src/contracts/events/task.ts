import * as v from "valibot";
import { AirError } from "../errors.js";
import { AgentId, AttemptId, TaskId, WorkspaceId } from "../ids.js";
import { RetryChange } from "../retry-change.js";
import { TaskSpec } from "../task.js";
import { WorkerResult } from "../worker-result.js";
import { durable, ephemeral } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

export const AttemptStatus = v.picklist(["running", "completed", "failed", "blocked", "cancelled", "interrupted"]);
export type AttemptStatus = v.InferOutput<typeof AttemptStatus>;

function result_of_task<T extends { task_id: string; worker_result?: { task_id: string } | undefined }>(payload: T) {
  return payload.worker_result === undefined || payload.worker_result.task_id === payload.task_id;
}

const WORKER_RESULT_MISMATCH = "worker_result.task_id must equal task_id";

export const TaskStarted = v.strictObject({
  task_id: TaskId,
  attempt_id: AttemptId,
  agent_id: v.optional(AgentId),
  workspace_id: v.optional(WorkspaceId),
});

export const task_events = {
  "task.created": durable(
    v.strictObject({ task: TaskSpec, priority: v.optional(v.pipe(v.number(), v.integer()), 0) }),
    "Inserts tasks (pending) and one task_dependencies row per dependency.",
  ),
  "task.dependency.added": durable(
    v.strictObject({
      task_id: TaskId,
      depends_on: TaskId,
      kind: v.picklist(["conflict", "serialization"]),
      reason: Reason,
    }),
    "Not in the seeds' event list: inserts the task_dependencies row the wave planner inferred, so a restart need not rediscover it (seeds 000 §7.3).",
  ),
  "task.started": durable(TaskStarted, "tasks.status = running; inserts the attempt."),
  "task.completed": durable(
    v.pipe(
      v.strictObject({ task_id: TaskId, worker_result: WorkerResult }),
      v.check((p) => p.worker_result.status === "completed", "a completed task needs a completed worker_result"),
      v.check(result_of_task, WORKER_RESULT_MISMATCH),
    ),
    "tasks.status = completed with its worker result; closes the attempt.",
  ),
  "task.failed": durable(
    v.pipe(v.strictObject({ task_id: TaskId, error: AirError, worker_result: v.optional(WorkerResult) }), v.check(result_of_task, WORKER_RESULT_MISMATCH)),
    "tasks.status = failed; records the failure on the attempt.",
  ),
  "task.blocked": durable(
    v.pipe(
      v.strictObject({
        task_id: TaskId,
        reason: Reason,
        error: v.optional(AirError),
        worker_result: v.optional(WorkerResult),
      }),
      v.check(result_of_task, WORKER_RESULT_MISMATCH),
    ),
    "tasks.status = blocked: a decision is needed before more attempts are useful.",
  ),
  "task.cancelled": durable(v.strictObject({ task_id: TaskId, reason: Reason }), "tasks.status = cancelled."),
  "task.interrupted": durable(v.strictObject({ task_id: TaskId, reason: Reason }), "tasks.status = interrupted (runtime stopped, requirement changed)."),
  "task.revised": durable(
    v.strictObject({ task_id: TaskId, task: TaskSpec, reason: Reason }),
    "Not in the seeds' event list: a requirement change gave a pending or interrupted task a new spec (seeds 000 §20.1 INTERRUPTING); its id, type and dependencies stay.",
  ),
  "task.retried": durable(
    // `change` is absent in sessions recorded before retries named it; such a retry changed nothing.
    v.strictObject({ task_id: TaskId, reason: Reason, change: v.optional(RetryChange) }),
    "Not in the seeds' event list: puts a failed task back to pending for a new attempt (seeds 000 §20.3 'retry'), naming what the attempt changes.",
  ),
  "task.resumed": durable(
    v.strictObject({ task_id: TaskId, reason: v.optional(Reason) }),
    "Not in the seeds' event list: puts an interrupted task back to pending (seeds 000 §20.3 'resume').",
  ),
  "task.unblocked": durable(
    v.strictObject({ task_id: TaskId, decision: Reason }),
    "Not in the seeds' event list: a blocked task got its decision and is pending again (seeds 000 §20.3).",
  ),
  "task.progress": ephemeral(
    v.strictObject({
      task_id: TaskId,
      message: NonEmpty,
      percent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
    }),
    "Live progress line for the UI.",
    { mode: "latest", key: "task_id" },
  ),
} as const;

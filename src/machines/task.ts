import { setup } from "xstate";

/**
 * Task lifecycle (seeds 000 §20.3). Compaction tasks reuse the same status column, so their
 * `context.compaction.*` events drive the same moves as the generic `task.*` ones.
 */
export type TaskLifecycleEvent =
  | { type: "task.started" }
  | { type: "task.completed" }
  | { type: "task.failed" }
  | { type: "task.blocked" }
  | { type: "task.cancelled" }
  | { type: "task.interrupted" }
  | { type: "task.retried" }
  | { type: "task.resumed" }
  | { type: "task.unblocked" }
  | { type: "context.compaction.started" }
  | { type: "context.compaction.completed" }
  | { type: "context.compaction.failed" };

export const task_machine = setup({
  types: { events: {} as TaskLifecycleEvent },
}).createMachine({
  id: "task",
  initial: "pending",
  states: {
    pending: {
      on: {
        "task.started": { target: "running" },
        "context.compaction.started": { target: "running" },
        // Work that never started can still be called off, or held for a replan of the plan it was part of.
        "task.cancelled": { target: "cancelled" },
        "task.interrupted": { target: "interrupted" },
      },
    },
    running: {
      on: {
        "task.completed": { target: "completed" },
        "context.compaction.completed": { target: "completed" },
        "task.failed": { target: "failed" },
        "context.compaction.failed": { target: "failed" },
        "task.blocked": { target: "blocked" },
        "task.cancelled": { target: "cancelled" },
        "task.interrupted": { target: "interrupted" },
      },
    },
    // failed, interrupted and blocked are pauses, not ends: each one either goes back to
    // pending (a fresh attempt goes through the scheduler again) or is cancelled for good.
    failed: {
      on: {
        "task.retried": { target: "pending" },
        "task.cancelled": { target: "cancelled" },
      },
    },
    interrupted: {
      on: {
        "task.resumed": { target: "pending" },
        "task.cancelled": { target: "cancelled" },
      },
    },
    blocked: {
      on: {
        // The decision the task was waiting for has arrived.
        "task.unblocked": { target: "pending" },
        "task.cancelled": { target: "cancelled" },
      },
    },
    completed: { type: "final" },
    cancelled: { type: "final" },
  },
});

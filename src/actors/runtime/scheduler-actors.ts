import { fromPromise } from "xstate";
import { make_air_error } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import type { WorkerResult } from "../../contracts/worker-result.js";
import { scheduler_machine, type RunWorkerLogic } from "../../machines/scheduler.js";
import type { WorkerRunOutcome } from "../../machines/worker-run-settlement.js";
import type { Session } from "../../project/session-manager.js";
import { emitter } from "./emit.js";
import { read_task, read_task_graph } from "./task-graph.js";

const emit = emitter("scheduler");

/**
 * The durable verdict on a task from how its worker run ended (seeds 003 §10.10): the worker's result when it
 * completed, or when it was cancelled and still reported (the result keeps its evidence); else its error.
 */
function settle_task(session: Session, task_id: string, run: WorkerRunOutcome): void {
  if (run.status === "completed") return settle_result(session, task_id, run.result);
  if (run.status === "cancelled" && run.result !== undefined) return settle_result(session, task_id, run.result);
  // Killed on its hard timeout with work that survives it: resumable, so interrupted rather than failed.
  if (run.status === "failed" && run.resumable === true) return emit(session, "task.interrupted", { task_id, reason: run.error.message });
  emit(session, "task.failed", { task_id, error: run.error });
}

function settle_result(session: Session, task_id: string, result: WorkerResult): void {
  switch (result.status) {
    case "completed":
      emit(session, "task.completed", { task_id, worker_result: result });
      return;
    case "failed":
      emit(session, "task.failed", {
        task_id,
        worker_result: result,
        error: make_air_error({ kind: "agent_error", message: result.summary, retryability: "retryable_after_change" }),
      });
      return;
    case "blocked":
      emit(session, "task.blocked", { task_id, worker_result: result, reason: result.summary });
      return;
    case "cancelled":
      emit(session, "task.cancelled", { task_id, reason: result.summary });
  }
}

/**
 * The I/O of the Scheduler machine: reads rows, writes events, and runs one worker per task through the
 * given `run_worker` logic (the worker-run machine with its bridge).
 */
export function provide_scheduler(session: Session, run_worker: RunWorkerLogic) {
  return scheduler_machine.provide({
    actors: {
      load_graph: fromPromise(async () => read_task_graph(session.connection)),
      dispatch: fromPromise(async ({ input }) => {
        const agent_id = new_id("agent");
        emit(session, "task.started", { task_id: input.task_id, attempt_id: new_id("attempt"), agent_id });
        return { agent_id };
      }),
      run_worker,
      collect: fromPromise(async ({ input }) => settle_task(session, input.task_id, input.run)),
      repair: fromPromise(async ({ input }) => {
        const task = read_task(session.connection, input.task_id);
        // The budget counts retries: attempt 1 is the first try, so retry_budget = 2 allows 3 attempts.
        if (task.status === "failed" && task.attempt_count <= task.retry_budget) {
          emit(session, "task.retried", { task_id: task.id, reason: `attempt ${task.attempt_count} failed; retrying` });
        }
      }),
      cancel_task: fromPromise(async ({ input }) => {
        if (input.task_id === undefined) return;
        const { status } = read_task(session.connection, input.task_id);
        if (status === "pending" || status === "running" || status === "blocked" || status === "interrupted") {
          emit(session, "task.cancelled", { task_id: input.task_id, reason: input.reason });
        }
      }),
    },
  });
}

import { make_air_error, type AirError } from "../../contracts/errors.js";
import type { WorkerResult } from "../../contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../machines/worker-run-settlement.js";
import { budget_blocker } from "../../orchestration/budget/enforce.js";
import type { Session } from "../../project/session-manager.js";
import { emitter } from "./emit.js";

const emit = emitter("scheduler");

/**
 * The durable verdict on a task from how its worker run ended (seeds 003 §10.10): blocked, naming the limit,
 * when a budget refused one of its model calls and it did not complete; else the worker's result when it
 * completed, or when it was cancelled and still reported (the result keeps its evidence); else its error.
 */
export function settle_task(session: Session, task_id: string, run: WorkerRunOutcome): void {
  const blocker = run.result?.status === "completed" || run.status === "cancelled" ? undefined : budget_blocker(session, task_id);
  if (blocker !== undefined) {
    emit(session, "task.blocked", { task_id, reason: blocker, ...(run.result === undefined ? {} : { worker_result: run.result }) });
    return;
  }
  if (run.status === "completed") return settle_result(session, task_id, run.result);
  if (run.status === "cancelled" && run.result !== undefined) return settle_result(session, task_id, run.result);
  // Killed on its hard timeout with work that survives it: resumable, so interrupted rather than failed.
  if (run.status === "failed" && run.resumable === true) return emit(session, "task.interrupted", { task_id, reason: run.error.message });
  emit(session, "task.failed", { task_id, error: run.error });
}

/**
 * The error a failed result ends its task with: its first failing check's own (cpp.build's `build_error` with
 * its semantic signature), so two attempts failing on the same compile error share a signature; else the
 * worker's summary, when no check says more.
 */
function failure_of(result: WorkerResult): AirError {
  const failing = result.verification.find((check) => !check.passed && check.error !== undefined);
  if (failing?.error === undefined) return make_air_error({ kind: "agent_error", message: result.summary, retryability: "retryable_after_change" });
  return { ...failing.error, metadata: { ...failing.error.metadata, verification_command: failing.command } };
}

function settle_result(session: Session, task_id: string, result: WorkerResult): void {
  switch (result.status) {
    case "completed":
      emit(session, "task.completed", { task_id, worker_result: result });
      return;
    case "failed":
      emit(session, "task.failed", { task_id, worker_result: result, error: failure_of(result) });
      return;
    case "blocked":
      emit(session, "task.blocked", { task_id, worker_result: result, reason: result.summary });
      return;
    case "cancelled":
      emit(session, "task.cancelled", { task_id, reason: result.summary });
  }
}

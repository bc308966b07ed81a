import { decide_retry, type RetryDecision } from "../../orchestration/retry-planner.js";
import type { Session } from "../../project/session-manager.js";
import { attempt_history } from "./attempt-history.js";
import { emitter } from "./emit.js";
import { read_task, read_task_spec } from "./task-graph.js";

const emit = emitter("scheduler");

/**
 * After a failed attempt: the RetryPlanner's decision, carried out as events. `retry` and `retry_serial` put
 * the task back to pending, naming the one change the next attempt makes (the worker is given the failure,
 * the wave planner runs it alone, or its timeouts are longer); `debug` puts it back for the Debugger's attempt;
 * `skip` and `cancel` end it; `block` leaves it failed with its error (and so its signature), for the user.
 */
export function retry_step(session: Session, task_id: string): RetryDecision | undefined {
  const task = read_task(session.connection, task_id);
  if (task.status !== "failed") return undefined;
  const { attempts } = attempt_history(session, task_id);
  const latest = attempts.at(-1);
  if (latest?.error === undefined) return undefined;
  const spec = read_task_spec(session.connection, task_id);
  const decision = decide_retry({
    retry_budget: task.retry_budget,
    fallback_allowed: spec.verification.fallback_allowed,
    earlier: attempts.slice(0, -1),
    latest: { error: latest.error, ...(latest.change === undefined ? {} : { change: latest.change }) },
  });
  const reason = `attempt ${task.attempt_count}: ${decision.reason} (${decision.rule})`;
  if (decision.action === "retry" || decision.action === "retry_serial") emit(session, "task.retried", { task_id, reason, change: decision.change });
  else if (decision.action === "debug") emit(session, "task.retried", { task_id, reason, change: "debug" });
  else if (decision.action === "skip" || decision.action === "cancel") emit(session, "task.cancelled", { task_id, reason });
  return decision;
}

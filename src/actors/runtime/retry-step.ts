import { asc, eq } from "drizzle-orm";
import * as v from "valibot";
import { AirError } from "../../contracts/errors.js";
import { task_attempts } from "../../db/schema.js";
import { decide_retry, type AttemptRecord, type RetryDecision } from "../../orchestration/retry-planner.js";
import type { Session } from "../../project/session-manager.js";
import { emitter } from "./emit.js";
import { read_task, read_task_spec } from "./task-graph.js";

const emit = emitter("scheduler");

/** The ended attempts of a task, oldest first, as the RetryPlanner reads them. */
function attempts_of(session: Session, task_id: string): AttemptRecord[] {
  return session.connection.db
    .select({ error_json: task_attempts.error_json })
    .from(task_attempts)
    .where(eq(task_attempts.task_id, task_id))
    .orderBy(asc(task_attempts.attempt_index))
    .all()
    .map((row) => {
      const parsed = row.error_json === null ? undefined : v.safeParse(AirError, JSON.parse(row.error_json));
      return parsed?.success === true ? { error: parsed.output } : {};
    });
}

/**
 * After a failed attempt: the RetryPlanner's decision, carried out as events. `retry` and `retry_serial` put
 * the task back to pending (a fresh workspace on the merged checkout, the failure in its context); `skip` and
 * `cancel` end it; `block` and `debug` (not routed yet) leave it failed with its error, for the user.
 */
export function retry_step(session: Session, task_id: string): RetryDecision | undefined {
  const task = read_task(session.connection, task_id);
  if (task.status !== "failed") return undefined;
  const attempts = attempts_of(session, task_id);
  const latest = attempts.at(-1)?.error;
  if (latest === undefined) return undefined;
  const spec = read_task_spec(session.connection, task_id);
  const decision = decide_retry({
    retry_budget: task.retry_budget,
    fallback_allowed: spec.verification.fallback_allowed,
    earlier: attempts.slice(0, -1),
    latest: { error: latest },
  });
  const reason = `attempt ${task.attempt_count}: ${decision.reason} (${decision.rule})`;
  if (decision.action === "retry" || decision.action === "retry_serial") emit(session, "task.retried", { task_id, reason });
  else if (decision.action === "skip" || decision.action === "cancel") emit(session, "task.cancelled", { task_id, reason });
  return decision;
}

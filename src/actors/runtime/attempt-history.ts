import { asc, eq } from "drizzle-orm";
import * as v from "valibot";
import { AirError } from "../../contracts/errors.js";
import { TaskId } from "../../contracts/ids.js";
import type { RetryChange } from "../../contracts/retry-change.js";
import { task_attempts } from "../../db/schema.js";
import type { Session } from "../../project/session-manager.js";

/** One attempt of a task: the change its retry made (none for a first try or a resume) and how it failed. */
type Attempt = { readonly change?: RetryChange; readonly error?: AirError };

export type AttemptHistory = {
  /** Oldest first, one per `task.started` of the task. */
  readonly attempts: readonly Attempt[];
  /** The change a retry asked of the attempt that has not started yet (the task is pending again). */
  readonly next_change?: RetryChange;
};

/**
 * The change each attempt was started with, read from the task's events: a `task.retried` names the change
 * of the next `task.started`; a resume or an unblock puts the task back to pending with no change.
 */
function changes_of(session: Session, task_id: string): { per_attempt: (RetryChange | undefined)[]; next: RetryChange | undefined } {
  const per_attempt: (RetryChange | undefined)[] = [];
  let next: RetryChange | undefined;
  for (const { event } of session.store.query({
    task_id: v.parse(TaskId, task_id),
    types: ["task.started", "task.retried", "task.resumed", "task.unblocked"],
  })) {
    if (event.type === "task.started") {
      per_attempt.push(next);
      next = undefined;
    } else next = event.type === "task.retried" ? event.payload.change : undefined;
  }
  return { per_attempt, next };
}

function errors_of(session: Session, task_id: string): (AirError | undefined)[] {
  return session.connection.db
    .select({ error_json: task_attempts.error_json })
    .from(task_attempts)
    .where(eq(task_attempts.task_id, task_id))
    .orderBy(asc(task_attempts.attempt_index))
    .all()
    .map((row) => {
      const parsed = row.error_json === null ? undefined : v.safeParse(AirError, JSON.parse(row.error_json));
      return parsed?.success === true ? parsed.output : undefined;
    });
}

/** A task's attempts as the RetryPlanner and the next worker read them. */
export function attempt_history(session: Session, task_id: string): AttemptHistory {
  const { per_attempt, next } = changes_of(session, task_id);
  const attempts = errors_of(session, task_id).map((error, index): Attempt => {
    const change = per_attempt[index];
    return { ...(change === undefined ? {} : { change }), ...(error === undefined ? {} : { error }) };
  });
  return { attempts, ...(next === undefined ? {} : { next_change: next }) };
}

/** The attempt running now, started by a retry: the change it makes and the failure of the attempt before it. */
export type CurrentRetry = { readonly change: RetryChange; readonly failure: AirError | undefined };

export function current_retry(session: Session, task_id: string): CurrentRetry | undefined {
  const { attempts } = attempt_history(session, task_id);
  const change = attempts.at(-1)?.change;
  return change === undefined ? undefined : { change, failure: attempts.at(-2)?.error };
}

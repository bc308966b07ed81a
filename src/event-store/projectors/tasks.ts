import { sql } from "drizzle-orm";
import type { AirError } from "../../contracts/errors.js";
import type { AttemptStatus } from "../../contracts/events/task.js";
import type { TaskStatus } from "../../contracts/status.js";
import type { DependencyKind } from "../../contracts/task.js";
import type { Connection } from "../../db/connection.js";
import { summaries, task_attempts, task_dependencies, tasks } from "../../db/schema.js";
import { insert_row, json, read_column, update_rows } from "../rows.js";
import { expect_one, moved_status, type Projection, type ProjectionTarget } from "./projection.js";

const DEPENDENCY_KINDS: readonly DependencyKind[] = ["hard", "soft", "conflict", "serialization"];

export const task_created: Projection<"task.created"> = (event, { connection, move }) => {
  const { task, priority } = event.payload;
  insert_row(connection, tasks, {
    id: task.id,
    session_id: event.session_id,
    type: task.type,
    title: task.title,
    status: moved_status<TaskStatus>({ connection, move }),
    spec_json: JSON.stringify(task),
    priority,
    retry_budget: task.constraints.retry_budget,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  });
  for (const kind of DEPENDENCY_KINDS) {
    for (const depends_on of task.dependencies[kind]) {
      insert_row(connection, task_dependencies, {
        task_id: task.id,
        depends_on_task_id: depends_on,
        kind,
        created_at: event.timestamp,
      });
    }
  }
};

export const task_dependency_added: Projection<"task.dependency.added"> = (event, { connection }) => {
  const { task_id, depends_on, kind } = event.payload;
  insert_row(connection, task_dependencies, { task_id, depends_on_task_id: depends_on, kind, created_at: event.timestamp });
};

export const compaction_requested: Projection<"context.compaction.requested"> = (event, target) => {
  const payload = event.payload;
  if (!payload.accepted) return;
  insert_row(target.connection, tasks, {
    id: payload.task_id,
    session_id: event.session_id,
    type: "compact",
    title: "Compact the conversation",
    status: moved_status<TaskStatus>(target),
    status_reason: payload.reason,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  });
};

export const task_started: Projection<"task.started" | "context.compaction.started"> = (event, target) => {
  const { connection } = target;
  const { task_id, attempt_id, agent_id, workspace_id } = event.payload;
  const attempt_index = (read_column(connection, tasks, task_id, "attempt_count") ?? 0) + 1;
  update_rows(
    connection,
    tasks,
    { id: task_id },
    {
      status: moved_status<TaskStatus>(target),
      attempt_count: attempt_index,
      agent_id: agent_id ?? null,
      workspace_id: workspace_id ?? null,
      started_at: event.timestamp,
      updated_at: event.timestamp,
      completed_at: null,
      status_reason: null,
    },
  );
  insert_row(connection, task_attempts, {
    id: attempt_id,
    task_id,
    attempt_index,
    status: "running",
    agent_id,
    workspace_id,
    started_at: event.timestamp,
  });
};

/** Closes the task's running attempt, if it has one (a pending task can be cancelled without any). */
function close_attempt(connection: Connection, task_id: string, status: AttemptStatus, at: string, error?: AirError) {
  const running = connection.statement("running_attempt", (db) =>
    db
      .select({ id: task_attempts.id })
      .from(task_attempts)
      .where(sql`${task_attempts.task_id} = ${sql.placeholder("task_id")} and ${task_attempts.status} = 'running'`)
      .prepare(),
  );
  const attempt = running.get({ task_id });
  if (attempt === undefined) return;
  update_rows(
    connection,
    task_attempts,
    { id: attempt.id },
    {
      status,
      ended_at: at,
      failure_kind: error?.kind,
      failure_signature: error?.semantic_signature,
      failure_message: error?.message,
      error_json: json(error),
    },
  );
}

type TaskOutcome = {
  task_id: string;
  attempt: AttemptStatus | undefined;
  reason?: string;
  error?: AirError;
  worker_result?: unknown;
  summary_id?: string;
};

function settle(event: { timestamp: string }, target: ProjectionTarget, outcome: TaskOutcome): void {
  const { connection } = target;
  const status = moved_status<TaskStatus>(target);
  const ends = status === "completed" || status === "cancelled" || status === "failed" || status === "blocked";
  update_rows(
    connection,
    tasks,
    { id: outcome.task_id },
    {
      status,
      status_reason: outcome.reason ?? null,
      last_error_json: json(outcome.error),
      worker_result_json: json(outcome.worker_result),
      summary_id: outcome.summary_id,
      completed_at: ends ? event.timestamp : null,
      updated_at: event.timestamp,
    },
  );
  if (outcome.attempt !== undefined) {
    close_attempt(connection, outcome.task_id, outcome.attempt, event.timestamp, outcome.error);
  }
}

export const task_completed: Projection<"task.completed"> = (event, target) => {
  const { task_id, worker_result } = event.payload;
  settle(event, target, { task_id, attempt: "completed", worker_result });
};

export const task_failed: Projection<"task.failed"> = (event, target) => {
  const { task_id, error, worker_result } = event.payload;
  settle(event, target, { task_id, attempt: "failed", error, worker_result, reason: error.message });
};

export const task_blocked: Projection<"task.blocked"> = (event, target) => {
  const { task_id, reason, error, worker_result } = event.payload;
  settle(event, target, { task_id, attempt: "blocked", reason, error, worker_result });
};

export const task_cancelled: Projection<"task.cancelled"> = (event, target) => {
  settle(event, target, { task_id: event.payload.task_id, attempt: "cancelled", reason: event.payload.reason });
};

/** A revised task keeps its row, status and dependency rows; only what it is asked to do changes. */
export const task_revised: Projection<"task.revised"> = (event, { connection }) => {
  const { task_id, task } = event.payload;
  update_rows(connection, tasks, { id: task_id }, { title: task.title, spec_json: JSON.stringify(task), updated_at: event.timestamp });
};

export const task_interrupted: Projection<"task.interrupted"> = (event, target) => {
  settle(event, target, { task_id: event.payload.task_id, attempt: "interrupted", reason: event.payload.reason });
};

/** retried / resumed / unblocked: back to pending; the next task.started opens a new attempt. */
export const task_requeued: Projection<"task.retried" | "task.resumed" | "task.unblocked"> = (event, target) => {
  const payload = event.payload;
  const reason = "decision" in payload ? payload.decision : payload.reason;
  settle(event, target, { task_id: payload.task_id, attempt: undefined, reason });
};

export const compaction_completed: Projection<"context.compaction.completed"> = (event, target) => {
  const { task_id, summary_id } = event.payload;
  expect_one(
    read_column(target.connection, summaries, summary_id, "id") === undefined ? 0 : 1,
    event,
    `summary ${summary_id} does not exist (summary.created must come first)`,
  );
  settle(event, target, { task_id, attempt: "completed", summary_id });
};

export const compaction_failed: Projection<"context.compaction.failed"> = (event, target) => {
  const { task_id, error } = event.payload;
  settle(event, target, { task_id, attempt: "failed", error, reason: error.message });
};

import { and, eq, ne } from "drizzle-orm";
import * as v from "valibot";
import { TaskSpec } from "../../contracts/task.js";
import type { TaskStatus } from "../../contracts/status.js";
import { air_failure } from "../../contracts/errors.js";
import type { Connection } from "../../db/connection.js";
import { task_dependencies, tasks } from "../../db/schema.js";
import type { TaskGraphSnapshot } from "../../machines/scheduler.js";

/**
 * The Scheduler's view of the task graph, read from rows (INV-5): which tasks may start now — pending, with
 * every hard dependency completed — highest priority first, then oldest.
 */
export function read_task_graph(connection: Connection): TaskGraphSnapshot {
  // Compact tasks run inline where the context asks for them (seeds 000 §10.3); they are not the Scheduler's work.
  const rows = connection.db.select({ id: tasks.id, status: tasks.status, priority: tasks.priority }).from(tasks).where(ne(tasks.type, "compact")).all();
  const status_of = new Map(rows.map((row) => [row.id, row.status]));
  const counts: Record<TaskStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 };
  for (const row of rows) counts[row.status] += 1;

  const hard = connection.db
    .select({ task_id: task_dependencies.task_id, depends_on: task_dependencies.depends_on_task_id })
    .from(task_dependencies)
    .where(eq(task_dependencies.kind, "hard"))
    .all();
  const waiting = new Set(hard.filter((edge) => status_of.get(edge.depends_on) !== "completed").map((edge) => edge.task_id));

  const runnable = rows
    .filter((row) => row.status === "pending" && !waiting.has(row.id))
    .sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : 1))
    .map((row) => row.id);
  return { runnable, counts };
}

export type TaskRow = typeof tasks.$inferSelect;

export function read_task(connection: Connection, task_id: string): TaskRow {
  const row = connection.db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, task_id)))
    .get();
  if (row === undefined) {
    throw air_failure({ kind: "scheduler_error", message: `no task ${task_id} in this session`, retryability: "not_retryable" });
  }
  return row;
}

/** The TaskSpec a task was created with (stored whole on `task.created`). */
export function read_task_spec(connection: Connection, task_id: string): TaskSpec {
  const row = read_task(connection, task_id);
  if (row.spec_json === null) {
    throw air_failure({ kind: "scheduler_error", message: `task ${task_id} has no spec to run`, retryability: "not_retryable" });
  }
  return v.parse(TaskSpec, JSON.parse(row.spec_json));
}

/** The session's completed tasks, oldest first. */
export function completed_task_ids(connection: Connection): string[] {
  return connection.db
    .select({ id: tasks.id })
    .from(tasks)
    .where(eq(tasks.status, "completed"))
    .orderBy(tasks.id)
    .all()
    .map((row) => row.id);
}

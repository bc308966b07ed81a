/**
 * The final object of `air run -p --output-format json` (and the last line of `--output-format events`): the request's
 * outcome and summary, the plan it showed, and what became of each task — from the session's rows, as
 * `air tasks` lists them, with each task's result summary or error.
 */
import { inArray } from "drizzle-orm";
import * as v from "valibot";
import { AirError } from "../contracts/errors.js";
import { ListedTask, ListedUsage } from "../contracts/task-listing.js";
import { WorkerResult } from "../contracts/worker-result.js";
import type { Connection } from "../db/connection.js";
import { tasks } from "../db/schema.js";
import { list_tasks } from "../orchestration/task-listing.js";

/** A task as `air tasks` lists it, with what became of it. */
const TaskResultJson = v.strictObject({
  ...ListedTask.entries,
  /** The worker's own summary of its last result. */
  summary: v.nullable(v.string()),
  /** Why the task did not complete, as its last error said. */
  error: v.nullable(v.strictObject({ kind: AirError.entries.kind, message: v.string() })),
});
type TaskResultJson = v.InferOutput<typeof TaskResultJson>;

export const RunResultJson = v.strictObject({
  type: v.literal("result"),
  session_id: v.string(),
  code: v.pipe(v.number(), v.integer()),
  /** The Main Agent's `RequestOutcome` and the plan's `PlanView`: their shapes are their modules'. */
  outcome: v.unknown(),
  summary: v.string(),
  plan: v.unknown(),
  tasks: v.array(TaskResultJson),
  /** Every model call of the session, the Main Agent's too. */
  total: ListedUsage,
});
export type RunResultJson = v.InferOutput<typeof RunResultJson>;

function parsed<S extends v.GenericSchema>(schema: S, json: string | null): v.InferOutput<S> | undefined {
  if (json === null) return undefined;
  const result = v.safeParse(schema, JSON.parse(json));
  return result.success ? result.output : undefined;
}

/** Each task's result as the json output carries it, oldest first. */
export function task_results(connection: Connection): { tasks: TaskResultJson[]; total: RunResultJson["total"] } {
  const listing = list_tasks(connection);
  if (listing.tasks.length === 0) return { tasks: [], total: listing.total };
  const rows = connection.db
    .select({ id: tasks.id, worker_result_json: tasks.worker_result_json, last_error_json: tasks.last_error_json })
    .from(tasks)
    .where(
      inArray(
        tasks.id,
        listing.tasks.map((task) => task.id),
      ),
    )
    .all();
  const results = new Map(rows.map((row) => [row.id, row]));
  return {
    total: listing.total,
    tasks: listing.tasks.map((task): TaskResultJson => {
      const row = results.get(task.id);
      const worker = parsed(WorkerResult, row?.worker_result_json ?? null);
      const error = task.status === "completed" ? undefined : parsed(AirError, row?.last_error_json ?? null);
      return {
        ...task,
        summary: worker?.summary ?? null,
        error: error === undefined ? null : { kind: error.kind, message: error.message },
      };
    }),
  };
}

import { ne, sql } from "drizzle-orm";
import * as v from "valibot";
import { make_event } from "../../contracts/events/registry.js";
import type { TaskStatus } from "../../contracts/status.js";
import { TaskSpec, writes_code } from "../../contracts/task.js";
import { task_dependencies, tasks } from "../../db/schema.js";
import type { WaveInput, WavePlan } from "../../orchestration/waves/wave.js";
import type { Session } from "../../project/session-manager.js";
import { attempt_history } from "./attempt-history.js";

/** A task whose retry runs alone, pending or running: its merge conflicted, so it works on the merged checkout. */
function runs_alone(session: Session, row: { id: string; status: TaskStatus; attempt_count: number }): boolean {
  if (row.attempt_count === 0 || (row.status !== "pending" && row.status !== "running")) return false;
  const history = attempt_history(session, row.id);
  return (row.status === "pending" ? history.next_change : history.attempts.at(-1)?.change) === "serialize";
}

/** The wave planner's input, from the session's records alone (INV-5): every task but the inline compactions, and every edge. */
export function read_wave_input(session: Session, max_parallel: number): WaveInput {
  const { connection } = session;
  const rows = connection.db
    .select({
      id: tasks.id,
      status: tasks.status,
      priority: tasks.priority,
      type: tasks.type,
      spec_json: tasks.spec_json,
      attempt_count: tasks.attempt_count,
      seq: sql<number>`rowid`,
    })
    .from(tasks)
    .where(ne(tasks.type, "compact"))
    .all();
  const wave_tasks = rows.map((row) => {
    const spec = row.spec_json === null ? undefined : v.parse(TaskSpec, JSON.parse(row.spec_json));
    const area = spec?.scope.write_area;
    return {
      id: row.id,
      status: row.status,
      priority: row.priority,
      writes_code: writes_code(row.type),
      created_seq: row.seq,
      ...(area === undefined ? {} : { area }),
      ...(runs_alone(session, row) ? { alone: true } : {}),
    };
  });
  const known = new Set(wave_tasks.map((task) => task.id));
  const edges = connection.db
    .select({ task_id: task_dependencies.task_id, depends_on: task_dependencies.depends_on_task_id, kind: task_dependencies.kind })
    .from(task_dependencies)
    .all()
    .filter((edge) => known.has(edge.task_id));
  return { tasks: wave_tasks, edges, max_parallel };
}

/** The serialization dependencies the planner inferred, recorded in one transaction before anyone is dispatched. */
export function record_serializations(session: Session, plan: WavePlan): void {
  if (plan.serialize.length === 0) return;
  const origin = { ...session.origin, source: { kind: "scheduler" as const }, route: ["main", "scheduler"] };
  session.store.append_many(
    plan.serialize.map((edge) =>
      make_event(
        "task.dependency.added",
        {
          task_id: edge.task_id,
          depends_on: edge.depends_on,
          kind: "serialization",
          reason: `both write ${edge.task_glob === edge.other_glob ? edge.task_glob : `${edge.task_glob} and ${edge.other_glob}`}`,
        },
        origin,
      ),
    ),
  );
}

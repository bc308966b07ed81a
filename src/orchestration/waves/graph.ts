import { air_failure } from "../../contracts/errors.js";
import type { WaveInput, WaveTask } from "./wave.js";

/** The planner's view of the rows, indexed once per plan. */
export type WaveGraph = {
  readonly by_id: ReadonlyMap<string, WaveTask>;
  readonly hard: ReadonlyMap<string, readonly string[]>;
  readonly soft: ReadonlyMap<string, readonly string[]>;
  /** Conflict and serialization rows: the tasks each task goes after, sorted by id so the answer never depends on row order. */
  readonly after: ReadonlyMap<string, readonly string[]>;
};

function push(table: Map<string, string[]>, key: string, value: string): void {
  const list = table.get(key);
  if (list === undefined) table.set(key, [value]);
  else list.push(value);
}

export function index_graph(input: WaveInput): WaveGraph {
  const by_id = new Map<string, WaveTask>();
  for (const task of input.tasks) {
    if (by_id.has(task.id)) {
      throw air_failure({
        kind: "scheduler_error",
        message: `the wave planner was given task ${task.id} twice`,
        retryability: "not_retryable",
        user_action: "report this: the task rows handed to the planner repeat an id",
      });
    }
    by_id.set(task.id, task);
  }
  const hard = new Map<string, string[]>();
  const soft = new Map<string, string[]>();
  const after = new Map<string, string[]>();
  for (const edge of input.edges) {
    if (edge.task_id === edge.depends_on) continue;
    if (edge.kind === "hard") push(hard, edge.task_id, edge.depends_on);
    else if (edge.kind === "soft") push(soft, edge.task_id, edge.depends_on);
    else push(after, edge.task_id, edge.depends_on);
  }
  for (const [task_id, list] of after) after.set(task_id, [...new Set(list)].sort());
  return { by_id, hard, soft, after };
}

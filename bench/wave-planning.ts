import { areas_overlap } from "../src/orchestration/areas/overlap.js";
import { plan_wave } from "../src/orchestration/waves/plan-wave.js";
import type { WaveEdge, WaveInput, WavePlan, WaveTask } from "../src/orchestration/waves/wave.js";
import { seeded_random } from "../test/fixtures/prng.js";
import { collect_garbage, median, ratios, time_ms } from "./stats.js";
import { VerificationError } from "./verify.js";

/**
 * Wave planning over a 10,000-task graph with 20,000 dependencies, a run a third of the way through (a
 * third completed, max_parallel tasks running, the rest pending: hundreds runnable, many of them
 * overlapping), beside a plain topological sort (Kahn) of the same rows in the same run.
 */
export type WavePlanningBench = {
  readonly tasks: number;
  readonly edges: number;
  readonly runnable: number;
  readonly plan_ms: number;
  readonly kahn_ms: number;
  /** Median of paired plan / Kahn ratios. */
  readonly ratio: number;
};

const TASKS = 10_000;
const EDGES = 20_000;
const MAX_PARALLEL = 4;
const MODULES = 400;

function area_of(random: () => number): string[] {
  const module = `src/m${Math.floor(random() * MODULES)}`;
  const roll = random();
  if (roll < 0.4) return [`${module}/**`];
  if (roll < 0.7) return [`${module}/*.ts`, `test/m${Math.floor(random() * MODULES)}`];
  if (roll < 0.9) return [`${module}/index.ts`];
  return ["lib/*.cpp", `include/m${Math.floor(random() * MODULES)}.h`];
}

/** Rows point from a task to one created at most 200 before it, so the graph is a DAG with long chains. */
function wave_graph(seed: number): WaveInput {
  const random = seeded_random(seed);
  const tasks: WaveTask[] = [];
  for (let index = 0; index < TASKS; index += 1) {
    const status = index < TASKS / 3 ? "completed" : "pending";
    tasks.push({
      id: `tsk_${index.toString().padStart(5, "0")}`,
      status,
      priority: Math.floor(random() * 5),
      area: area_of(random),
      writes_code: random() < 0.9,
      created_seq: index,
    });
  }
  let running = 0;
  for (const task of tasks.slice(TASKS / 3, TASKS / 3 + 400)) {
    if (running === MAX_PARALLEL || random() >= 0.05) continue;
    task.status = "running";
    running += 1;
  }
  const edges: WaveEdge[] = [];
  const seen = new Set<string>();
  while (edges.length < EDGES) {
    const from = 1 + Math.floor(random() * (TASKS - 1));
    const to = Math.max(0, from - 1 - Math.floor(random() * 200));
    const task_id = tasks[from]?.id ?? "";
    const depends_on = tasks[to]?.id ?? "";
    const key = `${task_id}>${depends_on}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const roll = random();
    edges.push({ task_id, depends_on, kind: roll < 0.8 ? "hard" : roll < 0.95 ? "soft" : "serialization" });
  }
  return { tasks, edges, max_parallel: MAX_PARALLEL };
}

/** The ceiling: Kahn's algorithm over the same rows, string ids in maps as the planner reads them. */
function topological_order(input: WaveInput): string[] {
  const waiting = new Map<string, number>();
  const dependants = new Map<string, string[]>();
  for (const task of input.tasks) waiting.set(task.id, 0);
  for (const edge of input.edges) {
    waiting.set(edge.task_id, (waiting.get(edge.task_id) ?? 0) + 1);
    const list = dependants.get(edge.depends_on);
    if (list === undefined) dependants.set(edge.depends_on, [edge.task_id]);
    else list.push(edge.task_id);
  }
  const ready: string[] = [];
  for (const [id, count] of waiting) if (count === 0) ready.push(id);
  const order: string[] = [];
  for (let head = 0; head < ready.length; head += 1) {
    const id = ready[head] ?? "";
    order.push(id);
    for (const next of dependants.get(id) ?? []) {
      const left = (waiting.get(next) ?? 0) - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return order;
}

function verify(input: WaveInput, dispatch: readonly string[], waiting: number, order: readonly string[]): void {
  if (order.length !== input.tasks.length) throw new VerificationError(`the topological sort placed ${order.length} of ${input.tasks.length} tasks`);
  const pending = input.tasks.filter((task) => task.status === "pending").length;
  if (dispatch.length + waiting !== pending) throw new VerificationError(`the plan accounts for ${dispatch.length + waiting} of ${pending} pending tasks`);
  const by_id = new Map(input.tasks.map((task) => [task.id, task]));
  const writers = [...input.tasks.filter((task) => task.status === "running"), ...dispatch.map((id) => by_id.get(id))].filter(
    (task) => task?.writes_code === true,
  );
  for (const [index, a] of writers.entries()) {
    for (const b of writers.slice(index + 1)) if (areas_overlap(a?.area, b?.area).overlap) throw new VerificationError(`${a?.id} and ${b?.id} overlap`);
  }
}

export function bench_wave_planning(rounds: number): WavePlanningBench {
  const input = wave_graph(20_260_412);
  const plans: number[] = [];
  const sorts: number[] = [];
  let runnable = 0;
  for (let round = 0; round <= rounds; round += 1) {
    collect_garbage();
    let order: string[] = [];
    sorts.push(time_ms(() => (order = topological_order(input))));
    collect_garbage();
    let plan: WavePlan = { dispatch: [], serialize: [], waiting: [] };
    plans.push(time_ms(() => (plan = plan_wave(input))));
    verify(input, plan.dispatch, plan.waiting.length, order);
    runnable = plan.dispatch.length + plan.waiting.filter((wait) => wait.reason.kind !== "dependency" && wait.reason.kind !== "dependency_failed").length;
  }
  // The first round warms the JIT; it is not counted.
  return {
    tasks: input.tasks.length,
    edges: input.edges.length,
    runnable,
    plan_ms: median(plans.slice(1)),
    kahn_ms: median(sorts.slice(1)),
    ratio: median(ratios(plans.slice(1), sorts.slice(1))),
  };
}

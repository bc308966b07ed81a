/**
 * Properties of the wave planner over seeded random task graphs, driven as the Scheduler drives it: plan,
 * start what it dispatches, record its serialization rows, let some running tasks end, plan again. A
 * failure names the seed that replays it (`AIR_WAVE_SEED=<seed> npx vitest run test/orchestration/waves`).
 */
import { describe, expect, it } from "vitest";
import type { TaskStatus } from "../../../src/contracts/status.js";
import { areas_overlap } from "../../../src/orchestration/areas/overlap.js";
import { plan_wave } from "../../../src/orchestration/waves/plan-wave.js";
import type { WaveEdge, WaveInput, WavePlan, WaveTask } from "../../../src/orchestration/waves/wave.js";
import { seeded_random } from "../../fixtures/prng.js";
import { acyclic, type GraphShape, random_graph, type Random, shuffled, TERMINAL } from "./random-waves.js";

const BASE_SEED = Number(process.env.AIR_WAVE_SEED ?? 20_260_412);
const GRAPHS = 40;

/** Every broken promise of one plan, in words; empty when the plan keeps them all. */
function violations(input: WaveInput, plan: WavePlan): string[] {
  const found: string[] = [];
  const by_id = new Map(input.tasks.map((task) => [task.id, task]));
  const running = input.tasks.filter((task) => task.status === "running");
  const started = plan.dispatch.map((id) => by_id.get(id)).filter((task) => task !== undefined);
  if (running.length + started.length > Math.max(input.max_parallel, running.length)) found.push(`${started.length} started beside ${running.length} running`);
  const writers = [...running, ...started].filter((task) => task.writes_code);
  for (const [index, a] of writers.entries()) {
    for (const b of writers.slice(index + 1)) if (areas_overlap(a.area, b.area).overlap) found.push(`${a.id} beside ${b.id}`);
  }
  const planned = [...plan.dispatch, ...plan.waiting.map((wait) => wait.task_id)].sort();
  const pending = input.tasks
    .filter((task) => task.status === "pending")
    .map((task) => task.id)
    .sort();
  if (planned.join() !== pending.join()) found.push(`planned ${planned} for pending ${pending}`);
  const completed = (id: string) => by_id.get(id)?.status === "completed";
  const runnable = new Set(pending);
  for (const edge of input.edges) if (edge.kind === "hard" && !completed(edge.depends_on)) runnable.delete(edge.task_id);
  for (const id of plan.dispatch) if (!runnable.has(id)) found.push(`${id} dispatched while not runnable`);
  for (const task of [...running, ...started].filter((task) => task.alone === true)) {
    if (running.length + started.length > 1) found.push(`${task.id} runs beside others though it runs alone`);
  }
  if (running.length === 0 && runnable.size > 0 && plan.dispatch.length === 0) found.push("no progress");
  for (const row of plan.serialize) {
    if (!plan.waiting.some((wait) => wait.task_id === row.task_id)) found.push(`row from ${row.task_id}, which does not wait`);
    if (!areas_overlap(by_id.get(row.task_id)?.area, by_id.get(row.depends_on)?.area).overlap)
      found.push(`row ${row.task_id} → ${row.depends_on} without overlap`);
  }
  return found;
}

type Outcome = { readonly tasks: readonly WaveTask[]; readonly edges: readonly WaveEdge[]; readonly overlap_waits: number; readonly alone_waits: number };

/** The Scheduler's loop over one graph: `fail` is the chance a task ends failed instead of completed. */
function simulate(random: Random, shape: GraphShape, fail: number, where: string): Outcome {
  const graph = random_graph(random, shape);
  let tasks = graph.tasks;
  const edges = [...graph.edges];
  const check_cycles = acyclic(graph);
  const limit = 10 * tasks.length + 10;
  let overlap_waits = 0;
  let alone_waits = 0;
  for (let plans = 1; plans <= limit; plans += 1) {
    const input = { tasks, edges, max_parallel: graph.max_parallel };
    const plan = plan_wave(input);
    expect(violations(input, plan), `${where}, plan ${plans}`).toEqual([]);
    expect(plan_wave({ tasks: shuffled(random, tasks), edges: shuffled(random, edges), max_parallel: graph.max_parallel }), `row order ${where}`).toEqual(plan);
    edges.push(...plan.serialize.map((row) => ({ task_id: row.task_id, depends_on: row.depends_on, kind: "serialization" as const })));
    if (check_cycles) expect(acyclic({ tasks, edges }), `rows stay acyclic ${where}, plan ${plans}`).toBe(true);
    overlap_waits += plan.waiting.filter((wait) => wait.reason.kind === "overlap").length;
    alone_waits += plan.waiting.filter((wait) => wait.reason.kind === "alone" || wait.reason.kind === "runs_alone").length;
    const started = new Set(plan.dispatch);
    const blocked = new Set(plan.waiting.filter((wait) => wait.reason.kind === "dependency_failed").map((wait) => wait.task_id));
    const next = (task: WaveTask): TaskStatus => {
      if (started.has(task.id)) return "running";
      if (blocked.has(task.id)) return "blocked";
      if (task.status !== "running" || random() < 0.5) return task.status;
      return random() < fail ? "failed" : "completed";
    };
    tasks = tasks.map((task) => ({ ...task, status: next(task) }));
    if (tasks.every((task) => TERMINAL.has(task.status))) return { tasks, edges, overlap_waits, alone_waits };
  }
  throw new Error(`${where}: not finished after ${limit} plans`);
}

describe("plan_wave (property)", () => {
  it("never co-schedules overlapping areas or exceeds max_parallel, and finishes every task of an acyclic graph", () => {
    let overlap_waits = 0;
    let rows_added = 0;
    for (let graph = 0; graph < GRAPHS; graph += 1) {
      const seed = BASE_SEED + graph;
      const random = seeded_random(seed);
      const recorded = random_graph(seeded_random(seed), { tasks: 40, hard: 0.08, soft: 0.04, serialization: 0.03 }).edges.length;
      const outcome = simulate(random, { tasks: 40, hard: 0.08, soft: 0.04, serialization: 0.03 }, 0, `seed ${seed}`);
      expect(
        outcome.tasks.filter((task) => task.status !== "completed"),
        `seed ${seed}`,
      ).toEqual([]);
      overlap_waits += outcome.overlap_waits;
      rows_added += outcome.edges.length - recorded;
    }
    // The graphs really make tasks meet: otherwise the properties above would hold trivially.
    expect(overlap_waits).toBeGreaterThan(GRAPHS * 5);
    expect(rows_added).toBeGreaterThan(GRAPHS);
  });

  it("never starves a task when recorded rows form cycles with each other and with hard dependencies", () => {
    for (let graph = 0; graph < GRAPHS; graph += 1) {
      const seed = BASE_SEED + 1_000 + graph;
      const outcome = simulate(seeded_random(seed), { tasks: 40, hard: 0.08, soft: 0.04, serialization: 0.1, backward_rows: true }, 0, `seed ${seed}`);
      expect(
        outcome.tasks.filter((task) => task.status !== "completed"),
        `seed ${seed}`,
      ).toEqual([]);
    }
  });

  it("runs a task that must run alone with nothing beside it, and still finishes every task", () => {
    let alone_waits = 0;
    for (let graph = 0; graph < GRAPHS; graph += 1) {
      const seed = BASE_SEED + 4_000 + graph;
      const outcome = simulate(seeded_random(seed), { tasks: 40, hard: 0.08, soft: 0.04, serialization: 0.03, alone: 0.1 }, 0, `seed ${seed}`);
      expect(
        outcome.tasks.filter((task) => task.status !== "completed"),
        `seed ${seed}`,
      ).toEqual([]);
      alone_waits += outcome.alone_waits;
    }
    // Tasks really wait for one that runs alone: otherwise the property above would hold trivially.
    expect(alone_waits).toBeGreaterThan(GRAPHS);
  });

  it("ends every task when some fail: their dependants are reported as such, the rest complete", () => {
    for (let graph = 0; graph < GRAPHS; graph += 1) {
      const seed = BASE_SEED + 2_000 + graph;
      const outcome = simulate(seeded_random(seed), { tasks: 40, hard: 0.1, soft: 0.04, serialization: 0.03 }, 0.15, `seed ${seed}`);
      const status = new Map(outcome.tasks.map((task) => [task.id, task.status]));
      for (const task of outcome.tasks) {
        const deps = outcome.edges.filter((edge) => edge.task_id === task.id && edge.kind === "hard").map((edge) => status.get(edge.depends_on));
        if (task.status === "blocked")
          expect(
            deps.some((dep) => dep !== "completed"),
            `${task.id} blocked, seed ${seed}`,
          ).toBe(true);
        else expect(["completed", "failed"]).toContain(task.status);
      }
    }
  });

  it("gives the same plan for the same rows", () => {
    const random = seeded_random(BASE_SEED + 3_000);
    for (let graph = 0; graph < GRAPHS; graph += 1) {
      const input = random_graph(random, { tasks: 60, hard: 0.05, soft: 0.05, serialization: 0.05 });
      const tasks = input.tasks.map((task, index) => ({
        ...task,
        status: index % 7 === 0 ? ("running" as const) : index % 5 === 0 ? ("completed" as const) : task.status,
      }));
      const plan = plan_wave({ ...input, tasks });
      expect(plan_wave({ ...input, tasks })).toEqual(plan);
      expect(plan_wave({ tasks: shuffled(random, tasks), edges: shuffled(random, input.edges), max_parallel: input.max_parallel })).toEqual(plan);
    }
  });
});

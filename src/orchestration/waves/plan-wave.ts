import { air_failure } from "../../contracts/errors.js";
import type { TaskStatus } from "../../contracts/status.js";
import { type AreaOverlap, areas_overlap, WHOLE_PROJECT } from "../areas/overlap.js";
import { CycleGuard } from "./cycle-guard.js";
import { index_graph, type WaveGraph } from "./graph.js";
import { order_candidates } from "./order.js";
import type { WaitReason } from "../../contracts/wait-reason.js";
import type { WaveInput, WavePlan, WaveTask } from "./wave.js";

/*
 * The wave planner: which pending tasks start now, which wait and why, and which new serialization rows to
 * record. A pure function of rows (tasks and task_dependencies): it remembers nothing between plans, so a
 * restart from rows alone plans the same wave, whatever order the rows come in.
 *
 * Runnable: pending with every hard dependency completed. A conflict or serialization row `T → D` binds
 * while D is running, or while D is runnable and comes before T in the planner's order (which puts D first
 * unless the rows form a cycle among runnable tasks, see order.ts). It is satisfied once D is anything
 * else: completed, failed, blocked, cancelled, interrupted, or pending behind its own hard dependencies. A
 * row never holds T back for a task that cannot start, so rows and hard dependencies can never wait on
 * each other in a circle. Areas are checked against every running and just-picked task whatever the rows
 * say — the rows are how a decision survives a restart and shows in the plan, not what keeps areas apart.
 *
 * No starvation. Tasks are finite, and a dispatched task does not return to pending within its attempt
 * (attempts are bounded by the retry budget). Whenever a plan has a runnable task and nothing running,
 * the first task of the order is dispatched: no task runs or was picked before it, so no area overlaps it
 * and no row binds it, and a slot is free (max_parallel ≥ 1). Running tasks end in finite time (budgets,
 * timeouts), so while runnable tasks remain, one starts at the latest in the plan after the running ones
 * end; the pending set only shrinks, and every runnable task is dispatched in the end. A task that runs
 * alone changes none of this: the tasks after it in the order wait, so the running ones drain, and once
 * nothing runs it is the first of the order or behind tasks that are dispatched before it. A task whose hard
 * dependency ended without completing is `dependency_failed`, for the Scheduler to block: not runnable,
 * not starved.
 */

/** A hard dependency in one of these states will never complete: its dependants cannot start. */
const DEAD_ENDS: ReadonlySet<TaskStatus> = new Set(["failed", "blocked", "cancelled"]);

function held_back(task: WaveTask, graph: WaveGraph): WaitReason | undefined {
  const hard = graph.hard.get(task.id);
  if (hard === undefined || hard.every((id) => graph.by_id.get(id)?.status === "completed")) return undefined;
  const open = [...new Set(hard)].filter((id) => graph.by_id.get(id)?.status !== "completed").sort();
  const dead = open.filter((id) => {
    const status = graph.by_id.get(id)?.status;
    return status === undefined || DEAD_ENDS.has(status);
  });
  return dead.length > 0 ? { kind: "dependency_failed", on: dead } : { kind: "dependency", on: open };
}

function check_max_parallel(max_parallel: number): void {
  if (Number.isInteger(max_parallel) && max_parallel >= 1) return;
  throw air_failure({
    kind: "user_error",
    message: `max_parallel must be a whole number of at least 1, not ${max_parallel}`,
    retryability: "retryable_after_change",
    user_action: "set --max-parallel (or the config's max_parallel) to 1 or more",
  });
}

/** Why `task` waits for `other`, which a row puts first: their overlap when both write code. */
function row_reason(task: WaveTask, other: WaveTask): WaitReason {
  if (!task.writes_code || !other.writes_code) return { kind: "serialized", on: other.id };
  const overlap = areas_overlap(task.area, other.area);
  return overlap.overlap ? { kind: "overlap", on: other.id, glob: overlap.b_glob ?? WHOLE_PROJECT } : { kind: "serialized", on: other.id };
}

type Clash = { readonly other: WaveTask; readonly overlap: AreaOverlap };

/** One pass over the ordered candidates: the greedy pick. */
class Wave {
  readonly plan: WavePlan = { dispatch: [], serialize: [], waiting: [] };
  readonly #graph: WaveGraph;
  readonly #position: ReadonlyMap<string, number>;
  /** Code-writing tasks that run or were picked: the areas a candidate must stay clear of. */
  readonly #occupied: WaveTask[];
  readonly #slots: number;
  readonly #guard: CycleGuard;
  readonly #running: number;
  /** The task that runs alone, once the order reached it: every task after it waits. */
  #alone: string | undefined;

  constructor(graph: WaveGraph, order: readonly WaveTask[], running: readonly WaveTask[], max_parallel: number) {
    this.#graph = graph;
    this.#position = new Map(order.map((task, index) => [task.id, index]));
    this.#occupied = running.filter((task) => task.writes_code).sort((a, b) => (a.id < b.id ? -1 : 1));
    this.#slots = Math.max(0, max_parallel - running.length);
    this.#guard = new CycleGuard(graph);
    this.#running = running.length;
    this.#alone = running.find((task) => task.alone === true)?.id;
  }

  consider(task: WaveTask, index: number): void {
    if (this.#alone !== undefined) return this.wait(task, { kind: "alone", on: this.#alone });
    const first = this.#binding_row(task, index);
    if (first !== undefined) return this.wait(task, row_reason(task, first));
    if (task.alone === true) {
      this.#alone = task.id;
      if (this.#running > 0 || this.plan.dispatch.length > 0) return this.wait(task, { kind: "runs_alone" });
    }
    const clash = task.writes_code ? this.#clash(task) : undefined;
    if (clash !== undefined) {
      this.#serialize(task, clash);
      return this.wait(task, { kind: "overlap", on: clash.other.id, glob: clash.overlap.b_glob ?? WHOLE_PROJECT });
    }
    if (this.plan.dispatch.length >= this.#slots) return this.wait(task, { kind: "capacity" });
    this.plan.dispatch.push(task.id);
    if (task.writes_code) this.#occupied.push(task);
  }

  wait(task: WaveTask, reason: WaitReason): void {
    this.plan.waiting.push({ task_id: task.id, reason });
  }

  #binding_row(task: WaveTask, index: number): WaveTask | undefined {
    for (const id of this.#graph.after.get(task.id) ?? []) {
      const other = this.#graph.by_id.get(id);
      if (other === undefined) continue;
      if (other.status === "running" || (this.#position.get(id) ?? index) < index) return other;
    }
    return undefined;
  }

  #clash(task: WaveTask): Clash | undefined {
    for (const other of this.#occupied) {
      const overlap = areas_overlap(task.area, other.area);
      if (overlap.overlap) return { other, overlap };
    }
    return undefined;
  }

  /** Records the wait as a row, unless that row would close a cycle (then the overlap alone keeps them apart). */
  #serialize(task: WaveTask, clash: Clash): void {
    if (this.#guard.would_cycle(task.id, clash.other.id)) return;
    this.#guard.add(task.id, clash.other.id);
    this.plan.serialize.push({
      task_id: task.id,
      depends_on: clash.other.id,
      task_glob: clash.overlap.a_glob ?? WHOLE_PROJECT,
      other_glob: clash.overlap.b_glob ?? WHOLE_PROJECT,
    });
  }
}

const by_creation = (a: WaveTask, b: WaveTask) => a.created_seq - b.created_seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Plans one wave. `waiting` lists the runnable tasks that wait in the planner's order, then the ones held
 * back by hard dependencies in creation order; every pending task is in `dispatch` or `waiting`, once.
 */
export function plan_wave(input: WaveInput): WavePlan {
  check_max_parallel(input.max_parallel);
  const graph = index_graph(input);
  const candidates: WaveTask[] = [];
  const running: WaveTask[] = [];
  const held: { task: WaveTask; reason: WaitReason }[] = [];
  for (const task of input.tasks) {
    if (task.status === "running") running.push(task);
    if (task.status !== "pending") continue;
    const reason = held_back(task, graph);
    if (reason === undefined) candidates.push(task);
    else held.push({ task, reason });
  }
  const order = order_candidates(candidates, graph);
  const wave = new Wave(graph, order, running, input.max_parallel);
  for (const [index, task] of order.entries()) wave.consider(task, index);
  held.sort((a, b) => by_creation(a.task, b.task));
  for (const { task, reason } of held) wave.wait(task, reason);
  return wave.plan;
}

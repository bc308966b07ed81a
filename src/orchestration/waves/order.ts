import type { TaskStatus } from "../../contracts/status.js";
import type { WaveGraph } from "./graph.js";
import { MinHeap } from "./heap.js";
import type { WaveTask } from "./wave.js";

/** A soft dependency in one of these states no longer holds its dependant back. */
const FINISHED: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "blocked", "cancelled"]);

function soft_ready(task: WaveTask, graph: WaveGraph): boolean {
  return (graph.soft.get(task.id) ?? []).every((id) => {
    const status = graph.by_id.get(id)?.status;
    return status === undefined || FINISHED.has(status);
  });
}

/** Soft dependencies finished first, then priority (high first), then creation order, then id: a total order. */
function by_rank(candidates: readonly WaveTask[], graph: WaveGraph): (a: WaveTask, b: WaveTask) => number {
  const ready = new Map(candidates.map((task) => [task.id, soft_ready(task, graph)]));
  const ready_of = (task: WaveTask) => ready.get(task.id) === true;
  return (a, b) => {
    const soft = Number(ready_of(b)) - Number(ready_of(a));
    if (soft !== 0) return soft;
    if (a.priority !== b.priority) return b.priority - a.priority;
    if (a.created_seq !== b.created_seq) return a.created_seq - b.created_seq;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/**
 * The runnable tasks in the order the planner considers them: by rank, except that a task with a
 * conflict or serialization row to another candidate comes after it (Kahn's algorithm, the best-ranked
 * ready task first). Rows recorded elsewhere may form a cycle among candidates; then the best-ranked task
 * left goes next and its remaining rows are not binding in this wave, so the order always exists.
 */
export function order_candidates(candidates: readonly WaveTask[], graph: WaveGraph): readonly WaveTask[] {
  const ranked = [...candidates].sort(by_rank(candidates, graph));
  const rank = new Map(ranked.map((task, index) => [task.id, index]));
  const waiting_on = new Array<number>(ranked.length).fill(0);
  const dependants = new Map<number, number[]>();
  ranked.forEach((task, index) => {
    for (const id of graph.after.get(task.id) ?? []) {
      const before = rank.get(id);
      if (before === undefined) continue;
      waiting_on[index] = (waiting_on[index] ?? 0) + 1;
      const list = dependants.get(before);
      if (list === undefined) dependants.set(before, [index]);
      else list.push(index);
    }
  });
  const ready = new MinHeap();
  waiting_on.forEach((count, index) => {
    if (count === 0) ready.push(index);
  });
  const placed = new Array<boolean>(ranked.length).fill(false);
  const order: WaveTask[] = [];
  let forced = 0;
  while (order.length < ranked.length) {
    let next = ready.pop();
    if (next === undefined) {
      while (placed[forced] === true) forced += 1;
      next = forced;
    }
    if (placed[next] === true) continue;
    placed[next] = true;
    const task = ranked[next];
    if (task !== undefined) order.push(task);
    for (const index of dependants.get(next) ?? []) {
      const left = (waiting_on[index] ?? 0) - 1;
      waiting_on[index] = left;
      if (left === 0) ready.push(index);
    }
  }
  return order;
}

import type { TaskStatus } from "../../../src/contracts/status.js";
import type { WaveEdge, WaveInput, WaveTask } from "../../../src/orchestration/waves/wave.js";

/** Seeded random task graphs for the planner's property tests. */
export type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    const here = copy[index];
    const there = copy[other];
    if (here === undefined || there === undefined) continue;
    copy[index] = there;
    copy[other] = here;
  }
  return copy;
}

/** Areas that overlap often enough to make waves serialize: folders, files in them, extensions, the whole project. */
function random_area(random: Random): string[] | undefined {
  const module = `m${Math.floor(random() * 6)}`;
  const shapes = [
    `src/${module}/**`,
    `src/${module}/a.ts`,
    `src/${module}`,
    `test/${module}`,
    "lib/*.cpp",
    "lib/*.h",
    "docs",
    `src/${module}/*.ts`,
    "src/*/index.ts",
  ];
  if (random() < 0.03) return undefined;
  const area = [pick(random, shapes)];
  if (random() < 0.25) area.push(pick(random, shapes));
  return area;
}

export type GraphShape = {
  readonly tasks: number;
  /** Chances per earlier task of a row of each kind; rows point from later tasks to earlier ones unless `backward_rows`. */
  readonly hard: number;
  readonly soft: number;
  readonly serialization: number;
  /** Conflict rows in any direction, so rows may form cycles with each other and with hard dependencies. */
  readonly backward_rows?: boolean;
  /** The chance a task must run alone (a retry after a conflicted merge). */
  readonly alone?: number;
};

export function random_graph(random: Random, shape: GraphShape): { tasks: WaveTask[]; edges: WaveEdge[]; max_parallel: number } {
  const tasks: WaveTask[] = [];
  const edges: WaveEdge[] = [];
  for (let index = 0; index < shape.tasks; index += 1) {
    const id = `tsk_${index.toString().padStart(3, "0")}`;
    const task: WaveTask = {
      id,
      status: "pending",
      priority: Math.floor(random() * 4),
      area: random_area(random),
      writes_code: random() < 0.85,
      created_seq: index,
    };
    tasks.push(shape.alone !== undefined && random() < shape.alone ? { ...task, alone: true } : task);
    for (const earlier of tasks.slice(Math.max(0, index - 12), index)) {
      const roll = random();
      if (roll < shape.hard) edges.push({ task_id: id, depends_on: earlier.id, kind: "hard" });
      else if (roll < shape.hard + shape.soft) edges.push({ task_id: id, depends_on: earlier.id, kind: "soft" });
      else if (roll < shape.hard + shape.soft + shape.serialization) {
        const backward = shape.backward_rows === true && random() < 0.5;
        edges.push(backward ? { task_id: earlier.id, depends_on: id, kind: "conflict" } : { task_id: id, depends_on: earlier.id, kind: "serialization" });
      }
    }
  }
  return { tasks, edges, max_parallel: 1 + Math.floor(random() * 5) };
}

/** Whether the rows, of every kind, form no cycle (Kahn's algorithm). */
export function acyclic(input: Pick<WaveInput, "tasks" | "edges">): boolean {
  const waiting = new Map(input.tasks.map((task) => [task.id, 0]));
  const dependants = new Map<string, string[]>();
  for (const edge of input.edges) {
    waiting.set(edge.task_id, (waiting.get(edge.task_id) ?? 0) + 1);
    dependants.set(edge.depends_on, [...(dependants.get(edge.depends_on) ?? []), edge.task_id]);
  }
  const ready = [...waiting].filter(([, count]) => count === 0).map(([id]) => id);
  let seen = 0;
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    seen += 1;
    for (const next of dependants.get(id) ?? []) {
      const left = (waiting.get(next) ?? 0) - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return seen === waiting.size;
}

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "blocked", "cancelled"]);

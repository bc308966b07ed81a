import { describe, expect, it } from "vitest";
import { is_air_failure } from "../../../src/contracts/errors.js";
import type { TaskStatus } from "../../../src/contracts/status.js";
import type { DependencyKind } from "../../../src/contracts/task.js";
import { describe_wait } from "../../../src/orchestration/waves/describe-wait.js";
import { plan_wave } from "../../../src/orchestration/waves/plan-wave.js";
import type { WaveEdge, WaveTask } from "../../../src/orchestration/waves/wave.js";

let sequence = 0;
function task(id: string, fields: Partial<Omit<WaveTask, "id">> = {}): WaveTask {
  sequence += 1;
  return { id, status: "pending", priority: 0, area: [`src/${id}`], writes_code: true, created_seq: sequence, ...fields };
}
const edge = (task_id: string, depends_on: string, kind: DependencyKind = "hard"): WaveEdge => ({ task_id, depends_on, kind });
const status = (value: TaskStatus) => ({ status: value });

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("plan_wave", () => {
  it("starts runnable tasks with disjoint areas together, up to max_parallel", () => {
    const tasks = ["a", "b", "c", "d", "e"].map((id) => task(id));
    const plan = plan_wave({ tasks, edges: [], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["a", "b", "c", "d"]);
    expect(plan.waiting).toEqual([{ task_id: "e", reason: { kind: "capacity" } }]);
    expect(plan.serialize).toEqual([]);
  });

  it("counts running tasks against max_parallel, read-only ones included", () => {
    const tasks = [task("r1", { ...status("running"), writes_code: false }), task("r2", status("running")), task("a"), task("b")];
    expect(plan_wave({ tasks, edges: [], max_parallel: 3 }).dispatch).toEqual(["a"]);
    expect(plan_wave({ tasks, edges: [], max_parallel: 2 }).dispatch).toEqual([]);
  });

  it("holds a task back until its hard dependencies completed", () => {
    const edges = [edge("c", "a"), edge("c", "b")];
    const waiting = plan_wave({ tasks: [task("a", status("completed")), task("b", status("running")), task("c")], edges, max_parallel: 4 });
    expect(waiting.waiting).toEqual([{ task_id: "c", reason: { kind: "dependency", on: ["b"] } }]);
    const ready = plan_wave({ tasks: [task("a", status("completed")), task("b", status("completed")), task("c")], edges, max_parallel: 4 });
    expect(ready.dispatch).toEqual(["c"]);
  });

  it("says so when a hard dependency ended without completing", () => {
    const plan = plan_wave({
      tasks: [task("a", status("failed")), task("b", status("pending")), task("c")],
      edges: [edge("c", "a"), edge("c", "b"), edge("c", "ghost")],
      max_parallel: 4,
    });
    expect(plan.waiting.find((wait) => wait.task_id === "c")?.reason).toEqual({ kind: "dependency_failed", on: ["a", "ghost"] });
  });

  it("serializes overlapping candidates with a durable row naming where they meet", () => {
    const tasks = [task("a", { area: ["src/net/**"] }), task("b", { area: ["docs", "src/net/tcp.ts"] }), task("c", { area: ["src/fs"] })];
    const plan = plan_wave({ tasks, edges: [], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["a", "c"]);
    expect(plan.serialize).toEqual([{ task_id: "b", depends_on: "a", task_glob: "src/net/tcp.ts", other_glob: "src/net/**" }]);
    const [wait] = plan.waiting;
    expect(wait).toEqual({ task_id: "b", reason: { kind: "overlap", on: "a", glob: "src/net/**" } });
    if (wait !== undefined) expect(describe_wait(wait.reason)).toBe("waits for a which also writes src/net/**");
  });

  it("keeps a candidate off the area of a running task", () => {
    const tasks = [task("run", { ...status("running"), area: ["src/**"] }), task("a", { area: ["src/x.ts"] }), task("b", { area: ["lib"] })];
    const plan = plan_wave({ tasks, edges: [], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["b"]);
    expect(plan.serialize).toEqual([{ task_id: "a", depends_on: "run", task_glob: "src/x.ts", other_glob: "src/**" }]);
  });

  it("reads a code-writing task without an area as the whole project", () => {
    const tasks = [task("all", { area: undefined, priority: 1 }), task("a"), task("b")];
    const plan = plan_wave({ tasks, edges: [], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["all"]);
    expect(plan.waiting.map((wait) => wait.reason)).toEqual([
      { kind: "overlap", on: "all", glob: "**" },
      { kind: "overlap", on: "all", glob: "**" },
    ]);
  });

  it("never lets a read-only task conflict", () => {
    const tasks = [
      task("writer", { area: undefined, ...status("running") }),
      task("review", { area: undefined, writes_code: false }),
      task("audit", { area: ["src/a"], writes_code: false }),
    ];
    const plan = plan_wave({ tasks, edges: [], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["review", "audit"]);
    expect(plan.serialize).toEqual([]);
  });

  it("honours a recorded row while the other task runs, and not after it ended", () => {
    const edges = [edge("b", "a", "serialization")];
    const area = ["src/net"];
    for (const [other, dispatch] of [
      ["running", []],
      ["completed", ["b"]],
      ["failed", ["b"]],
      ["interrupted", ["b"]],
    ] as const) {
      const plan = plan_wave({ tasks: [task("a", { ...status(other), area: ["lib"] }), task("b", { area })], edges, max_parallel: 4 });
      expect(plan.dispatch, `a ${other}`).toEqual(dispatch);
      expect(plan.serialize).toEqual([]);
    }
    const running = plan_wave({ tasks: [task("a", { ...status("running"), area: ["lib"] }), task("b", { area })], edges, max_parallel: 4 });
    expect(running.waiting).toEqual([{ task_id: "b", reason: { kind: "serialized", on: "a" } }]);
  });

  it("puts a task after the runnable task a row names, whatever their priorities", () => {
    const tasks = [task("low", { priority: 0, area: ["src"] }), task("high", { priority: 9, area: ["src/x"] })];
    const plan = plan_wave({ tasks, edges: [edge("high", "low", "serialization")], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["low"]);
    expect(plan.waiting).toEqual([{ task_id: "high", reason: { kind: "overlap", on: "low", glob: "src" } }]);
  });

  it("does not hold a task back for a row to a task that cannot start yet", () => {
    const tasks = [task("a"), task("b", { area: ["src/a"] })];
    const plan = plan_wave({ tasks, edges: [edge("a", "b", "conflict"), edge("b", "a")], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["a"]);
    expect(plan.waiting).toEqual([{ task_id: "b", reason: { kind: "dependency", on: ["a"] } }]);
  });

  it("breaks a cycle of recorded rows by rank instead of waiting forever", () => {
    const tasks = [task("a", { priority: 1 }), task("b", { priority: 2 })];
    const plan = plan_wave({ tasks, edges: [edge("a", "b", "conflict"), edge("b", "a", "conflict")], max_parallel: 4 });
    expect(plan.dispatch).toEqual(["b"]);
    expect(plan.waiting).toEqual([{ task_id: "a", reason: { kind: "serialized", on: "b" } }]);
  });

  it("orders by finished soft dependencies, then priority, then creation", () => {
    const tasks = [
      task("soft_waiting", { priority: 9 }),
      task("old", { priority: 1 }),
      task("new", { priority: 1 }),
      task("urgent", { priority: 5 }),
      task("other", status("running")),
    ];
    const plan = plan_wave({ tasks, edges: [edge("soft_waiting", "other", "soft")], max_parallel: 10 });
    expect(plan.dispatch).toEqual(["urgent", "old", "new", "soft_waiting"]);
    const finished = plan_wave({
      tasks: tasks.map((t) => (t.id === "other" ? { ...t, status: "cancelled" } : t)),
      edges: [edge("soft_waiting", "other", "soft")],
      max_parallel: 10,
    });
    expect(finished.dispatch[0]).toBe("soft_waiting");
  });

  it("never records a row that would close a cycle", () => {
    const tasks = [task("run", { ...status("running"), area: ["src"] }), task("a", { area: ["src/a"] })];
    const plan = plan_wave({ tasks, edges: [edge("run", "a", "soft")], max_parallel: 4 });
    expect(plan.dispatch).toEqual([]);
    expect(plan.serialize).toEqual([]);
    expect(plan.waiting).toEqual([{ task_id: "a", reason: { kind: "overlap", on: "run", glob: "src" } }]);
  });

  it("does not record a row that closes a cycle through a row added in the same wave", () => {
    const tasks = [
      task("r1", { ...status("running"), area: ["a"] }),
      task("r2", { ...status("running"), area: ["b"] }),
      task("c0", { area: ["a/c0"], priority: 9 }),
      task("w", { area: ["b/w"], priority: 8 }),
      task("t2", { area: ["a/t2"], priority: 7 }),
    ];
    const plan = plan_wave({ tasks, edges: [edge("r1", "w", "soft"), edge("r2", "t2", "soft")], max_parallel: 4 });
    // r1 → w → r2 → t2 once w waits for r2: a row t2 → r1 would close the circle.
    expect(plan.serialize.map((row) => `${row.task_id}→${row.depends_on}`)).toEqual(["c0→r1", "w→r2"]);
    expect(plan.waiting.map((wait) => wait.task_id)).toEqual(["c0", "w", "t2"]);
  });

  it("rejects a max_parallel below 1 and repeated task ids", () => {
    for (const max_parallel of [0, -1, 1.5, Number.NaN]) {
      const error = thrown(() => plan_wave({ tasks: [], edges: [], max_parallel }));
      expect(is_air_failure(error) && error.kind).toBe("user_error");
    }
    const error = thrown(() => plan_wave({ tasks: [task("a"), task("a")], edges: [], max_parallel: 1 }));
    expect(is_air_failure(error) && error.kind).toBe("scheduler_error");
  });
});

describe("describe_wait", () => {
  it("says why a task waits in one line", () => {
    expect(describe_wait({ kind: "dependency", on: ["tsk_a", "tsk_b"] })).toBe("waits for tsk_a, tsk_b to complete");
    expect(describe_wait({ kind: "dependency_failed", on: ["tsk_a"] })).toBe("cannot start: tsk_a ended without completing");
    expect(describe_wait({ kind: "overlap", on: "tsk_a", glob: "src/net/**" })).toBe("waits for tsk_a which also writes src/net/**");
    expect(describe_wait({ kind: "serialized", on: "tsk_a" })).toBe("waits for tsk_a, serialized after it");
    expect(describe_wait({ kind: "capacity" })).toBe("waits for a free worker slot");
    expect(describe_wait({ kind: "runs_alone" })).toBe("runs alone on the merged checkout once the running tasks end");
    expect(describe_wait({ kind: "alone", on: "tsk_a" })).toBe("waits for tsk_a, which runs alone");
  });

  it("starts a task that runs alone only once nothing runs, and nothing after it beside it", () => {
    const repair = task("repair", { alone: true, priority: 1 });
    const busy = plan_wave({ tasks: [task("r", status("running")), repair, task("a"), task("b")], edges: [], max_parallel: 4 });
    expect(busy.dispatch).toEqual([]);
    expect(busy.waiting).toEqual([
      { task_id: "repair", reason: { kind: "runs_alone" } },
      { task_id: "a", reason: { kind: "alone", on: "repair" } },
      { task_id: "b", reason: { kind: "alone", on: "repair" } },
    ]);
    const quiet = plan_wave({ tasks: [repair, task("a")], edges: [], max_parallel: 4 });
    expect(quiet.dispatch).toEqual(["repair"]);
    const running = plan_wave({ tasks: [{ ...repair, status: "running" }, task("a")], edges: [], max_parallel: 4 });
    expect(running).toMatchObject({ dispatch: [], waiting: [{ task_id: "a", reason: { kind: "alone", on: "repair" } }] });
  });

  it("lets the tasks before one that runs alone in the order start first", () => {
    const plan = plan_wave({
      tasks: [task("first", { priority: 2 }), task("repair", { alone: true, priority: 1 }), task("later")],
      edges: [],
      max_parallel: 4,
    });
    expect(plan.dispatch).toEqual(["first"]);
    expect(plan.waiting.map((wait) => wait.reason.kind)).toEqual(["runs_alone", "alone"]);
  });
});

import { createActor, fromPromise, toPromise } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { air_failure, make_air_error } from "../../src/contracts/errors.js";
import type { TaskStatus } from "../../src/contracts/status.js";
import { scheduler_machine, type TaskGraphSnapshot } from "../../src/machines/scheduler.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";

const NO_TASKS: Record<TaskStatus, number> = {
  pending: 0,
  running: 0,
  completed: 0,
  failed: 0,
  blocked: 0,
  cancelled: 0,
  interrupted: 0,
};

function graph(runnable: string[], counts: Partial<Record<TaskStatus, number>>): TaskGraphSnapshot {
  return { runnable, counts: { ...NO_TASKS, ...counts } };
}

/** A scheduler whose actors replay the given graph loads and record what they were asked to do. */
function scripted(loads: TaskGraphSnapshot[], runs: WorkerRunOutcome[], options: { hang_worker?: boolean } = {}) {
  const calls: string[] = [];
  const machine = scheduler_machine.provide({
    actors: {
      load_graph: fromPromise(async () => {
        const next = loads.shift();
        if (next === undefined) throw air_failure({ kind: "scheduler_error", message: "graph could not be read" });
        calls.push("load_graph");
        return next;
      }),
      dispatch: fromPromise(async ({ input }) => {
        calls.push(`dispatch ${input.task_id}`);
        return { agent_id: `agt_for_${input.task_id}` };
      }),
      run_worker: fromPromise(async ({ input }) => {
        calls.push(`run ${input.task_id} by ${input.agent_id}`);
        if (options.hang_worker) await new Promise(() => undefined);
        return runs.shift()!;
      }),
      collect: fromPromise(async ({ input }) => void calls.push(`collect ${input.task_id} ${input.run.status}`)),
      repair: fromPromise(async ({ input }) => void calls.push(`repair ${input.task_id}`)),
      cancel_task: fromPromise(async ({ input }) => void calls.push(`cancel ${input.task_id} (${input.reason})`)),
    },
  });
  return { machine, calls };
}

const lost_run: WorkerRunOutcome = { status: "lost", error: make_air_error({ kind: "agent_error", message: "worker lost" }) };

describe("scheduler machine", () => {
  it("runs the runnable task, collects, re-reads the graph and completes", async () => {
    const { machine, calls } = scripted([graph(["tsk_a"], { pending: 1 }), graph([], { completed: 1 })], [lost_run]);
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    const result = await toPromise(actor);
    expect(result.status).toBe("completed");
    expect(calls).toEqual(["load_graph", "dispatch tsk_a", "run tsk_a by agt_for_tsk_a", "collect tsk_a lost", "repair tsk_a", "load_graph"]);
  });

  it("is blocked when nothing is runnable but work remains", async () => {
    const { machine } = scripted([graph([], { blocked: 1 })], []);
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    expect((await toPromise(actor)).status).toBe("blocked");
  });

  it("is blocked, with the error, when the graph cannot be loaded", async () => {
    const { machine } = scripted([], []);
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    const result = await toPromise(actor);
    expect(result.status).toBe("blocked");
    expect(result.error?.message).toBe("graph could not be read");
  });

  it("cancels the running task when told to while monitoring", async () => {
    const { machine, calls } = scripted([graph(["tsk_a"], { pending: 1 })], [], { hang_worker: true });
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(actor.getSnapshot().value).toBe("monitoring");
    actor.send({ type: "scheduler.cancel", reason: "user pressed ctrl-c" });
    const result = await toPromise(actor);
    expect(result.status).toBe("cancelled");
    expect(calls.at(-1)).toBe("cancel tsk_a (user pressed ctrl-c)");
  });

  it("reaches every state (model-based: shortest paths over run, actor results and cancel)", () => {
    const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as never;
    const failed = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(id) }) as never;
    const events = [
      { type: "scheduler.run" } as const,
      { type: "scheduler.cancel", reason: "test" } as const,
      done("load_graph", graph(["tsk_a"], { pending: 1 })),
      done("load_graph", graph([], { completed: 1 })),
      done("load_graph", graph([], { blocked: 1 })),
      failed("load_graph"),
      done("dispatch", { agent_id: "agt_1" }),
      done("run_worker", lost_run),
      failed("run_worker"),
      done("collect"),
      done("repair"),
      done("cancel_task"),
    ];
    const paths = getShortestPaths(scheduler_machine, { events, serializeState: (state) => JSON.stringify(state.value) });
    const reached = new Set(paths.map((path) => String(path.state.value)));
    expect([...reached].sort()).toEqual(
      [
        "blocked",
        "cancelled",
        "cancelling",
        "collecting_results",
        "completed",
        "dispatching",
        "idle",
        "loading_graph",
        "monitoring",
        "repairing_or_continuing",
      ].sort(),
    );
  });
});

import { createActor, fromPromise, toPromise, type AnyActorRef } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { air_failure, make_air_error } from "../../src/contracts/errors.js";
import type { TaskStatus } from "../../src/contracts/status.js";
import { scheduler_machine, type MergeOutcome, type TaskGraphSnapshot, type WaveDecision } from "../../src/machines/scheduler.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";

const NO_TASKS: Record<TaskStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 };

function graph(runnable: string[], counts: Partial<Record<TaskStatus, number>>): TaskGraphSnapshot {
  return { runnable, counts: { ...NO_TASKS, ...counts } };
}

const lost_run: WorkerRunOutcome = { status: "lost", error: make_air_error({ kind: "agent_error", message: "worker lost" }) };

/** A promise with its resolve in hand, so a test decides when each worker run and merge ends. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

type Script = {
  loads: TaskGraphSnapshot[];
  waves: WaveDecision[];
  /** Task ids whose collected run goes to the merge queue. */
  merge?: string[];
};

/** A scheduler whose actors replay the script and record what they were asked to do, in order. */
function scripted(script: Script) {
  const calls: string[] = [];
  const runs = new Map<string, ReturnType<typeof deferred<WorkerRunOutcome>>>();
  const merges: ReturnType<typeof deferred<MergeOutcome>>[] = [];
  const run_of = (task_id: string) => {
    const existing = runs.get(task_id);
    if (existing !== undefined) return existing;
    const created = deferred<WorkerRunOutcome>();
    runs.set(task_id, created);
    return created;
  };
  const machine = scheduler_machine.provide({
    actors: {
      recover: fromPromise<void, void>(async () => {
        calls.push("recover");
      }),
      load_graph: fromPromise(async () => {
        const next = script.loads.shift();
        if (next === undefined) throw air_failure({ kind: "scheduler_error", message: "graph could not be read" });
        calls.push("load_graph");
        return next;
      }),
      plan_wave: fromPromise(async ({ input }) => {
        calls.push(`plan_wave (running ${input.running.join(",") || "none"})`);
        return script.waves.shift() ?? { dispatch: [] };
      }),
      dispatch: fromPromise(async ({ input }) => {
        calls.push(`dispatch ${input.task_ids.join(",")}`);
        return input.task_ids.map((task_id) => ({ task_id, agent_id: `agt_${task_id}` }));
      }),
      run_worker: fromPromise(async ({ input, signal }) => {
        calls.push(`run ${input.task_id}`);
        signal.addEventListener("abort", () => calls.push(`stopped ${input.task_id}`));
        return run_of(input.task_id).promise;
      }),
      collect: fromPromise(async ({ input }) => {
        calls.push(`collect ${input.task_id} ${input.run.status}`);
        return { gate: false, merge: (script.merge ?? []).includes(input.task_id) };
      }),
      review: fromPromise(async ({ input }) => {
        calls.push(`review ${input.task_id}`);
        return { passed: true };
      }),
      assess_architecture: fromPromise(async ({ input }) => {
        calls.push(`assess ${input.task_id}`);
        return { passed: true };
      }),
      settle: fromPromise(async ({ input }) => void calls.push(`settle ${input.task_id}`)),
      merge: fromPromise(async ({ input }) => {
        calls.push(`merge ${input.task_id}`);
        const merge = deferred<MergeOutcome>();
        merges.push(merge);
        return merge.promise;
      }),
      repair: fromPromise(async ({ input }) => void calls.push(`repair ${input.task_id}${input.merge === undefined ? "" : ` after ${input.merge.kind}`}`)),
      cancel_tasks: fromPromise(async ({ input }) => void calls.push(`cancel ${input.task_ids.join(",")} (${input.reason})`)),
    },
  });
  return { machine, calls, finish: (task_id: string, outcome: WorkerRunOutcome = lost_run) => run_of(task_id).resolve(outcome), merges };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
const children_of = (actor: AnyActorRef) => Object.keys(actor.getSnapshot().children);

describe("scheduler machine", () => {
  it("runs a wave's tasks side by side, collects each as it ends and completes when the graph is done", async () => {
    const { machine, calls, finish } = scripted({
      loads: [graph(["tsk_a", "tsk_b", "tsk_c"], { pending: 3 }), graph([], { running: 2 }), graph([], { running: 1 }), graph([], { completed: 3 })],
      waves: [{ dispatch: ["tsk_a", "tsk_b", "tsk_c"] }],
    });
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    expect(children_of(actor).sort()).toEqual(["agt_tsk_a", "agt_tsk_b", "agt_tsk_c"]);
    for (const task of ["tsk_b", "tsk_c", "tsk_a"]) {
      finish(task);
      await settle();
    }
    const result = await toPromise(actor);
    expect(result.status).toBe("completed");
    expect(calls.filter((call) => call.startsWith("collect"))).toEqual(["collect tsk_b lost", "collect tsk_c lost", "collect tsk_a lost"]);
    expect(calls.slice(0, 5)).toEqual(["load_graph", "plan_wave (running none)", "dispatch tsk_a,tsk_b,tsk_c", "run tsk_a", "run tsk_b"]);
    expect(calls).toContain("plan_wave (running tsk_a,tsk_c)");
  });

  it("stops the child of a finished run at once: the children are only the live agents", async () => {
    const { machine, finish } = scripted({
      loads: [graph(["tsk_a", "tsk_b"], { pending: 2 }), graph([], { running: 1 }), graph([], { completed: 2 })],
      waves: [{ dispatch: ["tsk_a", "tsk_b"] }],
    });
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    finish("tsk_a");
    await settle();
    expect(children_of(actor)).toEqual(["agt_tsk_b"]);
    finish("tsk_b");
    await toPromise(actor);
  });

  it("queues a run that ends during a merge and collects it after, one merge at a time", async () => {
    const { machine, calls, finish, merges } = scripted({
      loads: [graph(["tsk_a", "tsk_b"], { pending: 2 }), graph([], { running: 1 }), graph([], { completed: 2 })],
      waves: [{ dispatch: ["tsk_a", "tsk_b"] }],
      merge: ["tsk_a", "tsk_b"],
    });
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    finish("tsk_a");
    await settle();
    expect(actor.getSnapshot().value).toBe("merging");
    finish("tsk_b");
    await settle();
    expect(actor.getSnapshot().context.finished.map((run) => run.task_id)).toEqual(["tsk_b"]);
    merges[0]?.resolve({ kind: "merged" });
    await settle();
    expect(actor.getSnapshot().value).toBe("merging");
    merges[1]?.resolve({ kind: "conflicted" });
    expect((await toPromise(actor)).status).toBe("completed");
    expect(calls.filter((call) => /^(merge|repair)/.test(call))).toEqual([
      "merge tsk_a",
      "repair tsk_a after merged",
      "merge tsk_b",
      "repair tsk_b after conflicted",
    ]);
  });

  it("starts nothing more once the run is held back, lets the running agents finish, then is blocked with the reason", async () => {
    const budget = make_air_error({ kind: "user_error", message: "the run's budget of $1.00 is spent" });
    const { machine, calls, finish } = scripted({
      loads: [graph(["tsk_a", "tsk_b"], { pending: 2 }), graph(["tsk_b"], { running: 1, pending: 1 })],
      waves: [{ dispatch: ["tsk_a"] }, { dispatch: [], held_back: budget }],
    });
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    finish("tsk_a");
    const result = await toPromise(actor);
    expect(result).toMatchObject({ status: "blocked", error: { message: "the run's budget of $1.00 is spent" } });
    expect(calls.filter((call) => call.startsWith("dispatch"))).toEqual(["dispatch tsk_a"]);
  });

  it("is blocked when nothing is runnable but work remains", async () => {
    const { machine } = scripted({ loads: [graph([], { blocked: 1 })], waves: [] });
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    expect((await toPromise(actor)).status).toBe("blocked");
  });

  it("is blocked, with the error, when the graph cannot be loaded", async () => {
    const { machine } = scripted({ loads: [], waves: [] });
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    const result = await toPromise(actor);
    expect(result.status).toBe("blocked");
    expect(result.error?.message).toBe("graph could not be read");
  });

  it("recovers before it reads the graph when started by a resume", async () => {
    const { machine, calls } = scripted({ loads: [graph([], { completed: 1 })], waves: [] });
    const actor = createActor(machine, { input: { recovering: true } }).start();
    expect((await toPromise(actor)).status).toBe("completed");
    expect(calls.slice(0, 2)).toEqual(["recover", "load_graph"]);
  });

  it("cancels every running agent's task when told to while monitoring", async () => {
    const { machine, calls } = scripted({ loads: [graph(["tsk_a", "tsk_b"], { pending: 2 })], waves: [{ dispatch: ["tsk_a", "tsk_b"] }] });
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.run" });
    await settle();
    expect(actor.getSnapshot().value).toBe("monitoring");
    actor.send({ type: "scheduler.cancel", reason: "user pressed ctrl-c" });
    const result = await toPromise(actor);
    expect(result.status).toBe("cancelled");
    expect(calls).toContain("stopped tsk_a");
    expect(calls).toContain("stopped tsk_b");
    expect(calls.at(-1)).toBe("cancel tsk_a,tsk_b (user pressed ctrl-c)");
  });

  it("lets a merge in progress end before it cancels: a merge is all or nothing", async () => {
    const { machine, calls, finish, merges } = scripted({
      loads: [graph(["tsk_a", "tsk_b"], { pending: 2 })],
      waves: [{ dispatch: ["tsk_a", "tsk_b"] }],
      merge: ["tsk_a"],
    });
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    finish("tsk_a");
    await settle();
    actor.send({ type: "scheduler.cancel", reason: "stop" });
    await settle();
    expect(actor.getSnapshot().value).toBe("merging");
    merges[0]?.resolve({ kind: "merged" });
    expect((await toPromise(actor)).status).toBe("cancelled");
    expect(calls.filter((call) => !call.startsWith("stopped")).slice(-2)).toEqual(["repair tsk_a after merged", "cancel tsk_b,tsk_a (stop)"]);
  });

  it("reaches every state (model-based: shortest paths over run, actor results, agent ends and cancel)", () => {
    const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output, actorId: id }) as never;
    const failed = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(id), actorId: id }) as never;
    const events = [
      { type: "scheduler.run" } as const,
      { type: "scheduler.cancel", reason: "test" } as const,
      done("recover"),
      done("load_graph", graph(["tsk_a"], { pending: 1 })),
      done("load_graph", graph([], { completed: 1 })),
      done("load_graph", graph([], { blocked: 1 })),
      failed("load_graph"),
      done("plan_wave", { dispatch: ["tsk_a"] }),
      done("plan_wave", { dispatch: [] }),
      done("plan_wave", { dispatch: [], held_back: make_air_error({ kind: "user_error", message: "budget" }) }),
      done("dispatch", [{ task_id: "tsk_a", agent_id: "agt_1" }]),
      done("agt_1", lost_run),
      failed("agt_1"),
      done("collect", { gate: false, merge: true }),
      done("collect", { gate: false, merge: false }),
      done("collect", { gate: true, merge: true }),
      done("collect", { gate: true, merge: false }),
      done("review", { passed: true }),
      done("review", { passed: false }),
      done("assess_architecture", { passed: true }),
      done("assess_architecture", { passed: false, replan: { task_ids: ["tsk_a"], reason: "the interface changed" } }),
      done("settle"),
      done("merge", { kind: "merged" }),
      failed("merge"),
      done("repair"),
      done("cancel_tasks"),
    ];
    for (const input of [{}, { recovering: true }]) {
      const paths = getShortestPaths(scheduler_machine, {
        input,
        events,
        serializeState: (state) =>
          JSON.stringify([
            state.value,
            state.context.graph,
            state.context.running.length,
            state.context.finished.length,
            state.context.collected,
            state.context.replan,
            state.context.cancel_reason,
          ]),
      });
      const reached = new Set(paths.map((path) => String(path.state.value)));
      expect([...reached].sort()).toEqual(
        [
          "blocked",
          "cancelled",
          "cancelling",
          "collecting_results",
          "completed",
          "dispatching",
          "gating_architecture",
          "idle",
          "loading_graph",
          "merging",
          "monitoring",
          "planning_wave",
          "repairing_or_continuing",
          "reviewing",
          "settling",
          ...(input.recovering === true ? ["recovering"] : []),
        ]
          .filter((state) => input.recovering !== true || state !== "idle")
          .sort(),
      );
    }
  });
});

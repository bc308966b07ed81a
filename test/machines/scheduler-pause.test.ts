import { createActor, fromPromise, toPromise } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { make_air_error } from "../../src/contracts/errors.js";
import type { TaskStatus } from "../../src/contracts/status.js";
import { scheduler_machine, type TaskGraphSnapshot, type WaveDecision } from "../../src/machines/scheduler.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";

const NO_TASKS: Record<TaskStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 };
const graph = (runnable: string[], counts: Partial<Record<TaskStatus, number>>): TaskGraphSnapshot => ({ runnable, counts: { ...NO_TASKS, ...counts } });
const lost_run: WorkerRunOutcome = { status: "lost", error: make_air_error({ kind: "agent_error", message: "worker lost" }) };
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A scheduler whose graph and waves are given in order, whose runs end when the test says, recording its calls. */
function scripted(loads: TaskGraphSnapshot[], waves: WaveDecision[]) {
  const calls: string[] = [];
  const ends = new Map<string, (outcome: WorkerRunOutcome) => void>();
  const machine = scheduler_machine.provide({
    actors: {
      load_graph: fromPromise(async () => {
        calls.push("load_graph");
        return loads.shift() ?? graph([], { completed: 1 });
      }),
      plan_wave: fromPromise(async () => {
        const wave = waves.shift() ?? { dispatch: [] };
        calls.push(`plan_wave ${wave.dispatch.join(",") || "nothing"}`);
        return wave;
      }),
      dispatch: fromPromise(async ({ input }) => input.task_ids.map((task_id) => ({ task_id, agent_id: `agt_${task_id}` }))),
      run_worker: fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(({ input, signal }) => {
        signal.addEventListener("abort", () => calls.push(`stopped ${input.task_id}`));
        return new Promise((resolve) => ends.set(input.task_id, resolve));
      }),
      collect: fromPromise(async ({ input }) => {
        calls.push(`collect ${input.task_id}`);
        return { gate: false, merge: false };
      }),
      repair: fromPromise(async ({ input }) => void calls.push(`repair ${input.task_id}`)),
      cancel_tasks: fromPromise(async ({ input }) => void calls.push(`cancel ${input.task_ids.join(",")} (${input.reason})`)),
    },
  });
  return { machine, calls, finish: (task_id: string) => ends.get(task_id)?.(lost_run) };
}

describe("scheduler machine: pause, resume and stopping tasks for a replan", () => {
  it("plans no new wave while paused, lets the running agents finish, and plans again on resume", async () => {
    const { machine, calls, finish } = scripted(
      [
        graph(["tsk_a"], { pending: 2 }),
        graph(["tsk_b"], { completed: 1, pending: 1 }),
        graph(["tsk_b"], { completed: 1, pending: 1 }),
        graph([], { completed: 2 }),
      ],
      [{ dispatch: ["tsk_a"] }, { dispatch: ["tsk_b"] }],
    );
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    actor.send({ type: "scheduler.pause" });
    finish("tsk_a");
    await settle();
    expect(actor.getSnapshot().value).toBe("monitoring");
    expect(calls).toEqual(["load_graph", "plan_wave tsk_a", "collect tsk_a", "repair tsk_a", "load_graph"]);
    actor.send({ type: "scheduler.resume" });
    await settle();
    expect(calls.slice(5)).toEqual(["load_graph", "plan_wave tsk_b"]);
    finish("tsk_b");
    expect((await toPromise(actor)).status).toBe("completed");
  });

  it("stays paused with nothing running instead of ending blocked or completed", async () => {
    const { machine } = scripted([graph([], { pending: 1 })], []);
    const actor = createActor(machine, { input: {} }).start();
    actor.send({ type: "scheduler.pause" });
    actor.send({ type: "scheduler.run" });
    await settle();
    expect(actor.getSnapshot().status).toBe("active");
    expect(actor.getSnapshot().value).toBe("monitoring");
    actor.send({ type: "scheduler.cancel", reason: "stop" });
    expect((await toPromise(actor)).status).toBe("cancelled");
  });

  it("stops exactly the agents of the tasks a replan cancelled, cancels those tasks and keeps the others running", async () => {
    const { machine, calls, finish } = scripted(
      [graph(["tsk_a", "tsk_b"], { pending: 3 }), graph([], { running: 1, cancelled: 1, pending: 1 }), graph([], { completed: 1, cancelled: 2 })],
      [{ dispatch: ["tsk_a", "tsk_b"] }],
    );
    const actor = createActor(machine, { input: { autostart: true } }).start();
    await settle();
    actor.send({ type: "scheduler.pause" });
    actor.send({ type: "scheduler.stop_tasks", task_ids: ["tsk_b", "tsk_c"], reason: "the requirement changed" });
    await settle();
    expect(Object.keys(actor.getSnapshot().children)).toEqual(["agt_tsk_a"]);
    expect(calls).toContain("stopped tsk_b");
    expect(calls).not.toContain("stopped tsk_a");
    expect(calls).toContain("cancel tsk_b,tsk_c (the requirement changed)");
    actor.send({ type: "scheduler.resume" });
    finish("tsk_a");
    expect((await toPromise(actor)).status).toBe("completed");
    expect(calls.filter((call) => call.startsWith("collect"))).toEqual(["collect tsk_a"]);
  });

  it("reaches its pause and stop states (model-based)", () => {
    const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output, actorId: id }) as never;
    const events = [
      { type: "scheduler.run" } as const,
      { type: "scheduler.pause" } as const,
      { type: "scheduler.resume" } as const,
      { type: "scheduler.stop_tasks", task_ids: ["tsk_a"], reason: "replan" } as const,
      done("load_graph", graph(["tsk_a"], { pending: 1 })),
      done("plan_wave", { dispatch: ["tsk_a"] }),
      done("dispatch", [{ task_id: "tsk_a", agent_id: "agt_1" }]),
      done("cancel_stopped"),
    ];
    const paths = getShortestPaths(scheduler_machine, {
      input: {},
      events,
      serializeState: (state) => JSON.stringify([state.value, state.context.paused, state.context.running.length > 0, state.context.stopped]),
    });
    const paused_monitoring = paths.find((path) => path.state.matches("monitoring") && path.state.context.paused && path.state.context.running.length > 0);
    expect(paused_monitoring).toBeDefined();
    const stopping = paths.find((path) => path.state.matches("cancelling_stopped"));
    expect(stopping?.steps.map((step) => step.event.type)).toContain("scheduler.stop_tasks");
    expect(paths.some((path) => path.state.matches("monitoring") && path.state.context.running.length === 0 && path.state.context.paused)).toBe(true);
  });
});

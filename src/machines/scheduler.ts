import { assign, setup } from "xstate";
import { to_air_error, type AirError } from "../contracts/errors.js";
import type { TaskStatus } from "../contracts/status.js";
import { error_of, held } from "./state-data.js";
import { unprovided } from "./unprovided.js";
import type { WorkerRunOutcome } from "./worker-run-settlement.js";

/** What the Scheduler learns from the session database on each load (never from bus traffic, INV-5). */
export type TaskGraphSnapshot = {
  readonly runnable: readonly string[];
  readonly counts: Readonly<Record<TaskStatus, number>>;
};

export type SchedulerRunResult = {
  readonly status: "completed" | "blocked" | "cancelled";
  readonly counts: Readonly<Record<TaskStatus, number>> | undefined;
  readonly error: AirError | undefined;
};

type SchedulerContext = {
  /** Invoked by the Main Agent for one execution request, the Scheduler starts without a `scheduler.run`. */
  autostart: boolean;
  status: SchedulerRunResult["status"] | undefined;
  graph: TaskGraphSnapshot | undefined;
  task_id: string | undefined;
  agent_id: string | undefined;
  run: WorkerRunOutcome | undefined;
  error: AirError | undefined;
};

export type SchedulerEvent = { type: "scheduler.run" } | { type: "scheduler.cancel"; reason: string };

/** The actor that runs one task's worker, provided by the runtime (the worker-run machine with its bridge). */
const run_worker = unprovided<WorkerRunOutcome, { task_id: string; agent_id: string }>("run_worker");
export type RunWorkerLogic = typeof run_worker;

/** The task picked by `pick_next_task` on the way into dispatching (see `held`). */
const task_in_hand = (context: SchedulerContext) => held(context.task_id, "scheduler", "task");

const all_done = (graph: TaskGraphSnapshot | undefined) =>
  graph !== undefined &&
  graph.runnable.length === 0 &&
  Object.entries(graph.counts).every(([status, count]) => count === 0 || status === "completed" || status === "cancelled");

/**
 * The Scheduler of seeds 000 §20.2, one worker at a time. Every decision re-reads the task graph from the
 * database (loading_graph), so a restarted runtime resumes from rows alone.
 */
export const scheduler_machine = setup({
  types: {
    context: {} as SchedulerContext,
    events: {} as SchedulerEvent,
    output: {} as SchedulerRunResult,
    input: {} as { autostart?: boolean } | undefined,
  },
  actors: {
    load_graph: unprovided<TaskGraphSnapshot, void>("load_graph"),
    dispatch: unprovided<{ agent_id: string }, { task_id: string }>("dispatch"),
    run_worker,
    collect: unprovided<void, { task_id: string; run: WorkerRunOutcome }>("collect"),
    repair: unprovided<void, { task_id: string }>("repair"),
    cancel_task: unprovided<void, { task_id: string | undefined; reason: string }>("cancel_task"),
  },
  guards: {
    autostart: ({ context }) => context.autostart,
    has_runnable: ({ context }) => (context.graph?.runnable.length ?? 0) > 0,
    all_done: ({ context }) => all_done(context.graph),
  },
  actions: {
    remember_error: assign({ error: (_, params: { error: unknown }) => to_air_error(params.error, "scheduler_error") }),
    pick_next_task: assign({ task_id: ({ context }) => context.graph?.runnable[0], agent_id: undefined, run: undefined }),
    settle: assign({ status: (_, status: SchedulerRunResult["status"]) => status }),
  },
}).createMachine({
  id: "scheduler",
  initial: "idle",
  context: ({ input }) => ({
    autostart: input?.autostart ?? false,
    status: undefined,
    graph: undefined,
    task_id: undefined,
    agent_id: undefined,
    run: undefined,
    error: undefined,
  }),
  states: {
    idle: {
      always: { guard: "autostart", target: "loading_graph" },
      on: { "scheduler.run": "loading_graph" },
    },
    loading_graph: {
      invoke: {
        id: "load_graph",
        src: "load_graph",
        onDone: {
          target: "planning_wave",
          actions: assign({ graph: ({ event }) => event.output }),
        },
        onError: { target: "blocked", actions: { type: "remember_error", params: error_of } },
      },
    },
    planning_wave: {
      always: [{ guard: "has_runnable", target: "dispatching", actions: "pick_next_task" }, { guard: "all_done", target: "completed" }, { target: "blocked" }],
    },
    dispatching: {
      invoke: {
        id: "dispatch",
        src: "dispatch",
        input: ({ context }) => ({ task_id: task_in_hand(context) }),
        onDone: { target: "monitoring", actions: assign({ agent_id: ({ event }) => event.output.agent_id }) },
        onError: { target: "blocked", actions: { type: "remember_error", params: error_of } },
      },
    },
    monitoring: {
      invoke: {
        id: "run_worker",
        src: "run_worker",
        input: ({ context }) => ({ task_id: task_in_hand(context), agent_id: held(context.agent_id, "scheduler", "agent") }),
        onDone: { target: "collecting_results", actions: assign({ run: ({ event }) => event.output }) },
        onError: {
          target: "collecting_results",
          actions: assign({ run: ({ event }) => ({ status: "failed", error: to_air_error(event.error, "agent_error") }) }),
        },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    collecting_results: {
      invoke: {
        id: "collect",
        src: "collect",
        input: ({ context }) => ({ task_id: task_in_hand(context), run: held(context.run, "scheduler", "worker run") }),
        onDone: "repairing_or_continuing",
        onError: { target: "blocked", actions: { type: "remember_error", params: error_of } },
      },
    },
    repairing_or_continuing: {
      invoke: {
        id: "repair",
        src: "repair",
        input: ({ context }) => ({ task_id: task_in_hand(context) }),
        onDone: "loading_graph",
        onError: { target: "blocked", actions: { type: "remember_error", params: error_of } },
      },
    },
    cancelling: {
      invoke: {
        id: "cancel_task",
        src: "cancel_task",
        input: ({ context, event }) => ({
          task_id: context.task_id,
          reason: event.type === "scheduler.cancel" ? event.reason : "cancelled",
        }),
        onDone: "cancelled",
        onError: { target: "cancelled", actions: { type: "remember_error", params: error_of } },
      },
    },
    completed: { type: "final", entry: { type: "settle", params: "completed" } },
    blocked: { type: "final", entry: { type: "settle", params: "blocked" } },
    cancelled: { type: "final", entry: { type: "settle", params: "cancelled" } },
  },
  output: ({ context }) => ({ status: context.status ?? "blocked", counts: context.graph?.counts, error: context.error }),
});

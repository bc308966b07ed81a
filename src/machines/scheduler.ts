import { assign, setup } from "xstate";
import { to_air_error, type AirError } from "../contracts/errors.js";
import type { TaskStatus } from "../contracts/status.js";
import { unprovided } from "./unprovided.js";
import type { WorkerRunOutcome } from "./worker-run.js";

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

const all_done = (graph: TaskGraphSnapshot | undefined) =>
  graph !== undefined && graph.runnable.length === 0 && Object.entries(graph.counts).every(
    ([status, count]) => count === 0 || status === "completed" || status === "cancelled",
  );

/**
 * The Scheduler of seeds 000 §20.2, one worker at a time. Every decision re-reads the task graph from the
 * database (LOADING_GRAPH), so a restarted runtime resumes from rows alone.
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
    run_worker: unprovided<WorkerRunOutcome, { task_id: string; agent_id: string }>("run_worker"),
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
    // Runs only on `xstate.error.actor.*` events, which carry the actor's error.
    remember_error: assign({
      error: ({ event }) => to_air_error((event as unknown as { error: unknown }).error, "scheduler_error"),
    }),
    pick_next_task: assign({ task_id: ({ context }) => context.graph?.runnable[0], agent_id: undefined, run: undefined }),
    settle: assign({ status: (_, status: SchedulerRunResult["status"]) => status }),
  },
}).createMachine({
  id: "scheduler",
  initial: "IDLE",
  context: ({ input }) => ({
    autostart: input?.autostart ?? false,
    status: undefined, graph: undefined, task_id: undefined, agent_id: undefined, run: undefined, error: undefined }),
  states: {
    IDLE: {
      always: { guard: "autostart", target: "LOADING_GRAPH" },
      on: { "scheduler.run": "LOADING_GRAPH" },
    },
    LOADING_GRAPH: {
      invoke: {
        id: "load_graph",
        src: "load_graph",
        onDone: {
          target: "PLANNING_WAVE",
          actions: assign({ graph: ({ event }) => event.output }),
        },
        onError: { target: "BLOCKED", actions: "remember_error" },
      },
    },
    PLANNING_WAVE: {
      always: [
        { guard: "has_runnable", target: "DISPATCHING", actions: "pick_next_task" },
        { guard: "all_done", target: "COMPLETED" },
        { target: "BLOCKED" },
      ],
    },
    DISPATCHING: {
      invoke: {
        id: "dispatch",
        src: "dispatch",
        input: ({ context }) => ({ task_id: context.task_id! }),
        onDone: { target: "MONITORING", actions: assign({ agent_id: ({ event }) => event.output.agent_id }) },
        onError: { target: "BLOCKED", actions: "remember_error" },
      },
    },
    MONITORING: {
      invoke: {
        id: "run_worker",
        src: "run_worker",
        input: ({ context }) => ({ task_id: context.task_id!, agent_id: context.agent_id! }),
        onDone: { target: "COLLECTING_RESULTS", actions: assign({ run: ({ event }) => event.output }) },
        onError: {
          target: "COLLECTING_RESULTS",
          actions: assign({ run: ({ event }) => ({ status: "failed", error: to_air_error(event.error, "agent_error") }) }),
        },
      },
      on: { "scheduler.cancel": "CANCELLING" },
    },
    COLLECTING_RESULTS: {
      invoke: {
        id: "collect",
        src: "collect",
        input: ({ context }) => ({ task_id: context.task_id!, run: context.run! }),
        onDone: "REPAIRING_OR_CONTINUING",
        onError: { target: "BLOCKED", actions: "remember_error" },
      },
    },
    REPAIRING_OR_CONTINUING: {
      invoke: {
        id: "repair",
        src: "repair",
        input: ({ context }) => ({ task_id: context.task_id! }),
        onDone: "LOADING_GRAPH",
        onError: { target: "BLOCKED", actions: "remember_error" },
      },
    },
    CANCELLING: {
      invoke: {
        id: "cancel_task",
        src: "cancel_task",
        input: ({ context, event }) => ({
          task_id: context.task_id,
          reason: event.type === "scheduler.cancel" ? event.reason : "cancelled",
        }),
        onDone: "CANCELLED",
        onError: { target: "CANCELLED", actions: "remember_error" },
      },
    },
    COMPLETED: { type: "final", entry: { type: "settle", params: "completed" } },
    BLOCKED: { type: "final", entry: { type: "settle", params: "blocked" } },
    CANCELLED: { type: "final", entry: { type: "settle", params: "cancelled" } },
  },
  output: ({ context }) => ({ status: context.status ?? "blocked", counts: context.graph?.counts, error: context.error }),
});

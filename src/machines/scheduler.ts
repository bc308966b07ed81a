import { assign, enqueueActions, setup, type DoneActorEvent, type ErrorActorEvent } from "xstate";
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

/**
 * The wave the planner chose from rows: the tasks to start now. Empty with a `held_back` error when the run
 * may start nothing more (its budget is spent); the running agents still finish.
 */
export type WaveDecision = { readonly dispatch: readonly string[]; readonly held_back?: AirError };

/** One agent the Scheduler started for a task (its workspace, if any, is in the task's rows). */
export type Dispatched = { readonly task_id: string; readonly agent_id: string };

/**
 * What collecting a finished run found. `gate`: the run completed code-changing work, which the review gate and
 * the architecture gate see before it lands; `merge`: its work waits in a workspace for the merge queue. Such a
 * task is settled by its merge (or its gates), not before: work that did not land is not complete.
 */
export type Collected = { readonly gate: boolean; readonly merge: boolean };

/** The affected tasks the Architecture Designer (or a requirement change) sent back to be planned again. */
type ReplanRequest = { readonly task_ids: readonly string[]; readonly reason: string };

/**
 * How a gate ended. Passed: the work goes on to the next gate, then the merge (or, in the main checkout, its
 * completion). Not passed: the gate has settled the task itself (failed for a repair, blocked for the user,
 * interrupted for a replan), and `replan` says what to plan again.
 */
export type GateOutcome = { readonly passed: boolean; readonly replan?: ReplanRequest };

/** How a merge through the queue ended; anything but `merged` left the main checkout as it was. */
export type MergeOutcome = { readonly kind: "merged" | "conflicted" | "verification_failed" };

export type SchedulerRunResult = {
  readonly status: "completed" | "blocked" | "cancelled";
  readonly counts: Readonly<Record<TaskStatus, number>> | undefined;
  readonly error: AirError | undefined;
  /** Blocked because a gate sent tasks back to be planned again: the Main Agent revises and replans them. */
  readonly replan?: ReplanRequest;
};

export type Finished = { readonly task_id: string; readonly run: WorkerRunOutcome };

type SchedulerContext = {
  /** Invoked by the Main Agent for one execution request, the Scheduler starts without a `scheduler.run`. */
  autostart: boolean;
  /** Started by `air resume`: workspaces and cut-off merges are recovered before the graph is read. */
  recovering: boolean;
  status: SchedulerRunResult["status"] | undefined;
  graph: TaskGraphSnapshot | undefined;
  wave: WaveDecision | undefined;
  /** The live agents, one child actor each (its id is the agent id); pending and finished tasks stay rows. */
  running: readonly Dispatched[];
  /** Runs that ended while the Scheduler was busy with another, collected one at a time in arrival order. */
  finished: readonly Finished[];
  in_hand: Finished | undefined;
  collected: Collected | undefined;
  merge: MergeOutcome | undefined;
  replan: ReplanRequest | undefined;
  /** A cancel that arrived while a run was being collected, merged or retried: honoured once that step ends. */
  cancel_reason: string | undefined;
  /** `scheduler.pause`: no new wave is planned until `scheduler.resume`; the running agents go on. */
  paused: boolean;
  /** Tasks `scheduler.stop_tasks` took out of the run (their agents already stopped), cancelled from `monitoring`. */
  stopped: { readonly task_ids: readonly string[]; readonly reason: string } | undefined;
  error: AirError | undefined;
};

export type SchedulerEvent =
  | { type: "scheduler.run" }
  | { type: "scheduler.cancel"; reason: string }
  /** A requirement change is being weighed (seeds 000 §20.1 INTERRUPTING): start nothing new, let the running agents go on. */
  | { type: "scheduler.pause" }
  | { type: "scheduler.resume" }
  /** A replan cancelled these tasks: their running agents are stopped (workspaces kept until cleanup), the tasks cancelled. */
  | { type: "scheduler.stop_tasks"; task_ids: readonly string[]; reason: string }
  | DoneActorEvent<WorkerRunOutcome, string>
  | ErrorActorEvent<unknown, string>;

/** The actor that runs one task's worker, provided by the runtime (the worker-run machine with its bridge). */
const run_worker = unprovided<WorkerRunOutcome, Dispatched>("run_worker");
export type RunWorkerLogic = typeof run_worker;

const in_hand = (context: SchedulerContext) => held(context.in_hand, "scheduler", "finished run");

const all_done = (graph: TaskGraphSnapshot | undefined) =>
  graph !== undefined &&
  graph.runnable.length === 0 &&
  Object.entries(graph.counts).every(([status, count]) => count === 0 || status === "completed" || status === "cancelled");

const is_running = (context: SchedulerContext, agent_id: string) => context.running.some((agent) => agent.agent_id === agent_id);

type ActorEnd = DoneActorEvent<WorkerRunOutcome, string> | ErrorActorEvent<unknown, string>;
const is_actor_end = (event: SchedulerEvent): event is ActorEnd => event.type.startsWith("xstate.");

/** A run's end, from its child actor's done or error event. */
function finished_of(context: SchedulerContext, event: SchedulerEvent): Finished | undefined {
  if (!is_actor_end(event)) return undefined;
  const agent = context.running.find((candidate) => candidate.agent_id === event.actorId);
  if (agent === undefined) return undefined;
  const run: WorkerRunOutcome = "output" in event ? event.output : { status: "failed", error: to_air_error(event.error, "agent_error") };
  return { task_id: agent.task_id, run };
}

/**
 * The Scheduler of seeds 000 §20.2. Every decision re-reads the task graph from the database (loading_graph),
 * so a restarted runtime resumes from rows alone. Each wave's agents run as child actors side by side; their
 * ends queue up and are collected, merged and retried one at a time, while the others keep running.
 */
export const scheduler_machine = setup({
  types: {
    context: {} as SchedulerContext,
    events: {} as SchedulerEvent,
    output: {} as SchedulerRunResult,
    input: {} as { autostart?: boolean; recovering?: boolean } | undefined,
  },
  actors: {
    recover: unprovided<void, void>("recover"),
    load_graph: unprovided<TaskGraphSnapshot, void>("load_graph"),
    plan_wave: unprovided<WaveDecision, { running: readonly string[] }>("plan_wave"),
    dispatch: unprovided<readonly Dispatched[], { task_ids: readonly string[] }>("dispatch"),
    run_worker,
    collect: unprovided<Collected, Finished>("collect"),
    // The review gate (seeds 000 §8.3 ReviewerRole): the review policy decides whether a reviewer runs at all.
    review: unprovided<GateOutcome, Finished>("review"),
    // The Architecture Designer's gate (seeds 000 §19.4): passes at once when nothing in the change triggers it.
    assess_architecture: unprovided<GateOutcome, Finished>("assess_architecture"),
    // A run that passed its gates in the main checkout (no workspace to merge): its task is completed.
    settle: unprovided<void, Finished>("settle"),
    merge: unprovided<MergeOutcome, Finished>("merge"),
    repair: unprovided<void, { task_id: string; merge: MergeOutcome | undefined }>("repair"),
    cancel_tasks: unprovided<void, { task_ids: readonly string[]; reason: string }>("cancel_tasks"),
  },
  guards: {
    autostart: ({ context }) => context.autostart,
    recovering: ({ context }) => context.recovering,
    has_finished: ({ context }) => context.finished.length > 0,
    paused: ({ context }) => context.paused,
    has_stopped: ({ context }) => context.stopped !== undefined,
    // Quiet: nothing running and, unless paused (the plan is about to change), the last graph decides.
    quiet_held_back: ({ context }) => !context.paused && context.running.length === 0 && context.wave?.held_back !== undefined,
    quiet_done: ({ context }) => !context.paused && context.running.length === 0 && all_done(context.graph),
    quiet_replan: ({ context }) => !context.paused && context.running.length === 0 && context.replan !== undefined,
    quiet: ({ context }) => !context.paused && context.running.length === 0,
    has_runs_to_cancel: ({ context }) => context.running.length > 0 || context.finished.length > 0 || context.in_hand !== undefined,
    cancel_requested: ({ context }) => context.cancel_reason !== undefined,
  },
  actions: {
    remember_error: assign({ error: (_, params: { error: unknown }) => to_air_error(params.error, "scheduler_error") }),
    take_next_finished: assign(({ context }) => ({
      in_hand: context.finished[0],
      finished: context.finished.slice(1),
      collected: undefined,
      merge: undefined,
    })),
    settle: assign({ status: (_, status: SchedulerRunResult["status"]) => status }),
    /** One child per dispatched agent, named by its agent id, so its end comes back as `xstate.done.actor.<agent id>`. */
    start_agents: enqueueActions(({ enqueue, context }, dispatched: readonly Dispatched[]) => {
      enqueue.assign({ running: [...context.running, ...dispatched] });
      for (const agent of dispatched) enqueue.spawnChild("run_worker", { id: agent.agent_id, input: agent });
    }),
    /** A child that ended is stopped at once (XState copies the children map on every spawn and stop). */
    queue_finished: enqueueActions(({ enqueue, context, event }) => {
      const finished = finished_of(context, event);
      if (finished === undefined || !is_actor_end(event)) return;
      enqueue.stopChild(event.actorId);
      enqueue.assign({
        running: context.running.filter((agent) => agent.agent_id !== event.actorId),
        finished: [...context.finished, finished],
      });
    }),
    stop_agents: enqueueActions(({ enqueue, context }) => {
      for (const agent of context.running) enqueue.stopChild(agent.agent_id);
    }),
    /** Stopping a child aborts its run (the worker is cancelled); its end never comes back, so it leaves `running` here. */
    stop_tasks: enqueueActions(({ enqueue, context }, params: { task_ids: readonly string[]; reason: string }) => {
      const stopping = context.running.filter((agent) => params.task_ids.includes(agent.task_id));
      for (const agent of stopping) enqueue.stopChild(agent.agent_id);
      enqueue.assign({
        running: context.running.filter((agent) => !params.task_ids.includes(agent.task_id)),
        stopped: { task_ids: [...new Set([...(context.stopped?.task_ids ?? []), ...params.task_ids])], reason: params.reason },
      });
    }),
  },
}).createMachine({
  id: "scheduler",
  initial: "idle",
  context: ({ input }) => ({
    autostart: input?.autostart ?? false,
    recovering: input?.recovering ?? false,
    status: undefined,
    graph: undefined,
    wave: undefined,
    running: [],
    finished: [],
    in_hand: undefined,
    collected: undefined,
    merge: undefined,
    replan: undefined,
    cancel_reason: undefined,
    paused: false,
    stopped: undefined,
    error: undefined,
  }),
  on: {
    // Outside the states that cancel at once, a cancel waits for the step in hand: a merge is all or nothing.
    "scheduler.cancel": { actions: assign({ cancel_reason: ({ event }) => event.reason }) },
    "scheduler.pause": { actions: assign({ paused: true }) },
    "scheduler.resume": { actions: assign({ paused: false }) },
    "scheduler.stop_tasks": { actions: { type: "stop_tasks", params: ({ event }) => ({ task_ids: event.task_ids, reason: event.reason }) } },
    "xstate.done.actor.*": { guard: ({ context, event }) => is_running(context, event.actorId), actions: "queue_finished" },
    "xstate.error.actor.*": { guard: ({ context, event }) => is_running(context, event.actorId), actions: "queue_finished" },
  },
  states: {
    idle: {
      always: [
        { guard: "recovering", target: "recovering" },
        { guard: "autostart", target: "loading_graph" },
      ],
      on: { "scheduler.run": "loading_graph" },
    },
    // Seeds 000 §20.2 RECOVERING: lost agents, workspaces and a merge cut off midway, before any new decision.
    recovering: {
      invoke: {
        id: "recover",
        src: "recover",
        onDone: "loading_graph",
        onError: { target: "blocked", actions: { type: "remember_error", params: error_of } },
      },
    },
    loading_graph: {
      invoke: {
        id: "load_graph",
        src: "load_graph",
        onDone: [
          { guard: "paused", target: "monitoring", actions: assign({ graph: ({ event }) => event.output }) },
          { target: "planning_wave", actions: assign({ graph: ({ event }) => event.output }) },
        ],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    planning_wave: {
      invoke: {
        id: "plan_wave",
        src: "plan_wave",
        input: ({ context }) => ({ running: context.running.map((agent) => agent.task_id) }),
        onDone: [
          {
            guard: ({ event }) => event.output.held_back !== undefined || event.output.dispatch.length === 0,
            target: "monitoring",
            actions: assign({ wave: ({ event }) => event.output, error: ({ context, event }) => event.output.held_back ?? context.error }),
          },
          { target: "dispatching", actions: assign({ wave: ({ event }) => event.output }) },
        ],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    dispatching: {
      invoke: {
        id: "dispatch",
        src: "dispatch",
        input: ({ context }) => ({ task_ids: held(context.wave, "scheduler", "wave").dispatch }),
        onDone: { target: "monitoring", actions: { type: "start_agents", params: ({ event }) => event.output } },
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    // Waits for the next end of a run; with nothing running and nothing to collect, the last graph decides.
    // Paused, it waits for `scheduler.resume` instead of deciding: the plan is about to change.
    monitoring: {
      always: [
        { guard: "has_stopped", target: "cancelling_stopped" },
        { guard: "has_finished", target: "collecting_results", actions: "take_next_finished" },
        { guard: "quiet_held_back", target: "blocked" },
        { guard: "quiet_replan", target: "blocked" },
        { guard: "quiet_done", target: "completed" },
        { guard: "quiet", target: "blocked" },
      ],
      on: {
        "scheduler.cancel": "cancelling",
        "scheduler.resume": { target: "loading_graph", actions: assign({ paused: false }) },
      },
    },
    // The tasks a replan cancelled: their agents were stopped at once, their rows are settled here.
    cancelling_stopped: {
      invoke: {
        id: "cancel_stopped",
        src: "cancel_tasks",
        input: ({ context }) => held(context.stopped, "scheduler", "stopped tasks"),
        onDone: { target: "loading_graph", actions: assign({ stopped: undefined }) },
        onError: { target: "stopping", actions: [assign({ stopped: undefined }), { type: "remember_error", params: error_of }] },
      },
    },
    collecting_results: {
      invoke: {
        id: "collect",
        src: "collect",
        input: ({ context }) => in_hand(context),
        onDone: [
          { guard: ({ event }) => event.output.gate, target: "reviewing", actions: assign({ collected: ({ event }) => event.output }) },
          { guard: ({ event }) => event.output.merge, target: "merging", actions: assign({ collected: ({ event }) => event.output }) },
          { target: "repairing_or_continuing" },
        ],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
    },
    // Seeds 000 §20.2 REVIEWING_WAVE: a reviewer reads the work before it lands; a cancel stops the reviewer.
    reviewing: {
      invoke: {
        id: "review",
        src: "review",
        input: ({ context }) => in_hand(context),
        onDone: [{ guard: ({ event }) => event.output.passed, target: "gating_architecture" }, { target: "repairing_or_continuing" }],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    gating_architecture: {
      invoke: {
        id: "assess_architecture",
        src: "assess_architecture",
        input: ({ context }) => in_hand(context),
        onDone: [
          { guard: ({ context, event }) => event.output.passed && context.collected?.merge === true, target: "merging" },
          { guard: ({ event }) => event.output.passed, target: "settling" },
          { target: "repairing_or_continuing", actions: assign({ replan: ({ context, event }) => event.output.replan ?? context.replan }) },
        ],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
      on: { "scheduler.cancel": "cancelling" },
    },
    settling: {
      invoke: {
        id: "settle",
        src: "settle",
        input: ({ context }) => in_hand(context),
        onDone: "repairing_or_continuing",
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
    },
    // The merge queue: one merge at a time, since the Scheduler is in one state at a time.
    merging: {
      invoke: {
        id: "merge",
        src: "merge",
        input: ({ context }) => in_hand(context),
        onDone: { target: "repairing_or_continuing", actions: assign({ merge: ({ event }) => event.output }) },
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
    },
    repairing_or_continuing: {
      invoke: {
        id: "repair",
        src: "repair",
        input: ({ context }) => ({ task_id: in_hand(context).task_id, merge: context.merge }),
        onDone: [
          { guard: "cancel_requested", target: "cancelling" },
          { target: "loading_graph", actions: assign({ in_hand: undefined, collected: undefined, merge: undefined }) },
        ],
        onError: { target: "stopping", actions: { type: "remember_error", params: error_of } },
      },
    },
    // A failure of the Scheduler's own I/O starts nothing new; the agents already running are cancelled.
    stopping: {
      always: [{ guard: "has_runs_to_cancel", target: "cancelling" }, { target: "blocked" }],
    },
    cancelling: {
      entry: "stop_agents",
      invoke: {
        id: "cancel_tasks",
        src: "cancel_tasks",
        input: ({ context, event }) => ({
          task_ids: [
            ...context.running.map((agent) => agent.task_id),
            ...[context.in_hand, ...context.finished].flatMap((run) => (run === undefined ? [] : [run.task_id])),
          ],
          reason: event.type === "scheduler.cancel" ? event.reason : (context.cancel_reason ?? context.error?.message ?? "the scheduler stopped"),
        }),
        onDone: [{ guard: ({ context }) => context.error !== undefined && context.cancel_reason === undefined, target: "blocked" }, { target: "cancelled" }],
        onError: [
          { guard: ({ context }) => context.error !== undefined && context.cancel_reason === undefined, target: "blocked" },
          { target: "cancelled", actions: { type: "remember_error", params: error_of } },
        ],
      },
    },
    completed: { type: "final", entry: { type: "settle", params: "completed" } },
    blocked: { type: "final", entry: { type: "settle", params: "blocked" } },
    cancelled: { type: "final", entry: { type: "settle", params: "cancelled" } },
  },
  output: ({ context }) => ({
    status: context.status ?? "blocked",
    counts: context.graph?.counts,
    error: context.error,
    ...(context.replan === undefined ? {} : { replan: context.replan }),
  }),
});

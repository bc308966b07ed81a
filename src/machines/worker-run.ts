import { and, assign, enqueueActions, fromCallback, not, or, sendTo, setup } from "xstate";
import { air_failure, to_air_error, type AirError } from "../contracts/errors.js";
import type { PayloadInputOf } from "../contracts/events/registry.js";
import type { AgentId } from "../contracts/ids.js";
import {
  AGENT_TYPE_OF_TASK,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  PROTOCOL_VERSION,
  protocol_error,
  WORKER_EXIT,
  type AgentBrief,
  type IpcMessageId,
  type IpcPayloadInputOf,
  type LogLevel,
} from "../contracts/ipc.js";
import type { TaskSpec } from "../contracts/task.js";
import type { ToolCall } from "../contracts/tool.js";
import type { AgentType, WorkerResult } from "../contracts/worker-result.js";
import { unprovided } from "./unprovided.js";
import {
  SETTLE,
  unsettled_error,
  type AgentEnding,
  type ExitEnding,
  type Settlement,
  type WorkerExit,
  type WorkerRunOutcome,
} from "./worker-run-settlement.js";
import { not_recorded_error, timeout_error } from "./worker-run-errors.js";

/** The run's own delays; the task's soft and hard timeouts come from its TaskSpec constraints. */
export type WorkerRunDelays = {
  /** Spawn → `worker.ready`. */
  readonly handshake_timeout_ms: number;
  /**
   * Silence (no line from the worker, heartbeats included) → the process is probed; as long again after a
   * ping → the worker is lost. Default: `HEARTBEATS_PER_TIMEOUT` heartbeat intervals of the brief.
   */
  readonly heartbeat_timeout_ms: number;
  /** The `cancel` control → SIGTERM. */
  readonly cancel_grace_ms: number;
  /** SIGTERM → SIGKILL, and how long a worker may take to leave after its result or its own protocol.error. */
  readonly kill_grace_ms: number;
};

const DEFAULT_DELAYS = { handshake_timeout_ms: 30_000, cancel_grace_ms: 3_000, kill_grace_ms: 5_000 } as const;

/** How many heartbeat intervals of silence make the worker suspect, by default. */
const HEARTBEATS_PER_TIMEOUT = 3;

export type WorkerRunInput = {
  readonly agent_id: AgentId;
  readonly task: TaskSpec;
  readonly brief: AgentBrief;
  readonly delays?: Partial<WorkerRunDelays>;
  /**
   * Time the task's attempt has already run, from the timestamps in its rows (a resumed attempt): the soft and
   * hard timeouts count from the attempt's start, not from this spawn. Default 0.
   */
  readonly elapsed_ms?: number;
  /**
   * The attempt's work survives its worker (it runs in a workspace of its own): a run killed on its hard timeout
   * then ends `resumable`, for the task to be interrupted rather than failed. A worker's checkpoint makes it so too.
   */
  readonly resumable?: boolean;
  /**
   * The role that runs the task when it is not the one its type names: the Debugger on a task's debug attempt,
   * the Reviewer reading an executor's work. Default `AGENT_TYPE_OF_TASK[task.type]`.
   */
  readonly agent_type?: AgentType;
};

type WorkerSignal = "SIGTERM" | "SIGKILL";

/** The worker process actor's input. `kill_grace_ms`: SIGTERM → SIGKILL when the run is stopped from outside. */
export type WorkerProcessInput = {
  readonly agent_id: AgentId;
  readonly task: TaskSpec;
  readonly agent_type: AgentType;
  readonly kill_grace_ms: number;
};

/** What the run tells its worker process actor. */
export type WorkerProcessCommand =
  | { type: "process.control"; payload: IpcPayloadInputOf<"control"> }
  | { type: "process.signal"; signal: WorkerSignal }
  /** An event the worker reported: the actor stamps, checks and ingests it. */
  | { type: "process.ingest"; event: { type: string; payload: unknown } }
  /** `aborted`: the run is being cancelled, so the call starts with its signal aborted and is never answered. */
  | { type: "process.call_tool"; call: ToolCall; correlation_id: IpcMessageId; aborted: boolean }
  | { type: "process.abort_tools" }
  /** A diagnostic of the run for the services' log sink. */
  | { type: "process.log"; entry: WorkerRunLog }
  /** Is the process still there? Answered by `worker.alive`, or by `worker.exited` (vanished) when it is gone. */
  | { type: "process.probe" };

/**
 * What the worker process actor reports: the process's start and end, a broken line (`worker.protocol_error`:
 * not JSON, too long, failing its schema, addressed to someone else, a tool.call without its correlation id or
 * with one already in flight), and every decoded line the run decides on.
 */
export type WorkerProcessEvent =
  | { type: "worker.spawned"; pid: number | undefined }
  | { type: "worker.error"; error: AirError }
  | { type: "worker.protocol_error"; error: AirError }
  | { type: "worker.ready"; protocol_version: number; worker_version: string }
  /** The worker's own `protocol.error`: it gave up on the parent and exits 2. */
  | { type: "worker.gave_up"; message: string }
  | { type: "worker.event"; event: { type: string; payload: unknown } }
  | { type: "worker.tool_call"; call: ToolCall; correlation_id: IpcMessageId }
  | { type: "worker.checkpoint"; data: unknown }
  | { type: "worker.result"; result: WorkerResult }
  /** The answer to `process.probe`: the process is running (or stopped), just silent. */
  | { type: "worker.alive" }
  | { type: "worker.exited"; exit: WorkerExit };

export type WorkerRunEvent = WorkerProcessEvent | { type: "run.cancel"; reason: string };

/** `worker`: a `log` line the worker sent; `bridge`: something the parent noticed (refused event, protocol error…). */
export type WorkerRunLog = { readonly source: "worker" | "bridge"; readonly level: LogLevel; readonly message: string; readonly data?: unknown };

type WorkerRunContext = {
  readonly agent_id: AgentId;
  readonly task: TaskSpec;
  readonly brief: AgentBrief;
  readonly agent_type: AgentType;
  readonly delays: WorkerRunDelays;
  readonly elapsed_ms: number;
  readonly resumable: boolean;
  pid: number | undefined;
  worker_version: string | undefined;
  result: WorkerResult | undefined;
  checkpoint: unknown;
  /** Why the parent ends the worker (a broken protocol, the hard timeout, a process error); the first reason wins. */
  failure: AirError | undefined;
  /** The message of the worker's own protocol.error, named by the error of its exit. */
  worker_said: string | undefined;
  cancel_reason: string | undefined;
  /** Why the parent gave the worker up as lost (silent past its heartbeat timeout and a ping). */
  silence: string | undefined;
  settlement: Settlement | undefined;
};

/** A task timeout, less the time the attempt has already run. */
function remaining(timeout_ms: number, elapsed_ms: number): number {
  return Math.max(0, timeout_ms - elapsed_ms);
}

/** A protocol error with a fixed message, made when it happens. */
function unexpected(message: string): () => AirError {
  return () => protocol_error("unexpected_message", message);
}

/** The worker's tool call for the process actor to run; `aborted` while the run is being cancelled. */
function forward_tool_call(aborted: boolean) {
  return ({ event }: { event: Extract<WorkerRunEvent, { type: "worker.tool_call" }> }): WorkerProcessCommand => ({
    type: "process.call_tool",
    call: event.call,
    correlation_id: event.correlation_id,
    aborted,
  });
}

function before_ready(kind: string): AirError {
  return protocol_error("unexpected_message", `"${kind}" before worker.ready`);
}

/** A result the run cannot take: for another task or agent, or of another role than the worker's. */
function foreign_result(context: WorkerRunContext, result: WorkerResult): AirError {
  if (result.agent_id !== context.agent_id || result.task_id !== context.task.id) {
    return protocol_error("unexpected_message", `a result for ${result.task_id}/${result.agent_id}, expected ${context.task.id}/${context.agent_id}`);
  }
  return protocol_error("unexpected_message", `a ${result.agent_type} result from an ${context.agent_type} worker`);
}

/** Fails loudly when the machine runs without `provide({ actors: { worker_process } })`. */
const unprovided_process = fromCallback<WorkerProcessCommand, WorkerProcessInput>(() => {
  throw air_failure({
    kind: "system_error",
    message: 'actor "worker_process" was not provided to the worker-run machine',
    retryability: "not_retryable",
    user_action: "This is a bug in air's runtime wiring; report it.",
  });
});

/** SIGTERM now, SIGKILL one grace period later: how the parent ends a worker that does not leave by itself. */
const terminate_then_kill = {
  terminating: { entry: { type: "signal", params: "SIGTERM" }, after: { kill_grace: "killing" } },
  killing: { entry: { type: "signal", params: "SIGKILL" } },
} as const;

/**
 * One worker process, from spawn to its end (DESIGN.md §5), and the one model of it in the parent. Its states
 * drive the process: `working` (starting: spawn, record, handshake; then running) with the task's soft and hard
 * timeouts counted from spawn; `cancelling` (cancel control → SIGTERM → SIGKILL); `lingering` after the result;
 * `leaving` after the worker's own protocol.error; `stopping` when the parent ends it (broken protocol, hard
 * timeout). Its final states are the agent's final statuses, each recording the matching durable event on entry.
 * All I/O is provided: the `worker_process` actor (spawn, lines, signals, tool calls, event ingest, logs),
 * `announce` (the durable `agent.started` the worker may not run without), and the `record_*` actions.
 */
export const worker_run_machine = setup({
  types: {
    input: {} as WorkerRunInput,
    context: {} as WorkerRunContext,
    events: {} as WorkerRunEvent,
    output: {} as WorkerRunOutcome,
  },
  actors: {
    worker_process: unprovided_process,
    announce: unprovided<void, PayloadInputOf<"agent.started">>("announce"),
  },
  delays: {
    handshake_timeout: ({ context }) => context.delays.handshake_timeout_ms,
    soft_timeout: ({ context }) => remaining(context.task.constraints.soft_timeout_ms, context.elapsed_ms),
    hard_timeout: ({ context }) => remaining(context.task.constraints.hard_timeout_ms, context.elapsed_ms),
    heartbeat_timeout: ({ context }) => context.delays.heartbeat_timeout_ms,
    cancel_grace: ({ context }) => context.delays.cancel_grace_ms,
    kill_grace: ({ context }) => context.delays.kill_grace_ms,
  },
  guards: {
    speaks_our_protocol: ({ event }) => event.type === "worker.ready" && event.protocol_version === PROTOCOL_VERSION,
    has_result: ({ context }) => context.result !== undefined,
    has_failure: ({ context }) => context.failure !== undefined,
    result_for_another_run: ({ context, event }) =>
      event.type === "worker.result" && (event.result.agent_id !== context.agent_id || event.result.task_id !== context.task.id),
    result_of_another_role: ({ context, event }) => event.type === "worker.result" && event.result.agent_type !== context.agent_type,
    exited_cleanly: ({ event }) => event.type === "worker.exited" && event.exit.code === WORKER_EXIT.completed,
    exited_with_error_code: ({ event }) => event.type === "worker.exited" && event.exit.code !== null && event.exit.code !== WORKER_EXIT.completed,
    killed_by_signal: ({ event }) => event.type === "worker.exited" && event.exit.code === null,
  },
  actions: {
    // Durable records, provided by src/actors/worker-run.ts. Unprovided they record nothing; but without the
    // worker_process actor nothing runs either, so an unprovided machine fails at once.
    record_running: (_, _payload: PayloadInputOf<"agent.started">) => undefined,
    record_ending: (_, _ending: AgentEnding | undefined) => undefined,
    command: sendTo("process", (_, command: WorkerProcessCommand) => command),
    signal: sendTo("process", (_, signal: WorkerSignal): WorkerProcessCommand => ({ type: "process.signal", signal })),
    log: sendTo("process", (_, entry: WorkerRunLog): WorkerProcessCommand => ({ type: "process.log", entry })),
    /** The parent decided to end the worker for `error`; the first such reason is the one it ends with. */
    fail: enqueueActions(({ context, enqueue }, error: AirError) => {
      if (context.failure !== undefined) return;
      enqueue.assign({ failure: error });
      const entry: WorkerRunLog = { source: "bridge", level: "error", message: error.message, data: error.metadata };
      enqueue.sendTo("process", { type: "process.log", entry } satisfies WorkerProcessCommand);
    }),
    /** The run's outcome and its durable ending, decided on the transition out of the process's life. */
    settle: assign({
      settlement: ({ context, event }, ending: ExitEnding) => (event.type === "worker.exited" ? SETTLE[ending](context, event.exit) : context.settlement),
    }),
    note_gave_up: enqueueActions(({ enqueue }, message: string) => {
      enqueue.assign({ worker_said: message });
      const entry: WorkerRunLog = { source: "worker", level: "error", message: `protocol error reported by the worker: ${message}` };
      enqueue.sendTo("process", { type: "process.log", entry } satisfies WorkerProcessCommand);
    }),
  },
}).createMachine({
  id: "worker-run",
  context: ({ input }) => ({
    agent_id: input.agent_id,
    task: input.task,
    brief: input.brief,
    agent_type: input.agent_type ?? AGENT_TYPE_OF_TASK[input.task.type],
    delays: {
      ...DEFAULT_DELAYS,
      heartbeat_timeout_ms: HEARTBEATS_PER_TIMEOUT * (input.brief.heartbeat_interval_ms ?? DEFAULT_HEARTBEAT_INTERVAL_MS),
      ...input.delays,
    },
    elapsed_ms: input.elapsed_ms ?? 0,
    resumable: input.resumable ?? false,
    pid: undefined,
    worker_version: undefined,
    result: undefined,
    checkpoint: undefined,
    failure: undefined,
    worker_said: undefined,
    cancel_reason: undefined,
    silence: undefined,
    settlement: undefined,
  }),
  invoke: {
    id: "process",
    src: "worker_process",
    input: ({ context }) => ({
      agent_id: context.agent_id,
      task: context.task,
      agent_type: context.agent_type,
      kill_grace_ms: context.delays.kill_grace_ms,
    }),
    onError: {
      target: ".failed",
      // The process actor broke before it could report an ending: nothing is known to record.
      actions: assign({
        settlement: ({ event }) => ({ outcome: { status: "failed", error: to_air_error(event.error, "agent_error") }, record: undefined }),
      }),
    },
  },
  on: {
    "worker.error": { actions: { type: "fail", params: ({ event }) => event.error } },
    "worker.protocol_error": { actions: { type: "fail", params: ({ event }) => event.error } },
    "worker.gave_up": { actions: { type: "note_gave_up", params: ({ event }) => event.message } },
  },
  initial: "working",
  states: {
    working: {
      after: {
        soft_timeout: {
          actions: [
            {
              type: "log",
              params: ({ context }) => {
                const { soft_timeout_ms, hard_timeout_ms } = context.task.constraints;
                const message = `soft timeout of ${soft_timeout_ms} ms passed; the worker is asked to wrap up before its hard timeout of ${hard_timeout_ms} ms`;
                return { source: "bridge", level: "info", message };
              },
            },
            {
              type: "command",
              params: ({ context }) => ({
                type: "process.control",
                payload: { command: "wrap_up", reason: `the soft timeout of ${context.task.constraints.soft_timeout_ms} ms passed` },
              }),
            },
          ],
        },
        hard_timeout: {
          target: "stopping",
          actions: { type: "fail", params: ({ context }) => timeout_error(context.task.constraints.hard_timeout_ms) },
        },
      },
      on: {
        "run.cancel": {
          target: "cancelling",
          actions: [
            assign({ cancel_reason: ({ event }) => event.reason }),
            { type: "command", params: { type: "process.abort_tools" } },
            { type: "command", params: ({ event }) => ({ type: "process.control", payload: { command: "cancel", reason: event.reason } }) },
          ],
        },
        "worker.protocol_error": { target: "stopping", actions: { type: "fail", params: ({ event }) => event.error } },
        "worker.gave_up": { target: "leaving", actions: { type: "note_gave_up", params: ({ event }) => event.message } },
        "worker.exited": [
          { guard: or(["has_failure", "exited_with_error_code"]), target: "failed", actions: { type: "settle", params: "failed" } },
          { target: "lost", actions: { type: "settle", params: "lost" } },
        ],
      },
      initial: "starting",
      states: {
        starting: {
          on: {
            "worker.event": { target: "#worker-run.stopping", actions: { type: "fail", params: () => before_ready("event") } },
            "worker.tool_call": { target: "#worker-run.stopping", actions: { type: "fail", params: () => before_ready("tool.call") } },
            "worker.checkpoint": { target: "#worker-run.stopping", actions: { type: "fail", params: () => before_ready("worker.checkpoint") } },
            "worker.result": { target: "#worker-run.stopping", actions: { type: "fail", params: () => before_ready("worker.result") } },
          },
          initial: "spawning",
          states: {
            spawning: { on: { "worker.spawned": { target: "announcing", actions: assign({ pid: ({ event }) => event.pid }) } } },
            announcing: {
              invoke: {
                id: "announce",
                src: "announce",
                input: ({ context }) => ({
                  agent_id: context.agent_id,
                  agent_type: context.agent_type,
                  status: "starting" as const,
                  task_id: context.task.id,
                  model_id: context.brief.model_id,
                  ...(context.pid === undefined ? {} : { pid: context.pid }),
                }),
                onDone: "handshaking",
                onError: {
                  // No row to end: the worker is not run, and nothing else is recorded.
                  target: "#worker-run.failed",
                  actions: assign({
                    settlement: ({ context, event }) => ({
                      outcome: { status: "failed", error: not_recorded_error(context.agent_id, to_air_error(event.error, "system_error")) },
                      record: undefined,
                    }),
                  }),
                },
              },
            },
            handshaking: {
              entry: {
                type: "command",
                params: ({ context }) => ({
                  type: "process.control",
                  payload: { command: "agent.start", task: context.task, brief: context.brief, agent_type: context.agent_type },
                }),
              },
              after: {
                handshake_timeout: {
                  target: "#worker-run.stopping",
                  actions: { type: "fail", params: unexpected("no worker.ready before the handshake timeout") },
                },
              },
              on: {
                "worker.ready": [
                  {
                    guard: "speaks_our_protocol",
                    target: "#worker-run.working.running",
                    actions: [
                      assign({ worker_version: ({ event }) => event.worker_version }),
                      {
                        type: "record_running",
                        params: ({ context }) => ({
                          agent_id: context.agent_id,
                          agent_type: context.agent_type,
                          status: "running",
                          task_id: context.task.id,
                          model_id: context.brief.model_id,
                          ...(context.pid === undefined ? {} : { pid: context.pid }),
                        }),
                      },
                    ],
                  },
                  {
                    target: "#worker-run.stopping",
                    actions: {
                      type: "fail",
                      params: ({ event }) =>
                        protocol_error("version_mismatch", `worker speaks protocol version ${event.protocol_version}, this parent ${PROTOCOL_VERSION}`, {
                          received: event.protocol_version,
                          expected: PROTOCOL_VERSION,
                        }),
                    },
                  },
                ],
              },
            },
          },
        },
        running: {
          on: {
            "worker.ready": { target: "#worker-run.stopping", actions: { type: "fail", params: unexpected("a second worker.ready") } },
            // Any line but a result proves the worker alive: the liveness watch starts over.
            "worker.event": {
              target: ".listening",
              reenter: true,
              actions: { type: "command", params: ({ event }) => ({ type: "process.ingest", event: event.event }) },
            },
            "worker.checkpoint": { target: ".listening", reenter: true, actions: assign({ checkpoint: ({ event }) => event.data }) },
            "worker.tool_call": { target: ".listening", reenter: true, actions: { type: "command", params: forward_tool_call(false) } },
            "worker.result": [
              {
                guard: or(["result_for_another_run", "result_of_another_role"]),
                target: "#worker-run.stopping",
                actions: { type: "fail", params: ({ context, event }) => foreign_result(context, event.result) },
              },
              { target: "#worker-run.lingering", actions: assign({ result: ({ event }) => event.result }) },
            ],
          },
          // The liveness watch: silent past the heartbeat timeout → probe; alive → ping; silent again → lost.
          initial: "listening",
          states: {
            listening: { after: { heartbeat_timeout: "probing" } },
            // A process that is gone answers with its exit (settled by `working`), one that is there with `worker.alive`.
            probing: {
              entry: { type: "command", params: { type: "process.probe" } },
              on: { "worker.alive": "pinged" },
            },
            pinged: {
              entry: { type: "command", params: { type: "process.control", payload: { command: "ping" } } },
              after: {
                heartbeat_timeout: {
                  target: "#worker-run.silencing",
                  actions: assign({
                    silence: ({ context }) =>
                      `no heartbeat for ${context.delays.heartbeat_timeout_ms} ms and no answer to a ping within as long again; the worker was killed`,
                  }),
                },
              },
            },
          },
        },
      },
    },
    // The worker is alive but silent past its heartbeat timeout and a ping: its process group is ended, and it is lost.
    silencing: {
      on: { "worker.exited": { target: "lost", actions: { type: "settle", params: "lost" } } },
      initial: "terminating",
      states: terminate_then_kill,
    },
    // The cancel control is sent; a worker that does not leave gets SIGTERM after the cancel grace, then SIGKILL.
    cancelling: {
      on: {
        "worker.event": { actions: { type: "command", params: ({ event }) => ({ type: "process.ingest", event: event.event }) } },
        "worker.checkpoint": { actions: assign({ checkpoint: ({ event }) => event.data }) },
        "worker.tool_call": { actions: { type: "command", params: forward_tool_call(true) } },
        // The worker's own cancelled result keeps its evidence.
        "worker.result": [
          { guard: "has_result", actions: { type: "fail", params: unexpected("a second worker.result") } },
          {
            guard: or(["result_for_another_run", "result_of_another_role"]),
            actions: { type: "fail", params: ({ context, event }) => foreign_result(context, event.result) },
          },
          { actions: assign({ result: ({ event }) => event.result }) },
        ],
        "worker.exited": [
          { guard: and(["has_result", not("has_failure"), "exited_cleanly"]), target: "completed", actions: { type: "settle", params: "completed" } },
          { target: "cancelled", actions: { type: "settle", params: "cancelled" } },
        ],
      },
      initial: "asking",
      states: {
        asking: { after: { cancel_grace: "terminating" } },
        ...terminate_then_kill,
      },
    },
    // The result is in; the worker exits by itself now, and one that lingers is ended and still counts as done.
    lingering: {
      on: {
        "worker.event": { actions: { type: "command", params: ({ event }) => ({ type: "process.ingest", event: event.event }) } },
        "worker.checkpoint": { actions: assign({ checkpoint: ({ event }) => event.data }) },
        "worker.protocol_error": { target: "stopping", actions: { type: "fail", params: ({ event }) => event.error } },
        "worker.ready": { target: "stopping", actions: { type: "fail", params: unexpected("a second worker.ready") } },
        "worker.result": { target: "stopping", actions: { type: "fail", params: unexpected("a second worker.result") } },
        "worker.tool_call": {
          target: "stopping",
          actions: { type: "fail", params: ({ event }) => protocol_error("unexpected_message", `an unexpected tool.call (${event.correlation_id})`) },
        },
        "worker.exited": [
          { guard: and([not("has_failure"), "exited_cleanly"]), target: "completed", actions: { type: "settle", params: "completed" } },
          { guard: or(["has_failure", "exited_with_error_code"]), target: "failed", actions: { type: "settle", params: "failed" } },
          { target: "lost", actions: { type: "settle", params: "lost" } },
        ],
      },
      initial: "waiting",
      states: {
        waiting: { after: { kill_grace: "terminating" } },
        // Ended by the parent after its result: still done.
        terminating: {
          entry: { type: "signal", params: "SIGTERM" },
          after: { kill_grace: "killing" },
          on: {
            "worker.exited": {
              guard: and([not("has_failure"), "killed_by_signal"]),
              target: "#worker-run.completed",
              actions: { type: "settle", params: "completed" },
            },
          },
        },
        killing: {
          entry: { type: "signal", params: "SIGKILL" },
          on: {
            "worker.exited": {
              guard: and([not("has_failure"), "killed_by_signal"]),
              target: "#worker-run.completed",
              actions: { type: "settle", params: "completed" },
            },
          },
        },
      },
    },
    // The worker reported a protocol error of its own and exits 2 by itself; one that does not is ended.
    leaving: {
      on: {
        "worker.protocol_error": { target: "stopping", actions: { type: "fail", params: ({ event }) => event.error } },
        "worker.exited": [
          { guard: or(["has_failure", "exited_with_error_code"]), target: "failed", actions: { type: "settle", params: "failed" } },
          { target: "lost", actions: { type: "settle", params: "lost" } },
        ],
      },
      initial: "waiting",
      states: {
        waiting: { after: { kill_grace: "terminating" } },
        ...terminate_then_kill,
      },
    },
    // The parent ends the worker for `failure`: SIGTERM at once, SIGKILL after the grace.
    stopping: {
      on: {
        "worker.exited": { target: "failed", actions: { type: "settle", params: "failed" } },
      },
      initial: "terminating",
      states: terminate_then_kill,
    },
    completed: { type: "final", entry: { type: "record_ending", params: ({ context }) => context.settlement?.record } },
    failed: { type: "final", entry: { type: "record_ending", params: ({ context }) => context.settlement?.record } },
    lost: { type: "final", entry: { type: "record_ending", params: ({ context }) => context.settlement?.record } },
    cancelled: { type: "final", entry: { type: "record_ending", params: ({ context }) => context.settlement?.record } },
  },
  output: ({ context }) => context.settlement?.outcome ?? { status: "failed", error: unsettled_error("without an outcome") },
});

import { assign, fromCallback, sendTo, setup } from "xstate";
import { air_failure, to_air_error, type AirError } from "../contracts/errors.js";
import type { AgentId, TaskId } from "../contracts/ids.js";
import type { AgentStartContext } from "../contracts/ipc.js";
import type { TaskSpec } from "../contracts/task.js";
import type { WorkerResult } from "../contracts/worker-result.js";

/**
 * What a worker run needs. `services` is the I/O the bridge uses (session, tool caller, options); it is
 * opaque here because machines import no I/O types — `src/actors/worker-run.ts` builds it typed.
 */
export type WorkerRunInput = {
  readonly agent_id: AgentId;
  readonly task: TaskSpec;
  readonly context: AgentStartContext;
  readonly services: unknown;
};

/** The bridge actor gets the run's input unchanged. */
export type WorkerBridgeInput = WorkerRunInput;

/** What the machine tells the bridge. */
export type WorkerBridgeCommand = { type: "CANCEL"; reason: string };

/**
 * What the bridge reports. Exactly one of the last four ends every run, after the matching durable
 * `agent.*` event has been ingested by the bridge.
 */
export type WorkerBridgeEvent =
  | { type: "WORKER.SPAWNED"; pid: number | undefined }
  | { type: "WORKER.READY"; worker_version: string }
  | { type: "WORKER.CHECKPOINT"; data: unknown }
  | { type: "WORKER.RESULT"; result: WorkerResult }
  | { type: "WORKER.COMPLETED"; result: WorkerResult; exit_code: number | null }
  | { type: "WORKER.FAILED"; error: AirError; exit_code: number | null; result?: WorkerResult }
  | { type: "WORKER.LOST"; error: AirError; exit_code: number | null }
  | { type: "WORKER.CANCELLED"; error: AirError; reason: string; exit_code: number | null; result?: WorkerResult };

/** From the owner of the run. */
export type WorkerRunCommand = { type: "CANCEL"; reason: string };

export type WorkerRunEvent = WorkerBridgeEvent | WorkerRunCommand;

export type WorkerRunStatus = "done" | "failed" | "lost" | "cancelled";

/** How the run ended: `done` carries the worker's result; the others the error that explains them. */
export type WorkerRunOutput = {
  readonly status: WorkerRunStatus;
  readonly agent_id: AgentId;
  readonly task_id: TaskId;
  readonly result: WorkerResult | undefined;
  readonly error: AirError | undefined;
  readonly exit_code: number | null | undefined;
};

type WorkerRunContext = {
  readonly input: WorkerRunInput;
  status: WorkerRunStatus | undefined;
  pid: number | undefined;
  worker_version: string | undefined;
  result: WorkerResult | undefined;
  checkpoint: unknown;
  error: AirError | undefined;
  exit_code: number | null | undefined;
  cancel_reason: string | undefined;
};

type Ending = Extract<WorkerBridgeEvent, { type: "WORKER.COMPLETED" | "WORKER.FAILED" | "WORKER.LOST" | "WORKER.CANCELLED" }>;

/** Fails loudly when the machine runs without `provide({ actors: { bridge } })`. */
const unprovided_bridge = fromCallback<WorkerBridgeCommand, WorkerBridgeInput>(() => {
  throw air_failure({
    kind: "system_error",
    message: 'actor "bridge" was not provided to the worker-run machine',
    retryability: "not_retryable",
    user_action: "This is a bug in air's runtime wiring; report it.",
  });
});

/**
 * One worker process, from spawn to its end (DESIGN.md §5): spawning → handshaking → running →
 * done | failed | lost | cancelled. All I/O is the invoked `bridge` actor (src/actors/worker-bridge/),
 * which also ingests the durable `agent.*` events; this machine only follows what it reports.
 */
export const worker_run_machine = setup({
  types: {
    input: {} as WorkerRunInput,
    context: {} as WorkerRunContext,
    events: {} as WorkerRunEvent,
    output: {} as WorkerRunOutput,
  },
  actors: { bridge: unprovided_bridge },
  actions: {
    remember_pid: assign({ pid: ({ event }) => (event.type === "WORKER.SPAWNED" ? event.pid : undefined) }),
    remember_ready: assign({ worker_version: ({ event }) => (event.type === "WORKER.READY" ? event.worker_version : undefined) }),
    remember_result: assign({ result: ({ context, event }) => (event.type === "WORKER.RESULT" ? event.result : context.result) }),
    remember_checkpoint: assign({ checkpoint: ({ context, event }) => (event.type === "WORKER.CHECKPOINT" ? event.data : context.checkpoint) }),
    remember_cancel: assign({ cancel_reason: ({ event }) => (event.type === "CANCEL" ? event.reason : "cancelled") }),
    forward_cancel: sendTo("bridge", ({ context }): WorkerBridgeCommand => ({ type: "CANCEL", reason: context.cancel_reason ?? "cancelled" })),
    settle: assign(({ context, event }, status: WorkerRunStatus) => {
      const ending = event as Ending;
      return {
        status,
        result: ("result" in ending ? ending.result : undefined) ?? context.result,
        error: ending.type === "WORKER.COMPLETED" ? undefined : ending.error,
        exit_code: ending.exit_code,
      };
    }),
    // Runs only on `xstate.error.actor.bridge`, which carries the bridge's exception.
    settle_bridge_error: assign(({ event }) => ({
      status: "failed" as const,
      error: to_air_error((event as unknown as { error: unknown }).error, "agent_error"),
    })),
  },
}).createMachine({
  id: "worker-run",
  context: ({ input }) => ({
    input,
    status: undefined,
    pid: undefined,
    worker_version: undefined,
    result: undefined,
    checkpoint: undefined,
    error: undefined,
    exit_code: undefined,
    cancel_reason: undefined,
  }),
  initial: "active",
  states: {
    active: {
      invoke: {
        id: "bridge",
        src: "bridge",
        input: ({ context }) => context.input,
        onError: { target: "failed", actions: "settle_bridge_error" },
      },
      initial: "spawning",
      states: {
        spawning: { on: { "WORKER.SPAWNED": { target: "handshaking", actions: "remember_pid" } } },
        handshaking: { on: { "WORKER.READY": { target: "running", actions: "remember_ready" } } },
        running: {},
        // The bridge escalates (cancel control → SIGTERM → SIGKILL) and reports how the worker ended.
        cancelling: { on: { CANCEL: {} } },
      },
      on: {
        CANCEL: { target: ".cancelling", actions: ["remember_cancel", "forward_cancel"] },
        "WORKER.RESULT": { actions: "remember_result" },
        "WORKER.CHECKPOINT": { actions: "remember_checkpoint" },
        "WORKER.COMPLETED": { target: "done", actions: { type: "settle", params: "done" } },
        "WORKER.FAILED": { target: "failed", actions: { type: "settle", params: "failed" } },
        "WORKER.LOST": { target: "lost", actions: { type: "settle", params: "lost" } },
        "WORKER.CANCELLED": { target: "cancelled", actions: { type: "settle", params: "cancelled" } },
      },
    },
    done: { type: "final" },
    failed: { type: "final" },
    lost: { type: "final" },
    cancelled: { type: "final" },
  },
  output: ({ context }) => ({
    status: context.status ?? "failed",
    agent_id: context.input.agent_id,
    task_id: context.input.task.id,
    result: context.result,
    error: context.error,
    exit_code: context.exit_code,
  }),
});

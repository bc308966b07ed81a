/**
 * How a worker run settles when its process exits: the outcome the Scheduler gets and the durable `agent.*`
 * event that ends the agent. Pure functions of what the run knows, chosen by the worker-run machine's guards.
 */
import { make_air_error, type AirError } from "../contracts/errors.js";
import type { PayloadInputOf } from "../contracts/events/registry.js";
import type { AgentId } from "../contracts/ids.js";
import { WORKER_EXIT } from "../contracts/ipc.js";
import type { WorkerResult } from "../contracts/worker-result.js";
import { cancelled_error, exit_error, lost_error, lost_reason, with_stderr } from "./worker-run-errors.js";

/** How a worker process ended, as its actor saw it. */
export type WorkerExit = {
  readonly code: number | null;
  readonly signal: string | null;
  /** The last characters the worker wrote to stderr: the detail of the error it ends with. */
  readonly stderr: string;
  readonly last_heartbeat_at: string | undefined;
  /** The process was found gone by a probe before its end was reported (its pipes held open by another). */
  readonly vanished?: boolean;
};

/**
 * How a worker run ended: the machine's output, and what the Scheduler settles the task from. `status` is the
 * agent's final status. A completed run carries the worker's result; the others the error that explains them,
 * and the result when the worker still sent one (a cancelled worker reports a cancelled result).
 * `exit_code`: null when a signal ended the process, absent when there was no process.
 */
export type WorkerRunOutcome =
  | { readonly status: "completed"; readonly result: WorkerResult; readonly error?: undefined; readonly exit_code: number | null }
  | {
      readonly status: "failed" | "lost" | "cancelled";
      readonly error: AirError;
      readonly result?: WorkerResult;
      readonly exit_code?: number | null;
      /** Killed on its hard timeout with work that survives it: the task is interrupted, not failed. */
      readonly resumable?: boolean;
    };

/** The durable event that ends an agent, recorded on entry of the run's final state. */
export type AgentEnding =
  | { readonly type: "agent.completed"; readonly payload: PayloadInputOf<"agent.completed"> }
  | { readonly type: "agent.failed"; readonly payload: PayloadInputOf<"agent.failed"> }
  | { readonly type: "agent.lost"; readonly payload: PayloadInputOf<"agent.lost"> }
  | { readonly type: "agent.cancelled"; readonly payload: PayloadInputOf<"agent.cancelled"> };

/** The outcome, and the ending to record: none when the agent was never recorded as started. */
export type Settlement = { readonly outcome: WorkerRunOutcome; readonly record: AgentEnding | undefined };

/** What a run knows when its worker exits: the part of the machine's context a settlement reads. */
type RunFacts = {
  readonly agent_id: AgentId;
  readonly result: WorkerResult | undefined;
  /** Why the parent ends the worker (a broken protocol, the hard timeout, a process error); the first reason wins. */
  readonly failure: AirError | undefined;
  /** The message of the worker's own protocol.error, named by the error of its exit. */
  readonly worker_said: string | undefined;
  readonly cancel_reason: string | undefined;
  /** The attempt's work survives its worker (see `WorkerRunInput.resumable`). */
  readonly resumable: boolean;
  readonly checkpoint: unknown;
  /** Why the parent gave the worker up as lost, when it did. */
  readonly silence: string | undefined;
};

function exit_code_field(code: number | null | undefined): { exit_code?: number } {
  return code === null || code === undefined ? {} : { exit_code: code };
}

function result_field(result: WorkerResult | undefined): { result?: WorkerResult } {
  return result === undefined ? {} : { result };
}

/** A run that reached an ending its transitions do not allow: a bug, reported as one. */
export function unsettled_error(how: string): AirError {
  return make_air_error({
    kind: "system_error",
    message: `a worker run ended ${how}`,
    retryability: "unknown",
    user_action: "This is a bug in air's worker run; report it.",
  });
}

function failed(context: RunFacts, exit: WorkerExit, error: AirError): Settlement {
  const detailed = with_stderr(error, exit.stderr);
  // A worker killed on its hard timeout is recorded with the timeout's exit code, whatever signal ended it.
  const timed_out = error.metadata?.timeout === true;
  const recorded = timed_out ? WORKER_EXIT.hard_timeout : exit.code;
  const resumable = timed_out && (context.resumable || context.checkpoint !== undefined);
  return {
    outcome: { status: "failed", error: detailed, exit_code: exit.code, ...result_field(context.result), ...(resumable ? { resumable } : {}) },
    record: { type: "agent.failed", payload: { agent_id: context.agent_id, error: detailed, ...exit_code_field(recorded) } },
  };
}

function completed(context: RunFacts, exit: WorkerExit): Settlement {
  // The guards let only a run with a result complete; the type of the context cannot say so.
  if (context.result === undefined) return failed(context, exit, unsettled_error("completed without a result"));
  return {
    outcome: { status: "completed", result: context.result, exit_code: exit.code },
    record: { type: "agent.completed", payload: { agent_id: context.agent_id, ...exit_code_field(exit.code), worker_result: context.result } },
  };
}

/** The failure the parent decided on, or the worker's own non-zero exit. */
function failed_on_exit(context: RunFacts, exit: WorkerExit): Settlement {
  const error = context.failure ?? (exit.code === null ? unsettled_error("failed without an error") : exit_error(exit.code, exit.stderr, context.worker_said));
  return failed(context, exit, error);
}

function lost(context: RunFacts, exit: WorkerExit): Settlement {
  const reason = context.silence ?? lost_reason(exit.code, exit.signal, exit.vanished === true);
  const { last_heartbeat_at } = exit;
  return {
    outcome: { status: "lost", error: lost_error(reason, exit.code, exit.signal, exit.stderr), exit_code: exit.code },
    record: {
      type: "agent.lost",
      payload: { agent_id: context.agent_id, reason, ...(last_heartbeat_at === undefined ? {} : { last_heartbeat_at }) },
    },
  };
}

function cancelled(context: RunFacts, exit: WorkerExit): Settlement {
  const reason = context.cancel_reason ?? "cancelled";
  return {
    outcome: { status: "cancelled", error: cancelled_error(reason), exit_code: exit.code, ...result_field(context.result) },
    record: { type: "agent.cancelled", payload: { agent_id: context.agent_id, reason } },
  };
}

/** How an exit settles the run, by the final state it leads to. */
export const SETTLE = { completed, failed: failed_on_exit, lost, cancelled } as const;
export type ExitEnding = keyof typeof SETTLE;

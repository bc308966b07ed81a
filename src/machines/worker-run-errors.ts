import { make_air_error, type AirError, type Retryability } from "../contracts/errors.js";
import type { AgentId } from "../contracts/ids.js";
import { WORKER_EXIT, worker_exit_name } from "../contracts/ipc.js";

/** The errors a worker run ends with, built by the worker-run machine from what it saw of the process. */

const RETRYABILITY_OF_EXIT: Record<number, Retryability> = {
  [WORKER_EXIT.uncaught_exception]: "retryable",
  [WORKER_EXIT.protocol_error]: "not_retryable",
  [WORKER_EXIT.permission_error]: "retryable_after_change",
  [WORKER_EXIT.cancelled]: "not_retryable",
  [WORKER_EXIT.hard_timeout]: "retryable",
};

/** `stderr` (the worker's last output) as the error's detail, when there is any. */
function detail_of(stderr: string): { detail?: string } {
  return stderr.length > 0 ? { detail: stderr } : {};
}

export function exit_error(code: number, stderr: string, worker_said: string | undefined): AirError {
  const name = worker_exit_name(code);
  return make_air_error({
    kind: code === WORKER_EXIT.permission_error ? "permission_error" : "agent_error",
    message: `worker exited with code ${code} (${name ?? "unknown exit code"})${worker_said === undefined ? "" : `: ${worker_said}`}`,
    retryability: RETRYABILITY_OF_EXIT[code] ?? "unknown",
    ...detail_of(stderr),
    metadata: { exit_code: code, exit_name: name ?? null },
  });
}

/** `error` with the worker's last stderr output as its detail, unless it has a detail of its own. */
export function with_stderr(error: AirError, stderr: string): AirError {
  return error.detail === undefined ? { ...error, ...detail_of(stderr) } : error;
}

export function timeout_error(hard_timeout_ms: number): AirError {
  return make_air_error({
    kind: "agent_error",
    message: `worker killed after its hard timeout of ${hard_timeout_ms} ms`,
    retryability: "retryable",
    user_action: "Split the task or raise constraints.hard_timeout_ms.",
    metadata: { timeout: true, hard_timeout_ms, exit_code: WORKER_EXIT.hard_timeout, exit_name: "hard_timeout" },
  });
}

/** Why a worker that left without a result (exit 0, killed by someone else, or found gone by a probe) is lost. */
export function lost_reason(code: number | null, signal: string | null, vanished: boolean): string {
  if (vanished) return "worker stopped heartbeating and its process is gone, without a result";
  return code === null ? `worker was killed by ${signal ?? "a signal"} without a result` : `worker exited with code ${code} without a result`;
}

export function lost_error(reason: string, code: number | null, signal: string | null, stderr: string): AirError {
  return make_air_error({
    kind: "agent_error",
    message: reason,
    retryability: "retryable",
    ...detail_of(stderr),
    metadata: { lost: true, exit_code: code, signal },
  });
}

export function cancelled_error(reason: string): AirError {
  return make_air_error({
    kind: "agent_error",
    severity: "info",
    message: `worker cancelled: ${reason}`,
    retryability: "not_retryable",
    metadata: { cancelled: true },
  });
}

/** `agent.started` could not be recorded (`cause` says why), so the worker is not run. */
export function not_recorded_error(agent_id: AgentId, cause: AirError): AirError {
  return make_air_error({
    kind: "system_error",
    message: `agent ${agent_id} could not be recorded as started`,
    detail: cause.message,
    retryability: "not_retryable",
  });
}

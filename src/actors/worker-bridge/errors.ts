import { make_air_error, type AirError, type Retryability } from "../../contracts/errors.js";
import type { AgentId } from "../../contracts/ids.js";
import { WORKER_EXIT, worker_exit_name } from "../../contracts/ipc.js";

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

export function timeout_error(hard_timeout_ms: number, stderr: string): AirError {
  return make_air_error({
    kind: "agent_error",
    message: `worker killed after its hard timeout of ${hard_timeout_ms} ms`,
    retryability: "retryable",
    user_action: "Split the task or raise constraints.hard_timeout_ms.",
    ...detail_of(stderr),
    metadata: { timeout: true, hard_timeout_ms, exit_code: WORKER_EXIT.hard_timeout, exit_name: "hard_timeout" },
  });
}

/** Why a worker that left without a result (exit 0, or killed by someone else) is lost. */
export function lost_reason(code: number | null, signal: NodeJS.Signals | null): string {
  return code === null ? `worker was killed by ${signal ?? "a signal"} without a result` : `worker exited with code ${code} without a result`;
}

export function lost_error(reason: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): AirError {
  return make_air_error({
    kind: "agent_error",
    message: reason,
    retryability: "retryable",
    ...detail_of(stderr),
    metadata: { lost: true, exit_code: code, signal },
  });
}

export function cancelled_error(reason: string): AirError {
  return make_air_error({ kind: "agent_error", severity: "info", message: `worker cancelled: ${reason}`, retryability: "not_retryable", metadata: { cancelled: true } });
}

/** `agent.started` could not be recorded, so the bridge does not run the worker. */
export function not_recorded_error(agent_id: AgentId): AirError {
  return make_air_error({ kind: "system_error", message: `agent ${agent_id} could not be recorded as started`, retryability: "not_retryable" });
}

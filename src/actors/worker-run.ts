import { make_air_error, type AirError } from "../contracts/errors.js";
import type { AgentId } from "../contracts/ids.js";
import type { AgentStartContext } from "../contracts/ipc.js";
import type { TaskSpec } from "../contracts/task.js";
import type { WorkerResult } from "../contracts/worker-result.js";
import { worker_run_machine, type WorkerRunInput, type WorkerRunOutput } from "../machines/worker-run.js";
import { worker_bridge, type WorkerServices } from "./worker-bridge/index.js";

/** The worker-run machine with the real bridge: one worker process per run. */
export const worker_run_logic = worker_run_machine.provide({ actors: { bridge: worker_bridge } });

/** The machine's input, typed: the machine itself sees `services` as opaque. */
export function worker_run_input(input: {
  agent_id: AgentId;
  task: TaskSpec;
  context: AgentStartContext;
  services: WorkerServices;
}): WorkerRunInput {
  return input;
}

/** A run's output as the Scheduler consumes it: the worker's result, or the failure that kept it from one. */
export type WorkerRunVerdict = { readonly kind: "result"; readonly result: WorkerResult } | { readonly kind: "failure"; readonly error: AirError };

export function verdict_of(output: WorkerRunOutput): WorkerRunVerdict {
  if (output.status === "done" && output.result !== undefined) return { kind: "result", result: output.result };
  // A cancelled worker that still reported (status cancelled) keeps its evidence.
  if (output.status === "cancelled" && output.result !== undefined) return { kind: "result", result: output.result };
  if (output.error !== undefined) return { kind: "failure", error: output.error };
  return {
    kind: "failure",
    error: make_air_error({
      kind: "system_error",
      message: `a worker run ended ${output.status} with neither a result nor an error`,
      retryability: "unknown",
      user_action: "This is a bug in air's worker bridge; report it.",
    }),
  };
}

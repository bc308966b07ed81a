import { fromCallback } from "xstate";
import type { WorkerBridgeCommand, WorkerBridgeInput } from "../../machines/worker-run.js";
import { WorkerBridge } from "./bridge.js";
import { services_of } from "./services.js";

export { default_worker_entry, worker_environment } from "./process.js";
export type { WorkerEntry, WorkerLogEntry, WorkerServices, WorkerToolCaller, WorkerToolContext } from "./services.js";

/**
 * The worker bridge (DESIGN.md §5): a `fromCallback` actor that runs one worker process for the
 * worker-run machine. Input: `WorkerBridgeInput` with `services: WorkerServices`. It receives `CANCEL`
 * and sends back the `WorkerBridgeEvent`s; stopping it kills the process.
 */
export const worker_bridge = fromCallback<WorkerBridgeCommand, WorkerBridgeInput>(({ input, sendBack, receive }) => {
  const bridge = new WorkerBridge(input, services_of(input.services), sendBack);
  receive((command) => bridge.command(command));
  bridge.start();
  return () => bridge.dispose();
});

/**
 * The worker bridge (DESIGN.md §5): the I/O of the worker-run machine. `worker_process_logic` is its
 * `worker_process` actor (one process and its NDJSON channel); `src/actors/worker-run.ts` provides it with the
 * durable records.
 */
export { default_worker_entry, worker_environment } from "./process.js";
export { write_log } from "./services.js";
export type { WorkerEntry, WorkerLogEntry, WorkerServices, WorkerToolCaller } from "./services.js";
export { worker_process_logic } from "./worker-process.js";

/**
 * The worker child process (DESIGN.md §5): NDJSON on stdin (parent→worker) and stdout (worker→parent),
 * free-form diagnostics on stderr. The parent sends `agent.start`; the worker answers `worker.ready`, runs
 * the role of the task's type, sends `worker.result` and exits 0. A protocol error exits 2, an uncaught
 * exception 1 (3 when it is a permission error), a cancel 4 after sending what it can.
 */
import * as v from "valibot";
import { AirFailure, to_air_error } from "../contracts/errors.js";
import {
  AGENT_TYPE_OF_TASK,
  make_ipc_message,
  PROTOCOL_VERSION,
  WORKER_EXIT,
  type IpcAddress,
  type IpcKind,
  type IpcPayloadInputOf,
  type ParentToWorkerMessage,
  type WorkerExitCode,
} from "../contracts/ipc.js";
import { WorkerResult } from "../contracts/worker-result.js";
import { decode_line, encode_message, IpcProtocolError, LineSplitter } from "./protocol.js";
import { role_for } from "./roles/index.js";
import { WorkerRuntime } from "./runtime.js";
import { WORKER_VERSION } from "./version.js";

/** After a cancel, how long the role may take to wind down and report before the worker exits anyway. */
const CANCEL_WIND_DOWN_MS = 2_000;

// stdout is the protocol channel: nothing else may print there.
for (const method of ["log", "info", "debug"] as const) {
  console[method] = (...args: unknown[]) => console.error(...args);
}

let address: IpcAddress | undefined;
let runtime: WorkerRuntime | undefined;
let exiting = false;
let state: "awaiting_start" | "running" | "finished" = "awaiting_start";

function diagnostic(text: string): void {
  process.stderr.write(`[air worker ${process.pid}] ${text}\n`);
}

function post(message: ReturnType<typeof make_ipc_message>): void {
  if (exiting) return;
  process.stdout.write(encode_message(message, "worker_to_parent"));
}

function send<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>): void {
  if (address !== undefined) post(make_ipc_message(kind, payload, address));
}

/** Exits once everything written to stdout has been handed to the pipe. */
function exit(code: WorkerExitCode): void {
  if (exiting) return;
  runtime?.stop_heartbeat();
  exiting = true;
  // Should the event loop empty before the flush callback, the process still leaves with this code.
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

function protocol_fail(message: string): void {
  diagnostic(`protocol error: ${message}`);
  try {
    send("protocol.error", { message });
  } catch {
    // nothing more can be said on a channel that is itself the problem
  }
  exit(WORKER_EXIT.protocol_error);
}

function crash(error: unknown): void {
  const air_error = to_air_error(error, "agent_error");
  diagnostic(`uncaught: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  try {
    send("log", { level: "error", message: `worker crashed: ${air_error.message}`, data: { error: air_error } });
  } catch {
    // the crash report is best effort
  }
  exit(air_error.kind === "permission_error" ? WORKER_EXIT.permission_error : WORKER_EXIT.uncaught_exception);
}

process.on("uncaughtException", crash);
// EPIPE: the parent is gone, and with it anyone to report to.
process.stdout.on("error", () => process.exit(WORKER_EXIT.cancelled));
process.on("unhandledRejection", crash);

function start(message: Extract<ParentToWorkerMessage, { kind: "control" }>): void {
  if (message.payload.command !== "agent.start") {
    // A cancel before the run started: nothing to wind down.
    diagnostic(`cancelled before start: ${message.payload.reason}`);
    exit(WORKER_EXIT.cancelled);
    return;
  }
  const { task, context } = message.payload;
  address = { session_id: message.session_id, agent_id: message.agent_id };
  const agent_type = AGENT_TYPE_OF_TASK[task.type];
  const role = role_for(agent_type);
  if (role === undefined) {
    protocol_fail(`this worker has no ${agent_type} role (task type "${task.type}")`);
    return;
  }
  state = "running";
  const run = new WorkerRuntime({ address, task, context, agent_type, send: post });
  runtime = run;
  send("worker.ready", { protocol_version: PROTOCOL_VERSION, worker_version: WORKER_VERSION });
  run.start_heartbeat();
  role.run(task, context, run).then(
    (result) => finish(result),
    (error: unknown) => {
      if (error instanceof IpcProtocolError) protocol_fail(error.error.message);
      else crash(error);
    },
  );
}

function finish(result: unknown): void {
  if (exiting) return;
  const checked = v.safeParse(WorkerResult, result);
  if (!checked.success) {
    crash(new Error(`the role returned an invalid WorkerResult: ${v.summarize(checked.issues)}`));
    return;
  }
  state = "finished";
  send("worker.result", { result: checked.output });
  exit(runtime?.cancelled ? WORKER_EXIT.cancelled : WORKER_EXIT.completed);
}

function cancel(reason: string): void {
  if (runtime === undefined || runtime.cancelled) return;
  diagnostic(`cancelled: ${reason}`);
  runtime.cancel(reason);
  // The role reports a cancelled result when it notices; if it does not in time, leave without one.
  setTimeout(() => exit(WORKER_EXIT.cancelled), CANCEL_WIND_DOWN_MS).unref();
}

function receive(line: string): void {
  if (exiting) return;
  let message: ParentToWorkerMessage;
  try {
    message = decode_line(line, "parent_to_worker");
  } catch (error) {
    if (error instanceof AirFailure) return protocol_fail(error.error.message);
    throw error;
  }
  if (address !== undefined && (message.session_id !== address.session_id || message.agent_id !== address.agent_id)) {
    return protocol_fail(`a "${message.kind}" message for ${message.session_id}/${message.agent_id} reached ${address.session_id}/${address.agent_id}`);
  }
  if (state === "awaiting_start") {
    if (message.kind !== "control") return protocol_fail(`expected the agent.start control, got "${message.kind}"`);
    return start(message);
  }
  switch (message.kind) {
    case "control":
      if (message.payload.command === "cancel") return cancel(message.payload.reason);
      return protocol_fail("a second agent.start");
    case "tool.result":
    case "tool.stream":
      try {
        runtime?.receive(message);
      } catch (error) {
        if (error instanceof IpcProtocolError) return protocol_fail(error.error.message);
        throw error;
      }
      return;
  }
}

const splitter = new LineSplitter({
  line: receive,
  overflow: (bytes) => protocol_fail(`a line of more than ${bytes} bytes exceeds the IPC line limit`),
});

process.stdin.on("data", (chunk: Buffer) => splitter.push(chunk));
process.stdin.on("end", () => {
  splitter.end();
  if (exiting) return;
  if (state === "awaiting_start") {
    diagnostic("stdin closed before agent.start");
    exit(WORKER_EXIT.protocol_error);
  } else if (state === "running") {
    // The parent is gone: nobody can answer a tool call or take a result.
    runtime?.abandon("stdin closed");
    diagnostic("stdin closed while running; leaving as cancelled");
    exit(WORKER_EXIT.cancelled);
  }
});

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
  type IpcMessageOf,
  type ParentToWorkerMessage,
  type WorkerExitCode,
} from "../contracts/ipc.js";
import { WorkerResult } from "../contracts/worker-result.js";
import { decode_line, encode_message, IpcProtocolError, LineSplitter } from "./protocol.js";
import { role_loader } from "./roles/index.js";
import { WorkerRuntime } from "./runtime.js";
import { WORKER_VERSION } from "./version.js";

/** After a cancel, how long the role may take to wind down and report before the worker exits anyway. */
const CANCEL_WIND_DOWN_MS = 2_000;

/** How long an exiting worker waits for stdout to drain before it leaves anyway. */
const EXIT_FLUSH_MS = 1_000;

// stdout is the protocol channel: nothing else may print there.
for (const method of ["log", "info", "debug"] as const) {
  console[method] = (...args: unknown[]) => console.error(...args);
}

/**
 * Where this worker is in its protocol, kept here and nowhere else: waiting for `agent.start`, running a
 * role (its runtime holds the address every line carries), or leaving. The parent's worker-run machine is
 * the model of record of a worker's life; this is only what the process itself must know to answer.
 */
type Phase = { readonly name: "awaiting_start" } | { readonly name: "running"; readonly runtime: WorkerRuntime } | { readonly name: "exiting" };

let phase: Phase = { name: "awaiting_start" };

function address_of(current: Phase): IpcAddress | undefined {
  return current.name === "running" ? current.runtime.address : undefined;
}

function diagnostic(text: string): void {
  process.stderr.write(`[air worker ${process.pid}] ${text}\n`);
}

function post(message: ReturnType<typeof make_ipc_message>): void {
  if (phase.name === "exiting") return;
  process.stdout.write(encode_message(message, "worker_to_parent"));
}

/**
 * Exits once everything written to stdout has been handed to the pipe, or after `EXIT_FLUSH_MS` when the pipe
 * takes no more (a parent that stopped reading): a worker never lingers on its way out.
 */
function exit(code: WorkerExitCode): void {
  if (phase.name === "exiting") return;
  if (phase.name === "running") phase.runtime.stop_heartbeat();
  phase = { name: "exiting" };
  // Should the event loop empty before the flush callback, the process still leaves with this code.
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
  setTimeout(() => process.exit(code), EXIT_FLUSH_MS).unref();
}

/** `address`: where to say it; before the run there is none, unless the failing `agent.start` named one. */
function protocol_fail(message: string, address = address_of(phase)): void {
  diagnostic(`protocol error: ${message}`);
  try {
    if (address !== undefined) post(make_ipc_message("protocol.error", { message }, address));
  } catch {
    // nothing more can be said on a channel that is itself the problem
  }
  exit(WORKER_EXIT.protocol_error);
}

function crash(error: unknown): void {
  const air_error = to_air_error(error, "agent_error");
  diagnostic(`uncaught: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  try {
    const address = address_of(phase);
    if (address !== undefined)
      post(make_ipc_message("log", { level: "error", message: `worker crashed: ${air_error.message}`, data: { error: air_error } }, address));
  } catch {
    // the crash report is best effort
  }
  exit(air_error.kind === "permission_error" ? WORKER_EXIT.permission_error : WORKER_EXIT.uncaught_exception);
}

process.on("uncaughtException", crash);
// EPIPE: the parent is gone, and with it anyone to report to.
process.stdout.on("error", () => process.exit(WORKER_EXIT.cancelled));
process.on("unhandledRejection", crash);

function start(message: IpcMessageOf<"control">): void {
  const { payload } = message;
  if (payload.command === "cancel") {
    // A cancel before the run started: nothing to wind down.
    diagnostic(`cancelled before start: ${payload.reason}`);
    exit(WORKER_EXIT.cancelled);
    return;
  }
  if (payload.command !== "agent.start") {
    protocol_fail(`expected the agent.start control, got "${payload.command}"`);
    return;
  }
  const { task, brief } = payload;
  const address = { session_id: message.session_id, agent_id: message.agent_id };
  const agent_type = payload.agent_type ?? AGENT_TYPE_OF_TASK[task.type];
  const load_role = role_loader(agent_type);
  if (load_role === undefined) {
    protocol_fail(`this worker has no ${agent_type} role (task type "${task.type}")`, address);
    return;
  }
  const runtime = new WorkerRuntime({ address, task, brief, agent_type, send: post });
  phase = { name: "running", runtime };
  post(make_ipc_message("worker.ready", { protocol_version: PROTOCOL_VERSION, worker_version: WORKER_VERSION }, address));
  runtime.start_heartbeat();
  load_role()
    .then((role) => role.run(task, brief, runtime))
    .then(finish, (error: unknown) => {
      if (error instanceof IpcProtocolError) protocol_fail(error.error.message);
      else crash(error);
    });
}

function finish(result: unknown): void {
  if (phase.name !== "running") return;
  const checked = v.safeParse(WorkerResult, result);
  if (!checked.success) {
    crash(new Error(`the role returned an invalid WorkerResult: ${v.summarize(checked.issues)}`));
    return;
  }
  const { runtime } = phase;
  post(make_ipc_message("worker.result", { result: checked.output }, runtime.address));
  exit(runtime.cancelled ? WORKER_EXIT.cancelled : WORKER_EXIT.completed);
}

function cancel(runtime: WorkerRuntime, reason: string): void {
  if (runtime.cancelled) return;
  diagnostic(`cancelled: ${reason}`);
  runtime.cancel(reason);
  // The role reports a cancelled result when it notices; if it does not in time, leave without one.
  setTimeout(() => exit(WORKER_EXIT.cancelled), CANCEL_WIND_DOWN_MS).unref();
}

/** A line after `agent.start`: a cancel, or the answer to one of the role's tool calls. */
function receive_running(runtime: WorkerRuntime, message: ParentToWorkerMessage): void {
  const { address } = runtime;
  if (message.session_id !== address.session_id || message.agent_id !== address.agent_id) {
    return protocol_fail(`a "${message.kind}" message for ${message.session_id}/${message.agent_id} reached ${address.session_id}/${address.agent_id}`);
  }
  switch (message.kind) {
    case "control":
      switch (message.payload.command) {
        case "cancel":
          return cancel(runtime, message.payload.reason);
        case "wrap_up":
          diagnostic(`asked to wrap up: ${message.payload.reason}`);
          return runtime.wrap_up(message.payload.reason);
        case "ping":
          return runtime.beat();
        case "agent.start":
          return protocol_fail("a second agent.start");
      }
      return;
    case "tool.result":
    case "tool.stream":
      try {
        runtime.receive(message);
      } catch (error) {
        if (error instanceof IpcProtocolError) return protocol_fail(error.error.message);
        throw error;
      }
      return;
  }
}

function receive(line: string): void {
  if (phase.name === "exiting") return;
  let message: ParentToWorkerMessage;
  try {
    message = decode_line(line, "parent_to_worker");
  } catch (error) {
    if (error instanceof AirFailure) return protocol_fail(error.error.message);
    throw error;
  }
  if (phase.name === "running") return receive_running(phase.runtime, message);
  if (message.kind !== "control") return protocol_fail(`expected the agent.start control, got "${message.kind}"`);
  start(message);
}

const splitter = new LineSplitter({
  line: receive,
  overflow: (bytes) => protocol_fail(`a line of more than ${bytes} bytes exceeds the IPC line limit`),
});

process.stdin.on("data", (chunk: Buffer) => splitter.push(chunk));
process.stdin.on("end", () => {
  splitter.end();
  if (phase.name === "awaiting_start") {
    diagnostic("stdin closed before agent.start");
    exit(WORKER_EXIT.protocol_error);
  } else if (phase.name === "running") {
    // The parent is gone: nobody can answer a tool call or take a result.
    phase.runtime.abandon("stdin closed");
    diagnostic("stdin closed while running; leaving as cancelled");
    exit(WORKER_EXIT.cancelled);
  }
});

import { fromCallback } from "xstate";
import { to_air_error, type AirError } from "../../contracts/errors.js";
import { parse_event, stamp_event, type RuntimeEvent } from "../../contracts/events/registry.js";
import {
  make_ipc_message,
  MAX_LINE_BYTES,
  protocol_error,
  type IpcKind,
  type IpcMessageId,
  type IpcPayloadInputOf,
  type WorkerToParentMessage,
} from "../../contracts/ipc.js";
import type { WorkerProcessCommand, WorkerProcessEvent, WorkerProcessInput, WorkerRunLog } from "../../machines/worker-run.js";
import { decode_line, encode_message, IpcProtocolError } from "../../workers/protocol.js";
import { HeartbeatWriter } from "./heartbeat.js";
import { default_worker_entry, kill_worker, spawn_worker, StderrTail, wire_worker_pipes, worker_alive, type WorkerProcess } from "./process.js";
import { write_log, type WorkerServices } from "./services.js";
import { ToolCalls } from "./tool-calls.js";
import { refusal_of, worker_event_origin } from "./worker-events.js";

type Report = (event: WorkerProcessEvent) => void;

/**
 * One worker process and its NDJSON channel, for the worker-run machine: it starts the process, reports what
 * the process does (its spawn, each decoded line, a broken line, its exit) as machine events, and carries out
 * the machine's commands (control lines, signals, tool calls, event ingest, logs). It decides nothing about
 * the run: which line is allowed when, and how the run ends, are the machine's transitions.
 */
class WorkerChannel {
  readonly #services: WorkerServices;
  readonly #input: WorkerProcessInput;
  readonly #report: Report;
  readonly #stderr = new StderrTail();
  readonly #heartbeat: HeartbeatWriter;
  readonly #tool_calls: ToolCalls;
  /** The process spoken to; undefined before it started and once it has exited. */
  #child: WorkerProcess | undefined;

  constructor(services: WorkerServices, input: WorkerProcessInput, report: Report) {
    this.#services = services;
    this.#input = input;
    this.#report = report;
    this.#heartbeat = new HeartbeatWriter(services, input.agent_id, (message) => this.#log({ source: "bridge", level: "warn", message }));
    this.#tool_calls = new ToolCalls({
      services,
      caller: { session_id: services.session.id, agent_id: input.agent_id, task_id: input.task.id, scope: input.task.scope },
      send: (kind, payload, correlation_id) => this.#send(kind, payload, correlation_id),
      closed: () => this.#child === undefined,
      log: (level, message) => this.#log({ source: "bridge", level, message }),
    });
  }

  /** Starts the process; one that cannot be started is reported as spawned without a pid, an error, and an exit. */
  start(): void {
    let child: WorkerProcess;
    try {
      child = spawn_worker(this.#services.entry ?? default_worker_entry(), this.#services.env ?? process.env);
    } catch (error) {
      this.#report({ type: "worker.spawned", pid: undefined });
      this.#report({ type: "worker.error", error: to_air_error(error, "env_error") });
      this.#report({ type: "worker.exited", exit: { code: null, signal: null, stderr: "", last_heartbeat_at: undefined } });
      return;
    }
    this.#child = child;
    const overflow = (bytes: number) =>
      this.#broken(new IpcProtocolError("line_too_long", `a line of more than ${bytes} bytes exceeds the limit of ${MAX_LINE_BYTES}`).error);
    wire_worker_pipes(child, { line: (line) => this.#on_line(line), overflow }, this.#stderr);
    child.on("error", (error) => {
      this.#report({ type: "worker.error", error: to_air_error(error, "env_error") });
      // A process that never started reports no exit of its own worth recording (its "close" carries -ENOENT).
      if (child.pid === undefined) this.#exited(child, null, null);
    });
    child.on("close", (code, signal) => this.#exited(child, code, signal));
    this.#report({ type: "worker.spawned", pid: child.pid });
  }

  command(command: WorkerProcessCommand): void {
    switch (command.type) {
      case "process.control":
        return this.#send_control(command.payload);
      case "process.signal":
        return kill_worker(this.#child, command.signal);
      case "process.ingest":
        return this.#ingest(command.event.type, command.event.payload);
      case "process.call_tool":
        if (this.#tool_calls.has(command.correlation_id))
          return this.#broken(protocol_error("unexpected_message", `an unexpected tool.call (${command.correlation_id})`));
        return this.#tool_calls.start(command.call, command.correlation_id, command.aborted);
      case "process.abort_tools":
        return this.#tool_calls.abort_all();
      case "process.log":
        return this.#log(command.entry);
      case "process.probe":
        return this.#probe();
    }
  }

  /** Silent past its heartbeat timeout: a worker found gone ends here, without waiting for pipes others may hold. */
  #probe(): void {
    const child = this.#child;
    if (child === undefined) return;
    if (worker_alive(child)) return this.#report({ type: "worker.alive" });
    this.#exited(child, child.exitCode, child.signalCode, true);
  }

  /** The run stopped (it ended, or its owner went away): never leave a process behind. */
  dispose(): void {
    this.#tool_calls.abort_all();
    const child = this.#child;
    if (child === undefined) return;
    kill_worker(child, "SIGTERM");
    setTimeout(() => kill_worker(child, "SIGKILL"), this.#input.kill_grace_ms).unref();
  }

  #exited(child: WorkerProcess, code: number | null, signal: NodeJS.Signals | null, vanished = false): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.#tool_calls.abort_all();
    if (vanished) kill_worker(child, "SIGKILL");
    const { last_heartbeat_at } = this.#heartbeat;
    this.#report({ type: "worker.exited", exit: { code, signal, stderr: this.#stderr.text, last_heartbeat_at, ...(vanished ? { vanished } : {}) } });
  }

  #broken(error: AirError): void {
    this.#report({ type: "worker.protocol_error", error });
  }

  #on_line(line: string): void {
    let message: WorkerToParentMessage;
    try {
      message = decode_line(line, "worker_to_parent");
    } catch (error) {
      if (error instanceof IpcProtocolError) return this.#broken(error.error);
      throw error;
    }
    if (message.session_id !== this.#services.session.id || message.agent_id !== this.#input.agent_id) {
      return this.#broken(
        protocol_error("unexpected_message", `a "${message.kind}" line for ${message.session_id}/${message.agent_id} from worker ${this.#input.agent_id}`),
      );
    }
    this.#relay(message);
  }

  #relay(message: WorkerToParentMessage): void {
    switch (message.kind) {
      case "log":
        return this.#log({ source: "worker", ...message.payload });
      case "protocol.error":
        return this.#report({ type: "worker.gave_up", message: message.payload.message });
      case "worker.ready":
        return this.#report({ type: "worker.ready", ...message.payload });
      case "event":
        return this.#report({ type: "worker.event", event: message.payload });
      case "tool.call":
        if (message.correlation_id === undefined) {
          return this.#broken(protocol_error("invalid_message", `a tool.call of ${message.payload.call.tool_name} without a correlation_id`));
        }
        return this.#report({ type: "worker.tool_call", call: message.payload.call, correlation_id: message.correlation_id });
      case "worker.checkpoint":
        return this.#report({ type: "worker.checkpoint", data: message.payload.data });
      case "worker.result":
        return this.#report({ type: "worker.result", result: message.payload.result });
    }
  }

  #send_control(payload: IpcPayloadInputOf<"control">): void {
    try {
      this.#send("control", payload);
    } catch (error) {
      // Most likely a brief over the line limit: the worker cannot be told, which is the run's to decide on.
      this.#broken(to_air_error(error));
    }
  }

  /**
   * Worker events go through the ingestor like any other, under an envelope stamped here (see
   * `worker_event_origin`). A refused one is logged, never fatal.
   */
  #ingest(type: string, payload: unknown): void {
    const { session } = this.#services;
    const origin = worker_event_origin(session.origin, this.#input.agent_id, this.#input.agent_type);
    let event: RuntimeEvent;
    try {
      event = parse_event(stamp_event(type, payload, origin));
      const refusal = refusal_of(event, this.#input.agent_id);
      if (refusal !== undefined) {
        this.#log({ source: "bridge", level: "warn", message: `refused a worker event: ${refusal}`, data: { type: event.type } });
        return;
      }
      session.ingestor.ingest(event);
    } catch (error) {
      this.#log({ source: "bridge", level: "warn", message: `refused a worker event: ${to_air_error(error).message}`, data: { error: to_air_error(error) } });
      return;
    }
    if (event.type === "agent.heartbeat") this.#heartbeat.beat();
  }

  #send<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id?: IpcMessageId): void {
    const child = this.#child;
    if (child === undefined || child.stdin.destroyed || !child.stdin.writable) return;
    const message = make_ipc_message(kind, payload, { session_id: this.#services.session.id, agent_id: this.#input.agent_id }, correlation_id);
    child.stdin.write(encode_message(message, "parent_to_worker"));
  }

  #log(entry: WorkerRunLog): void {
    write_log(this.#services.on_log, { agent_id: this.#input.agent_id, ...entry });
  }
}

/**
 * The worker-run machine's `worker_process` actor over `services`: one process per invocation (DESIGN.md §5);
 * stopping the actor ends the process.
 */
export function worker_process_logic(services: WorkerServices) {
  return fromCallback<WorkerProcessCommand, WorkerProcessInput>(({ input, sendBack, receive }) => {
    const channel = new WorkerChannel(services, input, sendBack);
    receive((command) => channel.command(command));
    channel.start();
    return () => channel.dispose();
  });
}

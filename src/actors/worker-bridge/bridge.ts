import { to_air_error, type AirError } from "../../contracts/errors.js";
import { make_event, parse_event, stamp_event, type EventOrigin, type RuntimeEvent } from "../../contracts/events/registry.js";
import type { AgentId } from "../../contracts/ids.js";
import {
  AGENT_TYPE_OF_TASK,
  make_ipc_message,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  WORKER_EXIT,
  type IpcKind,
  type IpcMessageId,
  type IpcPayloadInputOf,
  type LogLevel,
  type WorkerToParentMessage,
} from "../../contracts/ipc.js";
import type { ToolCall } from "../../contracts/tool.js";
import type { AgentType, WorkerResult } from "../../contracts/worker-result.js";
import type { WorkerBridgeCommand, WorkerBridgeEvent, WorkerBridgeInput } from "../../machines/worker-run.js";
import { decode_line, encode_message, IpcProtocolError } from "../../workers/protocol.js";
import { cancelled_error, exit_error, lost_error, lost_reason, not_recorded_error, timeout_error } from "./errors.js";
import { HeartbeatWriter } from "./heartbeat.js";
import { default_worker_entry, kill_worker, spawn_worker, StderrTail, wire_worker_pipes, type WorkerProcess } from "./process.js";
import { DEFAULTS, write_log, type WorkerLogEntry, type WorkerServices } from "./services.js";
import { Timers } from "./timers.js";
import { ToolCalls } from "./tool-calls.js";
import { refusal_of, worker_event_origin } from "./worker-events.js";

export type SendBack = (event: WorkerBridgeEvent) => void;

/**
 * One worker process and its NDJSON channel. It owns the worker's durable lifecycle events: `agent.started`
 * (starting at spawn, running after the handshake) and exactly one of agent.completed / failed / lost /
 * cancelled when the process is gone, then reports the same ending to the machine.
 */
export class WorkerBridge {
  readonly #input: WorkerBridgeInput;
  readonly #services: WorkerServices;
  readonly #send_back: SendBack;
  readonly #agent_id: AgentId;
  readonly #origin: EventOrigin;
  readonly #agent_type: AgentType;
  readonly #timers = new Timers();
  readonly #stderr = new StderrTail();
  readonly #heartbeat: HeartbeatWriter;
  readonly #tool_calls: ToolCalls;
  #child: WorkerProcess | undefined;
  #pid: number | undefined;
  #phase: "spawning" | "handshaking" | "running" | "closed" = "spawning";
  #started = false;
  #disposed = false;
  #result: WorkerResult | undefined;
  #lingering = false;
  /** Why the parent ended the worker (protocol error, timeout, spawn failure); reported on close. */
  #failure: AirError | undefined;
  #worker_protocol_error: string | undefined;
  #cancel_reason: string | undefined;

  constructor(input: WorkerBridgeInput, services: WorkerServices, send_back: SendBack) {
    this.#input = input;
    this.#services = services;
    this.#send_back = send_back;
    this.#agent_id = input.agent_id;
    this.#agent_type = AGENT_TYPE_OF_TASK[input.task.type];
    this.#origin = { ...services.session.origin, source: { kind: "system" }, route: ["runtime", "worker-bridge"] };
    this.#heartbeat = new HeartbeatWriter(services, input.agent_id, (message) => this.#log("bridge", "warn", message));
    this.#tool_calls = new ToolCalls({
      services,
      caller: { session_id: services.session.id, agent_id: input.agent_id, task_id: input.task.id, scope: input.task.scope },
      send: (kind, payload, correlation_id) => this.#send(kind, payload, correlation_id),
      closed: () => this.#phase === "closed",
      log: (level, message) => this.#log("bridge", level, message),
    });
  }

  start(): void {
    const child = this.#spawn();
    if (child === undefined) return;
    if (!this.#announce_started(child.pid)) {
      this.#kill("SIGKILL");
      return;
    }
    this.#send_back({ type: "WORKER.SPAWNED", pid: child.pid });
    this.#phase = "handshaking";
    this.#send("control", { command: "agent.start", task: this.#input.task, context: this.#input.context });
    this.#start_deadlines();
  }

  command(command: WorkerBridgeCommand): void {
    if (command.type === "CANCEL") this.#cancel(command.reason);
  }

  /** The actor stopped (its run ended, or its owner went away): never leave a process behind. */
  dispose(): void {
    this.#disposed = true;
    this.#tool_calls.abort_all();
    if (this.#phase !== "closed" && this.#child !== undefined) {
      this.#kill("SIGTERM");
      const timer = setTimeout(() => this.#kill("SIGKILL"), this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms);
      timer.unref();
    }
    this.#timers.clear();
  }

  // --- process start ------------------------------------------------------------------------------

  /** Starts the process and listens to it; undefined when it could not be started (the run has ended then). */
  #spawn(): WorkerProcess | undefined {
    const entry = this.#services.entry ?? default_worker_entry();
    let child: WorkerProcess;
    try {
      child = spawn_worker(entry, this.#services.env ?? process.env);
    } catch (error) {
      this.#announce_started(undefined);
      this.#end_now("WORKER.FAILED", to_air_error(error, "env_error"));
      return undefined;
    }
    this.#child = child;
    this.#pid = child.pid;
    wire_worker_pipes(
      child,
      {
        line: (line) => this.#on_line(line),
        overflow: (bytes) => this.#protocol_failure(new IpcProtocolError("line_too_long", `a line of more than ${bytes} bytes exceeds the limit of ${MAX_LINE_BYTES}`)),
      },
      this.#stderr,
    );
    child.on("error", (error) => {
      if (this.#failure === undefined) this.#failure = to_air_error(error, "env_error");
      // A process that never started emits no "close".
      if (child.pid === undefined) this.#on_close(null, null);
    });
    child.on("close", (code, signal) => this.#on_close(code, signal));
    return child;
  }

  /** The handshake timeout and the task's hard timeout, both counted from spawn. */
  #start_deadlines(): void {
    this.#timers.after(this.#services.handshake_timeout_ms ?? DEFAULTS.handshake_timeout_ms, () => {
      if (this.#phase === "handshaking") {
        this.#protocol_failure(new IpcProtocolError("unexpected_message", "no worker.ready before the handshake timeout"));
      }
    });
    const hard_timeout_ms = this.#input.task.constraints.hard_timeout_ms;
    this.#timers.after(hard_timeout_ms, () => {
      // After a result the worker is only late to leave; the linger timer ends it.
      if (this.#phase === "closed" || this.#failure !== undefined || this.#result !== undefined) return;
      this.#failure = timeout_error(hard_timeout_ms, this.#stderr.text);
      this.#log("bridge", "error", `hard timeout of ${hard_timeout_ms} ms: terminating the worker`);
      this.#terminate();
    });
  }

  // --- durable lifecycle --------------------------------------------------------------------------

  #ingest_lifecycle(type: "agent.started" | "agent.completed" | "agent.failed" | "agent.lost" | "agent.cancelled", payload: unknown): boolean {
    try {
      this.#services.session.ingestor.ingest(make_event(type, payload as never, this.#origin));
      return true;
    } catch (error) {
      this.#log("bridge", "error", `could not record ${type}: ${to_air_error(error).message}`, { error: to_air_error(error) });
      return false;
    }
  }

  #started_payload(status: "starting" | "running", pid: number | undefined) {
    return {
      agent_id: this.#agent_id,
      agent_type: this.#agent_type,
      status,
      task_id: this.#input.task.id,
      model_id: this.#input.context.model_id,
      ...(pid === undefined ? {} : { pid }),
    };
  }

  #announce_started(pid: number | undefined): boolean {
    this.#started = this.#ingest_lifecycle("agent.started", this.#started_payload("starting", pid));
    if (!this.#started) {
      this.#phase = "closed";
      this.#send_back({ type: "WORKER.FAILED", exit_code: null, error: not_recorded_error(this.#agent_id) });
    }
    return this.#started;
  }

  /** Ends a run whose process never came to be. */
  #end_now(type: "WORKER.FAILED", error: AirError): void {
    if (this.#phase === "closed" && !this.#started) return;
    this.#phase = "closed";
    this.#ingest_lifecycle("agent.failed", { agent_id: this.#agent_id, error });
    this.#send_back({ type, error, exit_code: null });
  }

  #on_close(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#phase === "closed") return;
    this.#phase = "closed";
    this.#timers.clear();
    this.#tool_calls.abort_all();
    // After a stop the owner is gone: recovery finds the row still running and settles it.
    if (this.#disposed) return;
    const exit_code = code;
    const result = this.#result;
    const ended_by_us = this.#lingering && code === null;
    if (result !== undefined && this.#failure === undefined && (code === WORKER_EXIT.completed || ended_by_us)) {
      this.#ingest_lifecycle("agent.completed", { agent_id: this.#agent_id, ...(code === null ? {} : { exit_code: code }) });
      this.#send_back({ type: "WORKER.COMPLETED", result, exit_code });
      return;
    }
    if (this.#cancel_reason !== undefined) {
      const reason = this.#cancel_reason;
      this.#ingest_lifecycle("agent.cancelled", { agent_id: this.#agent_id, reason });
      this.#send_back({ type: "WORKER.CANCELLED", reason, error: cancelled_error(reason), exit_code, ...(result === undefined ? {} : { result }) });
      return;
    }
    const failure =
      this.#failure ??
      (code !== null && code !== WORKER_EXIT.completed ? exit_error(code, this.#stderr.text, this.#worker_protocol_error) : undefined);
    if (failure !== undefined) {
      const recorded_code = failure.metadata?.timeout === true ? WORKER_EXIT.hard_timeout : code;
      this.#ingest_lifecycle("agent.failed", { agent_id: this.#agent_id, error: failure, ...(recorded_code === null ? {} : { exit_code: recorded_code }) });
      this.#send_back({ type: "WORKER.FAILED", error: failure, exit_code, ...(result === undefined ? {} : { result }) });
      return;
    }
    // Exit 0 without a result, or killed by someone else: the worker vanished.
    const reason = lost_reason(code, signal);
    const last_heartbeat_at = this.#heartbeat.last_heartbeat_at;
    this.#ingest_lifecycle("agent.lost", { agent_id: this.#agent_id, reason, ...(last_heartbeat_at === undefined ? {} : { last_heartbeat_at }) });
    this.#send_back({ type: "WORKER.LOST", error: lost_error(reason, code, signal, this.#stderr.text), exit_code });
  }

  // --- incoming lines -----------------------------------------------------------------------------

  #on_line(line: string): void {
    if (this.#phase === "closed" || this.#failure !== undefined) return;
    let message: WorkerToParentMessage;
    try {
      message = decode_line(line, "worker_to_parent");
    } catch (error) {
      if (error instanceof IpcProtocolError) return this.#protocol_failure(error);
      throw error;
    }
    if (message.session_id !== this.#services.session.id || message.agent_id !== this.#agent_id) {
      return this.#protocol_failure(
        new IpcProtocolError("unexpected_message", `a "${message.kind}" line for ${message.session_id}/${message.agent_id} from worker ${this.#agent_id}`),
      );
    }
    switch (message.kind) {
      case "log":
        return this.#log("worker", message.payload.level, message.payload.message, message.payload.data);
      case "protocol.error":
        // The worker gave up on us; it exits 2 by itself, and that exit names its message.
        this.#worker_protocol_error = message.payload.message;
        this.#log("worker", "error", `protocol error reported by the worker: ${message.payload.message}`);
        this.#linger_then_terminate();
        return;
      case "worker.ready":
        return this.#on_ready(message.payload.protocol_version, message.payload.worker_version);
      default:
        break;
    }
    if (this.#phase !== "running") {
      return this.#protocol_failure(new IpcProtocolError("unexpected_message", `"${message.kind}" before worker.ready`));
    }
    switch (message.kind) {
      case "event":
        return this.#on_event(message.payload.type, message.payload.payload);
      case "tool.call":
        return this.#on_tool_call(message.payload.call, message.correlation_id);
      case "worker.checkpoint":
        return this.#send_back({ type: "WORKER.CHECKPOINT", data: message.payload.data });
      case "worker.result":
        return this.#on_result(message.payload.result);
    }
  }

  #on_ready(protocol_version: number, worker_version: string): void {
    if (this.#phase !== "handshaking") {
      return this.#protocol_failure(new IpcProtocolError("unexpected_message", "a second worker.ready"));
    }
    if (protocol_version !== PROTOCOL_VERSION) {
      return this.#protocol_failure(
        new IpcProtocolError("version_mismatch", `worker speaks protocol version ${protocol_version}, this parent ${PROTOCOL_VERSION}`, {
          received: protocol_version,
          expected: PROTOCOL_VERSION,
        }),
      );
    }
    this.#phase = "running";
    if (this.#cancel_reason !== undefined) return;
    this.#ingest_lifecycle("agent.started", this.#started_payload("running", this.#pid));
    this.#send_back({ type: "WORKER.READY", worker_version });
  }

  /**
   * Worker events go through the ingestor like any other, under an envelope stamped here (see
   * `worker_event_origin`). A refused one is logged, never fatal.
   */
  #on_event(type: string, payload: unknown): void {
    const origin = worker_event_origin(this.#services.session.origin, this.#agent_id, this.#agent_type);
    let event: RuntimeEvent;
    try {
      event = parse_event(stamp_event(type, payload, origin));
      const refusal = refusal_of(event, this.#agent_id);
      if (refusal !== undefined) {
        this.#log("bridge", "warn", `refused a worker event: ${refusal}`, { type: event.type });
        return;
      }
      this.#services.session.ingestor.ingest(event);
    } catch (error) {
      this.#log("bridge", "warn", `refused a worker event: ${to_air_error(error).message}`, { error: to_air_error(error) });
      return;
    }
    if (event.type === "agent.heartbeat") this.#heartbeat.beat();
  }

  #on_result(result: WorkerResult): void {
    if (this.#result !== undefined) return this.#protocol_failure(new IpcProtocolError("unexpected_message", "a second worker.result"));
    if (result.agent_id !== this.#agent_id || result.task_id !== this.#input.task.id) {
      return this.#protocol_failure(
        new IpcProtocolError("unexpected_message", `a result for ${result.task_id}/${result.agent_id}, expected ${this.#input.task.id}/${this.#agent_id}`),
      );
    }
    if (result.agent_type !== this.#agent_type) {
      return this.#protocol_failure(new IpcProtocolError("unexpected_message", `a ${result.agent_type} result from an ${this.#agent_type} worker`));
    }
    this.#result = result;
    this.#send_back({ type: "WORKER.RESULT", result });
    // The worker exits by itself now; one that lingers is ended and still counts as done.
    this.#linger_then_terminate(() => {
      this.#lingering = true;
    });
  }

  #on_tool_call(call: ToolCall, correlation_id: IpcMessageId | undefined): void {
    if (correlation_id === undefined) {
      return this.#protocol_failure(new IpcProtocolError("invalid_message", `a tool.call of ${call.tool_name} without a correlation_id`));
    }
    if (this.#result !== undefined || this.#tool_calls.has(correlation_id)) {
      return this.#protocol_failure(new IpcProtocolError("unexpected_message", `an unexpected tool.call (${correlation_id})`));
    }
    this.#tool_calls.start(call, correlation_id, this.#cancel_reason !== undefined);
  }

  // --- ending the process ---------------------------------------------------------------------------

  #protocol_failure(error: IpcProtocolError): void {
    if (this.#phase === "closed" || this.#failure !== undefined) return;
    this.#failure = error.error;
    this.#log("bridge", "error", error.message, { protocol_error: error.code });
    this.#terminate();
  }

  #cancel(reason: string): void {
    if (this.#phase === "closed" || this.#cancel_reason !== undefined) return;
    this.#cancel_reason = reason;
    this.#tool_calls.abort_all();
    try {
      this.#send("control", { command: "cancel", reason });
    } catch (error) {
      this.#log("bridge", "warn", `could not send cancel: ${to_air_error(error).message}`);
    }
    this.#timers.after(this.#services.cancel_grace_ms ?? DEFAULTS.cancel_grace_ms, () => this.#terminate());
  }

  #linger_then_terminate(before?: () => void): void {
    this.#timers.after(this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms, () => {
      before?.();
      this.#terminate();
    });
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  #terminate(): void {
    if (this.#phase === "closed") return;
    this.#kill("SIGTERM");
    this.#timers.after(this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms, () => this.#kill("SIGKILL"));
  }

  #kill(signal: NodeJS.Signals): void {
    kill_worker(this.#child, signal);
  }

  // --- plumbing -----------------------------------------------------------------------------------

  #send<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id?: IpcMessageId): void {
    const child = this.#child;
    if (child === undefined || this.#phase === "closed" || child.stdin.destroyed || !child.stdin.writable) return;
    const message = make_ipc_message(kind, payload, { session_id: this.#services.session.id, agent_id: this.#agent_id }, correlation_id);
    child.stdin.write(encode_message(message, "parent_to_worker"));
  }

  #log(source: WorkerLogEntry["source"], level: LogLevel, message: string, data?: unknown): void {
    write_log(this.#services.on_log, { agent_id: this.#agent_id, source, level, message, ...(data === undefined ? {} : { data }) });
  }
}

import { is_credential_variable } from "../permissions/credentials.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { fromCallback } from "xstate";
import { air_failure, make_air_error, to_air_error, type AirError, type Retryability } from "../contracts/errors.js";
import { is_durable, make_event, parse_event, stamp_event, type EventOrigin, type RuntimeEvent } from "../contracts/events/registry.js";
import { now_iso, type AgentId, type SessionId, type TaskId } from "../contracts/ids.js";
import {
  AGENT_TYPE_OF_TASK,
  make_ipc_message,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  WORKER_EXIT,
  worker_exit_name,
  type IpcKind,
  type IpcMessageId,
  type IpcPayloadInputOf,
  type LogLevel,
  type WorkerToParentMessage,
} from "../contracts/ipc.js";
import type { TaskScope } from "../contracts/task.js";
import { ToolOutcome, type ToolCall } from "../contracts/tool.js";
import type { WorkerResult } from "../contracts/worker-result.js";
import { agents } from "../db/schema.js";
import type { WorkerBridgeCommand, WorkerBridgeEvent, WorkerBridgeInput } from "../machines/worker-run.js";
import type { Session } from "../project/session-manager.js";
import { decode_line, encode_message, IpcProtocolError, LineSplitter } from "../workers/protocol.js";

// ---------------------------------------------------------------------------------------------------
// Services the bridge is given
// ---------------------------------------------------------------------------------------------------

/** What a tool call from a worker runs with: who asks, and a signal that aborts on cancel, timeout or exit. */
export type WorkerToolContext = {
  readonly session_id: SessionId;
  readonly agent_id: AgentId;
  readonly task_id: TaskId;
  /** The task's scope, for the registry's path checks. */
  readonly scope: TaskScope;
  readonly correlation_id: IpcMessageId;
  readonly signal: AbortSignal;
};

/**
 * Runs one tool call of a worker (the runtime wires it to `ToolRegistry.call`; `model.complete` included).
 * `on_stream` relays chunks to the worker as `tool.stream`. A rejection becomes a `tool_error` outcome.
 */
export type WorkerToolCaller = (call: ToolCall, context: WorkerToolContext, on_stream: (chunk: unknown) => void) => Promise<ToolOutcome>;

export type WorkerLogEntry = {
  readonly agent_id: AgentId;
  /** `worker`: a `log` line the worker sent; `bridge`: something the bridge noticed (refused event, protocol error…). */
  readonly source: "worker" | "bridge";
  readonly level: LogLevel;
  readonly message: string;
  readonly data?: unknown;
};

/** How to start a worker: a command and its arguments (default: this installation's `workers/main`). */
export type WorkerEntry = { readonly command: string; readonly args: readonly string[] };

export type WorkerServices = {
  readonly session: Pick<Session, "id" | "ingestor" | "connection" | "origin">;
  readonly call_tool: WorkerToolCaller;
  readonly entry?: WorkerEntry;
  /** The environment to start from (default `process.env`); credentials are always removed. */
  readonly env?: NodeJS.ProcessEnv;
  /** SIGTERM → SIGKILL (default 5 s). */
  readonly kill_grace_ms?: number;
  /** `cancel` control → SIGTERM (default 3 s). */
  readonly cancel_grace_ms?: number;
  /** Spawn → `worker.ready` (default 30 s). */
  readonly handshake_timeout_ms?: number;
  /** Least time between two `agents.last_heartbeat_at` writes (default 1 s). */
  readonly heartbeat_write_interval_ms?: number;
  /** Where worker logs and bridge diagnostics go (default: warnings and errors to stderr). */
  readonly on_log?: (entry: WorkerLogEntry) => void;
};

const DEFAULTS = {
  kill_grace_ms: 5_000,
  cancel_grace_ms: 3_000,
  handshake_timeout_ms: 30_000,
  heartbeat_write_interval_ms: 1_000,
} as const;

const STDERR_TAIL_CHARS = 4_000;

function is_worker_services(value: unknown): value is WorkerServices {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<WorkerServices>;
  return typeof candidate.call_tool === "function" && typeof candidate.session?.ingestor?.ingest === "function";
}

function services_of(value: unknown): WorkerServices {
  if (!is_worker_services(value)) {
    throw air_failure({
      kind: "system_error",
      message: "the worker bridge needs services { session, call_tool }",
      retryability: "not_retryable",
      user_action: "This is a bug in air's runtime wiring; report it.",
    });
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Process start
// ---------------------------------------------------------------------------------------------------

/** `base` without credentials: a worker holds none (DESIGN.md §5). */
export function worker_environment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(base).filter(([name, value]) => value !== undefined && !is_credential_variable(name)));
}

/**
 * `node <dist>/workers/main.js` from the build; from the sources (vitest, tsx) `node --import tsx
 * src/workers/main.ts`. Found relative to this module, so it works from any cwd.
 */
export function default_worker_entry(): WorkerEntry {
  if (import.meta.url.endsWith(".ts")) {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    return { command: process.execPath, args: ["--import", loader, fileURLToPath(new URL("../workers/main.ts", import.meta.url))] };
  }
  return { command: process.execPath, args: [fileURLToPath(new URL("../workers/main.js", import.meta.url))] };
}

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

const RETRYABILITY_OF_EXIT: Record<number, Retryability> = {
  [WORKER_EXIT.uncaught_exception]: "retryable",
  [WORKER_EXIT.protocol_error]: "not_retryable",
  [WORKER_EXIT.permission_error]: "retryable_after_change",
  [WORKER_EXIT.cancelled]: "not_retryable",
  [WORKER_EXIT.hard_timeout]: "retryable",
};

function exit_error(code: number, stderr: string, worker_said: string | undefined): AirError {
  const name = worker_exit_name(code);
  return make_air_error({
    kind: code === WORKER_EXIT.permission_error ? "permission_error" : "agent_error",
    message: `worker exited with code ${code} (${name ?? "unknown exit code"})${worker_said === undefined ? "" : `: ${worker_said}`}`,
    retryability: RETRYABILITY_OF_EXIT[code] ?? "unknown",
    ...(stderr.length > 0 ? { detail: stderr } : {}),
    metadata: { exit_code: code, exit_name: name ?? null },
  });
}

function timeout_error(hard_timeout_ms: number, stderr: string): AirError {
  return make_air_error({
    kind: "agent_error",
    message: `worker killed after its hard timeout of ${hard_timeout_ms} ms`,
    retryability: "retryable",
    user_action: "Split the task or raise constraints.hard_timeout_ms.",
    ...(stderr.length > 0 ? { detail: stderr } : {}),
    metadata: { timeout: true, hard_timeout_ms, exit_code: WORKER_EXIT.hard_timeout, exit_name: "hard_timeout" },
  });
}

// ---------------------------------------------------------------------------------------------------
// The bridge
// ---------------------------------------------------------------------------------------------------

type SendBack = (event: WorkerBridgeEvent) => void;

/**
 * One worker process and its NDJSON channel. It owns the worker's durable lifecycle events: `agent.started`
 * (starting at spawn, running after the handshake) and exactly one of agent.completed / failed / lost /
 * cancelled when the process is gone, then reports the same ending to the machine.
 */
class WorkerBridge {
  readonly #input: WorkerBridgeInput;
  readonly #services: WorkerServices;
  readonly #send_back: SendBack;
  readonly #agent_id: AgentId;
  readonly #origin: EventOrigin;
  readonly #agent_type;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #in_flight = new Map<IpcMessageId, AbortController>();
  #child: ChildProcessWithoutNullStreams | undefined;
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
  #stderr = "";
  #last_heartbeat_write = 0;
  #last_heartbeat_at: string | undefined;

  constructor(input: WorkerBridgeInput, services: WorkerServices, send_back: SendBack) {
    this.#input = input;
    this.#services = services;
    this.#send_back = send_back;
    this.#agent_id = input.agent_id;
    this.#agent_type = AGENT_TYPE_OF_TASK[input.task.type];
    this.#origin = { ...services.session.origin, source: { kind: "system" }, route: ["runtime", "worker-bridge"] };
  }

  start(): void {
    const entry = this.#services.entry ?? default_worker_entry();
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(entry.command, [...entry.args], { stdio: ["pipe", "pipe", "pipe"], env: worker_environment(this.#services.env ?? process.env) });
    } catch (error) {
      this.#announce_started(undefined);
      this.#end_now("WORKER.FAILED", to_air_error(error, "env_error"));
      return;
    }
    this.#child = child;
    this.#pid = child.pid;
    const splitter = new LineSplitter({
      line: (line) => this.#on_line(line),
      overflow: (bytes) => this.#protocol_failure(new IpcProtocolError("line_too_long", `a line of more than ${bytes} bytes exceeds the limit of ${MAX_LINE_BYTES}`)),
    });
    child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk));
    child.stdout.on("end", () => splitter.end());
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // A worker that already exited closes its stdin; writing to it must not crash the parent.
    child.stdin.on("error", () => undefined);
    child.on("error", (error) => {
      if (this.#failure === undefined) this.#failure = to_air_error(error, "env_error");
      // A process that never started emits no "close".
      if (child.pid === undefined) this.#on_close(null, null);
    });
    child.on("close", (code, signal) => this.#on_close(code, signal));

    if (!this.#announce_started(child.pid)) {
      this.#kill("SIGKILL");
      return;
    }
    this.#send_back({ type: "WORKER.SPAWNED", pid: child.pid });
    this.#phase = "handshaking";
    this.#send("control", { command: "agent.start", task: this.#input.task, context: this.#input.context });
    this.#after(this.#services.handshake_timeout_ms ?? DEFAULTS.handshake_timeout_ms, () => {
      if (this.#phase === "handshaking") {
        this.#protocol_failure(new IpcProtocolError("unexpected_message", "no worker.ready before the handshake timeout"));
      }
    });
    const hard_timeout_ms = this.#input.task.constraints.hard_timeout_ms;
    this.#after(hard_timeout_ms, () => {
      // After a result the worker is only late to leave; the linger timer ends it.
      if (this.#phase === "closed" || this.#failure !== undefined || this.#result !== undefined) return;
      this.#failure = timeout_error(hard_timeout_ms, this.#stderr);
      this.#log("bridge", "error", `hard timeout of ${hard_timeout_ms} ms: terminating the worker`);
      this.#terminate();
    });
  }

  command(command: WorkerBridgeCommand): void {
    if (command.type === "CANCEL") this.#cancel(command.reason);
  }

  /** The actor stopped (its run ended, or its owner went away): never leave a process behind. */
  dispose(): void {
    this.#disposed = true;
    this.#abort_tools();
    if (this.#phase !== "closed" && this.#child !== undefined) {
      this.#kill("SIGTERM");
      const timer = setTimeout(() => this.#kill("SIGKILL"), this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms);
      timer.unref();
    }
    this.#clear_timers();
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
      this.#send_back({
        type: "WORKER.FAILED",
        exit_code: null,
        error: make_air_error({ kind: "system_error", message: `agent ${this.#agent_id} could not be recorded as started`, retryability: "not_retryable" }),
      });
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
    this.#clear_timers();
    this.#abort_tools();
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
      const error = make_air_error({ kind: "agent_error", severity: "info", message: `worker cancelled: ${reason}`, retryability: "not_retryable", metadata: { cancelled: true } });
      this.#send_back({ type: "WORKER.CANCELLED", reason, error, exit_code, ...(result === undefined ? {} : { result }) });
      return;
    }
    const failure =
      this.#failure ??
      (code !== null && code !== WORKER_EXIT.completed ? exit_error(code, this.#stderr, this.#worker_protocol_error) : undefined);
    if (failure !== undefined) {
      const recorded_code = failure.metadata?.timeout === true ? WORKER_EXIT.hard_timeout : code;
      this.#ingest_lifecycle("agent.failed", { agent_id: this.#agent_id, error: failure, ...(recorded_code === null ? {} : { exit_code: recorded_code }) });
      this.#send_back({ type: "WORKER.FAILED", error: failure, exit_code, ...(result === undefined ? {} : { result }) });
      return;
    }
    // Exit 0 without a result, or killed by someone else: the worker vanished.
    const reason = code === null ? `worker was killed by ${signal ?? "a signal"} without a result` : `worker exited with code ${code} without a result`;
    this.#ingest_lifecycle("agent.lost", {
      agent_id: this.#agent_id,
      reason,
      ...(this.#last_heartbeat_at === undefined ? {} : { last_heartbeat_at: this.#last_heartbeat_at }),
    });
    const error = make_air_error({
      kind: "agent_error",
      message: reason,
      retryability: "retryable",
      ...(this.#stderr.length > 0 ? { detail: this.#stderr } : {}),
      metadata: { lost: true, exit_code: code, signal },
    });
    this.#send_back({ type: "WORKER.LOST", error, exit_code });
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
   * Worker events go through the ingestor like any other, under an envelope stamped here: the worker names
   * only type and payload, so it can speak for no one but itself. A refused one is logged, never fatal.
   */
  #on_event(type: string, payload: unknown): void {
    const origin: EventOrigin = {
      ...this.#services.session.origin,
      source: { kind: "agent", id: this.#agent_id, agent_type: this.#agent_type },
      route: ["main", "scheduler", this.#agent_id],
    };
    let event: RuntimeEvent;
    try {
      event = parse_event(stamp_event(type, payload, origin));
      const refusal = this.#refusal(event);
      if (refusal !== undefined) {
        this.#log("bridge", "warn", `refused a worker event: ${refusal}`, { type: event.type });
        return;
      }
      this.#services.session.ingestor.ingest(event);
    } catch (error) {
      this.#log("bridge", "warn", `refused a worker event: ${to_air_error(error).message}`, { error: to_air_error(error) });
      return;
    }
    if (event.type === "agent.heartbeat") this.#heartbeat();
  }

  /** A worker's own lifecycle is the parent's to record, and its heartbeats are about itself. */
  #refusal(event: RuntimeEvent): string | undefined {
    if (is_durable(event) && event.type.startsWith("agent.")) return `"${event.type}" is recorded by the parent, not by the worker`;
    if (event.type === "agent.heartbeat" && event.payload.agent_id !== this.#agent_id) return `a heartbeat for another agent (${event.payload.agent_id})`;
    return undefined;
  }

  /** The one allowed direct write (000 §18.6): `agents.last_heartbeat_at`, throttled. */
  #heartbeat(): void {
    const now = Date.now();
    if (now - this.#last_heartbeat_write < (this.#services.heartbeat_write_interval_ms ?? DEFAULTS.heartbeat_write_interval_ms)) return;
    this.#last_heartbeat_write = now;
    const at = now_iso();
    try {
      const { connection } = this.#services.session;
      connection.write(() => connection.db.update(agents).set({ last_heartbeat_at: at }).where(eq(agents.id, this.#agent_id)).run());
      this.#last_heartbeat_at = at;
    } catch (error) {
      this.#log("bridge", "warn", `could not record a heartbeat: ${to_air_error(error).message}`);
    }
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
    if (this.#result !== undefined || this.#in_flight.has(correlation_id)) {
      return this.#protocol_failure(new IpcProtocolError("unexpected_message", `an unexpected tool.call (${correlation_id})`));
    }
    const controller = new AbortController();
    this.#in_flight.set(correlation_id, controller);
    if (this.#cancel_reason !== undefined) controller.abort();
    const context: WorkerToolContext = {
      session_id: this.#services.session.id,
      agent_id: this.#agent_id,
      task_id: this.#input.task.id,
      scope: this.#input.task.scope,
      correlation_id,
      signal: controller.signal,
    };
    const on_stream = (chunk: unknown) => {
      if (controller.signal.aborted) return;
      try {
        this.#send("tool.stream", { chunk }, correlation_id);
      } catch (error) {
        this.#log("bridge", "warn", `dropped a tool.stream chunk: ${to_air_error(error).message}`);
      }
    };
    Promise.resolve()
      .then(() => this.#services.call_tool(call, context, on_stream))
      .then(
        (outcome) => {
          const checked = v.safeParse(ToolOutcome, outcome);
          if (checked.success) return checked.output;
          return { ok: false as const, error: make_air_error({ kind: "tool_error", message: `${call.tool_name} returned an invalid outcome: ${v.summarize(checked.issues)}`, retryability: "not_retryable" }) };
        },
        (error: unknown): ToolOutcome => ({ ok: false, error: to_air_error(error, "tool_error") }),
      )
      .then((outcome) => {
        this.#in_flight.delete(correlation_id);
        if (controller.signal.aborted || this.#phase === "closed") return;
        try {
          this.#send("tool.result", { outcome }, correlation_id);
        } catch (error) {
          // Most likely an output over the line limit: the worker still gets an answer.
          const failure = make_air_error({
            kind: "tool_error",
            message: `the outcome of ${call.tool_name} cannot be sent to the worker: ${to_air_error(error).message}`,
            retryability: "retryable_after_change",
          });
          this.#send("tool.result", { outcome: { ok: false, ...(outcome.tool_run_id === undefined ? {} : { tool_run_id: outcome.tool_run_id }), error: failure } }, correlation_id);
        }
      })
      .catch((error: unknown) => this.#log("bridge", "error", `tool call ${correlation_id} could not be answered: ${to_air_error(error).message}`));
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
    this.#abort_tools();
    try {
      this.#send("control", { command: "cancel", reason });
    } catch (error) {
      this.#log("bridge", "warn", `could not send cancel: ${to_air_error(error).message}`);
    }
    this.#after(this.#services.cancel_grace_ms ?? DEFAULTS.cancel_grace_ms, () => this.#terminate());
  }

  #linger_then_terminate(before?: () => void): void {
    this.#after(this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms, () => {
      before?.();
      this.#terminate();
    });
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  #terminate(): void {
    if (this.#phase === "closed") return;
    this.#kill("SIGTERM");
    this.#after(this.#services.kill_grace_ms ?? DEFAULTS.kill_grace_ms, () => this.#kill("SIGKILL"));
  }

  #kill(signal: NodeJS.Signals): void {
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill(signal);
  }

  // --- plumbing -----------------------------------------------------------------------------------

  #send<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id?: IpcMessageId): void {
    const child = this.#child;
    if (child === undefined || this.#phase === "closed" || child.stdin.destroyed || !child.stdin.writable) return;
    const message = make_ipc_message(kind, payload, { session_id: this.#services.session.id, agent_id: this.#agent_id }, correlation_id);
    child.stdin.write(encode_message(message, "parent_to_worker"));
  }

  #abort_tools(): void {
    for (const controller of this.#in_flight.values()) controller.abort();
    this.#in_flight.clear();
  }

  #after(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      work();
    }, ms);
    this.#timers.add(timer);
  }

  #clear_timers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #log(source: WorkerLogEntry["source"], level: LogLevel, message: string, data?: unknown): void {
    const entry: WorkerLogEntry = { agent_id: this.#agent_id, source, level, message, ...(data === undefined ? {} : { data }) };
    const sink = this.#services.on_log;
    if (sink !== undefined) {
      try {
        sink(entry);
      } catch {
        // a failing log sink must not take the bridge down
      }
      return;
    }
    if (level === "warn" || level === "error") process.stderr.write(`[air ${source} ${this.#agent_id}] ${level}: ${message}\n`);
  }
}

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

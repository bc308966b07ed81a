import * as v from "valibot";
import { air_failure, AirFailure, make_air_error } from "../contracts/errors.js";
import type { EventType, PayloadInputOf } from "../contracts/events/registry.js";
import {
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  make_ipc_message,
  new_ipc_id,
  type AgentBrief,
  type IpcAddress,
  type IpcKind,
  type IpcMessageId,
  type IpcMessageOf,
  type IpcPayloadInputOf,
  type LogLevel,
} from "../contracts/ipc.js";
import type { ModelDelta, ModelRequest, ModelResponse } from "../contracts/provider.js";
import type { TaskSpec } from "../contracts/task.js";
import { MODEL_COMPLETE_TOOL, ToolCall, type ToolOutcome } from "../contracts/tool.js";
import type { AgentType } from "../contracts/worker-result.js";
import { IpcProtocolError } from "./protocol.js";

/** Writes one worker→parent message (the entry point encodes and writes it to stdout). */
export type SendMessage = (message: ReturnType<typeof make_ipc_message>) => void;

export type WorkerRuntimeOptions = {
  readonly address: IpcAddress;
  readonly task: TaskSpec;
  readonly brief: AgentBrief;
  readonly agent_type: AgentType;
  readonly send: SendMessage;
};

type Pending = {
  readonly tool_name: string;
  readonly resolve: (outcome: ToolOutcome) => void;
  readonly reject: (error: unknown) => void;
  readonly on_stream: ((chunk: unknown) => void) | undefined;
};

/** Thrown by `call_tool`/`complete` once the parent has cancelled the run. */
function cancelled_failure(reason: string): AirFailure {
  return air_failure({
    kind: "agent_error",
    severity: "info",
    message: `the run was cancelled: ${reason}`,
    retryability: "not_retryable",
    metadata: { cancelled: true },
  });
}

export function is_cancellation(value: unknown): boolean {
  return value instanceof AirFailure && value.error.metadata?.cancelled === true;
}

/**
 * A worker's only side-effect surface (seeds 000 §8.3): events, logs and checkpoints go to the parent as
 * messages; tools — model completions included — are `tool.call`s answered by `tool.result` with the same
 * `correlation_id`, and `tool.stream` chunks in between. It never touches files, processes, the network or
 * a database, and it holds no credentials.
 */
export class WorkerRuntime {
  readonly address: IpcAddress;
  readonly task: TaskSpec;
  readonly brief: AgentBrief;
  readonly agent_type: AgentType;
  readonly #send: SendMessage;
  readonly #pending = new Map<IpcMessageId, Pending>();
  readonly #controller = new AbortController();
  #heartbeat: NodeJS.Timeout | undefined;
  #cancel_reason: string | undefined;
  #wrap_up_reason: string | undefined;

  constructor(options: WorkerRuntimeOptions) {
    this.address = options.address;
    this.task = options.task;
    this.brief = options.brief;
    this.agent_type = options.agent_type;
    this.#send = options.send;
  }

  /** Aborted when the parent cancels the run. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#cancel_reason !== undefined;
  }

  get cancel_reason(): string | undefined {
    return this.#cancel_reason;
  }

  /** Set once the parent asked the role to wrap up (its soft timeout passed): finish the turn, then report. */
  get wrap_up_reason(): string | undefined {
    return this.#wrap_up_reason;
  }

  wrap_up(reason: string): void {
    this.#wrap_up_reason ??= reason;
  }

  /** Reports an event to the parent, which stamps its envelope and validates it through its EventIngestor. */
  emit<T extends EventType>(type: T, payload: PayloadInputOf<T>): void {
    this.#post("event", { type, payload });
  }

  log(level: LogLevel, message: string, data?: unknown): void {
    this.#post("log", data === undefined ? { level, message } : { level, message, data });
  }

  checkpoint(data: unknown): void {
    this.#post("worker.checkpoint", { data });
  }

  /**
   * Runs a tool in the parent. Refusals and failures come back as `{ ok: false }` outcomes; the promise
   * rejects only when the run is cancelled or the channel breaks.
   */
  call_tool(call: ToolCall, on_stream?: (chunk: unknown) => void): Promise<ToolOutcome> {
    if (this.#cancel_reason !== undefined) return Promise.reject(cancelled_failure(this.#cancel_reason));
    const checked = v.safeParse(ToolCall, call);
    if (!checked.success) {
      return Promise.resolve({
        ok: false,
        error: make_air_error({
          kind: "tool_error",
          message: `invalid tool call: ${v.summarize(checked.issues)}`,
          retryability: "retryable_after_change",
          metadata: { tool_name: String((call as { tool_name?: unknown }).tool_name) },
        }),
      });
    }
    const correlation_id = new_ipc_id();
    return new Promise<ToolOutcome>((resolve, reject) => {
      this.#pending.set(correlation_id, { tool_name: checked.output.tool_name, resolve, reject, on_stream });
      try {
        this.#post("tool.call", { call: checked.output }, correlation_id);
      } catch (error) {
        this.#pending.delete(correlation_id);
        reject(error);
      }
    });
  }

  /** A model completion: the internal tool `model.complete`, whose text and tool-input deltas stream back. */
  async complete(request: ModelRequest, on_delta?: (delta: ModelDelta) => void): Promise<ModelResponse> {
    // The model contract is loaded with the first completion, so that the handshake does not wait for it.
    const { ModelDelta, ModelResponse } = await import("../contracts/provider.js");
    const on_stream =
      on_delta === undefined
        ? undefined
        : (chunk: unknown) => {
            const delta = v.safeParse(ModelDelta, chunk);
            if (delta.success) on_delta(delta.output);
          };
    const outcome = await this.call_tool({ tool_name: MODEL_COMPLETE_TOOL, input: request as unknown as Record<string, unknown> }, on_stream);
    if (!outcome.ok) throw new AirFailure(outcome.error);
    const response = v.safeParse(ModelResponse, outcome.output);
    if (!response.success) {
      throw air_failure({
        kind: "provider_error",
        message: `model.complete returned an invalid response: ${v.summarize(response.issues)}`,
        retryability: "retryable",
      });
    }
    return response.output;
  }

  /** Routes a `tool.result`/`tool.stream` to the call it answers; an unknown correlation is a protocol error. */
  receive(message: IpcMessageOf<"tool.result" | "tool.stream">): void {
    const correlation_id = message.correlation_id;
    const pending = correlation_id === undefined ? undefined : this.#pending.get(correlation_id);
    if (correlation_id === undefined || pending === undefined) {
      // A late answer to a call abandoned by a cancel is expected; anything else is a parent bug.
      if (this.cancelled) return;
      throw new IpcProtocolError("unexpected_message", `"${message.kind}" answers no pending tool call (${correlation_id ?? "no correlation_id"})`);
    }
    if (message.kind === "tool.stream") {
      pending.on_stream?.(message.payload.chunk);
      return;
    }
    this.#pending.delete(correlation_id);
    pending.resolve(message.payload.outcome);
  }

  /** Starts the `agent.heartbeat` ticker (unref'd: it never keeps the worker alive on its own). */
  start_heartbeat(interval_ms: number = this.brief.heartbeat_interval_ms ?? DEFAULT_HEARTBEAT_INTERVAL_MS): void {
    this.stop_heartbeat();
    this.beat();
    this.#heartbeat = setInterval(() => this.beat(), interval_ms);
    this.#heartbeat.unref();
  }

  /** One `agent.heartbeat`, now: on the ticker, and as the answer to the parent's ping. */
  beat(): void {
    if (this.#cancel_reason !== undefined) return;
    this.emit("agent.heartbeat", { agent_id: this.address.agent_id, task_id: this.task.id });
  }

  stop_heartbeat(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /** The parent cancelled: every pending and future tool call rejects, and `signal` aborts. */
  cancel(reason: string): void {
    if (this.#cancel_reason !== undefined) return;
    this.#cancel_reason = reason;
    this.stop_heartbeat();
    const failure = cancelled_failure(reason);
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(failure);
    }
    this.#controller.abort(failure);
  }

  /** The channel to the parent is gone: pending calls can never be answered. */
  abandon(reason: string): void {
    this.stop_heartbeat();
    const failure = air_failure({ kind: "agent_error", message: `the parent channel closed: ${reason}`, retryability: "retryable" });
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(failure);
    }
  }

  #post<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id?: IpcMessageId): void {
    this.#send(make_ipc_message(kind, payload, this.address, correlation_id));
  }
}

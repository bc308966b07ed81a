import * as v from "valibot";
import { make_air_error, to_air_error } from "../../contracts/errors.js";
import type { IpcMessageId, IpcPayloadInputOf, LogLevel } from "../../contracts/ipc.js";
import { ToolOutcome, type ToolCall } from "../../contracts/tool.js";
import type { WorkerServices, WorkerToolContext } from "./services.js";

/**
 * Runs one tool call of a worker through `services.call_tool` and settles with an outcome either way: a
 * rejection, or an outcome that is not a valid `ToolOutcome`, becomes a `tool_error` outcome.
 */
function run_tool_call(
  services: Pick<WorkerServices, "call_tool">,
  call: ToolCall,
  context: WorkerToolContext,
  on_stream: (chunk: unknown) => void,
): Promise<ToolOutcome> {
  return Promise.resolve()
    .then(() => services.call_tool(call, context, on_stream))
    .then(
      (outcome) => {
        const checked = v.safeParse(ToolOutcome, outcome);
        if (checked.success) return checked.output;
        return {
          ok: false as const,
          error: make_air_error({
            kind: "tool_error",
            message: `${call.tool_name} returned an invalid outcome: ${v.summarize(checked.issues)}`,
            retryability: "not_retryable",
          }),
        };
      },
      (error: unknown): ToolOutcome => ({ ok: false, error: to_air_error(error, "tool_error") }),
    );
}

/** The outcome sent instead of `outcome` when that one could not be sent (`error` says why). */
function unsendable_outcome(call: ToolCall, outcome: ToolOutcome, error: unknown): ToolOutcome {
  const failure = make_air_error({
    kind: "tool_error",
    message: `the outcome of ${call.tool_name} cannot be sent to the worker: ${to_air_error(error).message}`,
    retryability: "retryable_after_change",
  });
  return { ok: false, ...(outcome.tool_run_id === undefined ? {} : { tool_run_id: outcome.tool_run_id }), error: failure };
}

type ToolReply = "tool.stream" | "tool.result";

/** What a worker's tool calls need of its bridge. */
export type ToolCallsPort = {
  readonly services: Pick<WorkerServices, "call_tool">;
  /** Who asks: the part of every call's context that is the same for all of them. */
  readonly caller: Omit<WorkerToolContext, "correlation_id" | "signal">;
  /** Writes a reply to the worker; throws when it cannot be encoded. */
  readonly send: <K extends ToolReply>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id: IpcMessageId) => void;
  /** The process is gone: an answer has no one to go to. */
  readonly closed: () => boolean;
  readonly log: (level: LogLevel, message: string) => void;
};

/** The tool calls of one worker in flight, by correlation id: each runs until answered or aborted. */
export class ToolCalls {
  readonly #port: ToolCallsPort;
  readonly #in_flight = new Map<IpcMessageId, AbortController>();

  constructor(port: ToolCallsPort) {
    this.#port = port;
  }

  has(correlation_id: IpcMessageId): boolean {
    return this.#in_flight.has(correlation_id);
  }

  /** Runs `call` and answers it with `tool.result`; `aborted` starts it with its signal already aborted. */
  start(call: ToolCall, correlation_id: IpcMessageId, aborted: boolean): void {
    const port = this.#port;
    const controller = new AbortController();
    this.#in_flight.set(correlation_id, controller);
    if (aborted) controller.abort();
    const context: WorkerToolContext = { ...port.caller, correlation_id, signal: controller.signal };
    const on_stream = (chunk: unknown) => {
      if (controller.signal.aborted) return;
      try {
        port.send("tool.stream", { chunk }, correlation_id);
      } catch (error) {
        port.log("warn", `dropped a tool.stream chunk: ${to_air_error(error).message}`);
      }
    };
    run_tool_call(port.services, call, context, on_stream)
      .then((outcome) => {
        this.#in_flight.delete(correlation_id);
        if (controller.signal.aborted || port.closed()) return;
        try {
          port.send("tool.result", { outcome }, correlation_id);
        } catch (error) {
          // Most likely an output over the line limit: the worker still gets an answer.
          port.send("tool.result", { outcome: unsendable_outcome(call, outcome, error) }, correlation_id);
        }
      })
      .catch((error: unknown) => port.log("error", `tool call ${correlation_id} could not be answered: ${to_air_error(error).message}`));
  }

  /** Cancel, stop or exit: every call in flight is aborted and will not be answered. */
  abort_all(): void {
    for (const controller of this.#in_flight.values()) controller.abort();
    this.#in_flight.clear();
  }
}

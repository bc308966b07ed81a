import { default_redactor } from "../../permissions/secret-redactor.js";
import type { AgentId, SessionId, TaskId } from "../../contracts/ids.js";
import type { IpcMessageId } from "../../contracts/ipc.js";
import type { TaskScope } from "../../contracts/task.js";
import type { ToolCall, ToolOutcome } from "../../contracts/tool.js";
import type { WorkerRunLog } from "../../machines/worker-run.js";
import type { Session } from "../../project/session-manager.js";

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

/** One diagnostic of a worker run, for the `on_log` sink. */
export type WorkerLogEntry = WorkerRunLog & { readonly agent_id: AgentId };

/** How to start a worker: a command and its arguments (default: this installation's `workers/main`). */
export type WorkerEntry = { readonly command: string; readonly args: readonly string[] };

/**
 * The I/O a worker run uses, one set per session: the run's delays are the machine's input
 * (`WorkerRunInput.delays`), the rest is here.
 */
export type WorkerServices = {
  readonly session: Pick<Session, "id" | "ingestor" | "connection" | "origin">;
  readonly call_tool: WorkerToolCaller;
  readonly entry?: WorkerEntry;
  /** The environment to start from (default `process.env`); credentials are always removed. */
  readonly env?: NodeJS.ProcessEnv;
  /** Least time between two `agents.last_heartbeat_at` writes (default 1 s). */
  readonly heartbeat_write_interval_ms?: number;
  /** Where worker logs and bridge diagnostics go (default: warnings and errors to stderr). */
  readonly on_log?: (entry: WorkerLogEntry) => void;
};

export const DEFAULT_HEARTBEAT_WRITE_INTERVAL_MS = 1_000;

/** Hands `entry` to the `on_log` sink, or by default writes warnings and errors to stderr. */
export function write_log(sink: WorkerServices["on_log"], entry: WorkerLogEntry): void {
  if (sink !== undefined) {
    try {
      sink(entry);
    } catch {
      // a failing log sink must not take the bridge down
    }
    return;
  }
  if (entry.level === "warn" || entry.level === "error") {
    process.stderr.write(`[air ${entry.source} ${entry.agent_id}] ${entry.level}: ${default_redactor().redact(entry.message)}\n`);
  }
}

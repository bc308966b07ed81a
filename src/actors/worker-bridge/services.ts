import { default_redactor } from "../../permissions/secret-redactor.js";
import { air_failure } from "../../contracts/errors.js";
import type { AgentId, SessionId, TaskId } from "../../contracts/ids.js";
import type { IpcMessageId, LogLevel } from "../../contracts/ipc.js";
import type { TaskScope } from "../../contracts/task.js";
import type { ToolCall, ToolOutcome } from "../../contracts/tool.js";
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

export const DEFAULTS = {
  kill_grace_ms: 5_000,
  cancel_grace_ms: 3_000,
  handshake_timeout_ms: 30_000,
  heartbeat_write_interval_ms: 1_000,
} as const;

function is_worker_services(value: unknown): value is WorkerServices {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<WorkerServices>;
  return typeof candidate.call_tool === "function" && typeof candidate.session?.ingestor?.ingest === "function";
}

/** The services of the actor's input, checked: the machine's input types them as `unknown`. */
export function services_of(value: unknown): WorkerServices {
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

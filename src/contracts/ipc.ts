import * as v from "valibot";
import { monotonicFactory } from "ulidx";
import { PromptLayer } from "./prompt-layer.js";
import { AirError, make_air_error } from "./errors.js";
import { AgentId, SessionId, Timestamp } from "./ids.js";
import { TaskSpec, type TaskType } from "./task.js";
import { ToolCall, ToolOutcome, ToolSchema } from "./tool.js";
import { AgentType, WorkerResult } from "./worker-result.js";

/**
 * The parent ↔ worker protocol (seeds 000 §8, 001 D-039, 003 §11; DESIGN.md §5): one JSON envelope per
 * line over the worker's stdin/stdout. stdout carries protocol only; stderr is free-form diagnostics.
 */
export const PROTOCOL_VERSION = 1;

/** The longest line either side accepts, in UTF-8 bytes without the newline. Longer ⇒ `protocol.error`. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * Worker exit codes (seeds 001 D-039). Task success or failure travels in `WorkerResult.status`: 0 means the
 * worker completed the protocol, not that the task succeeded.
 */
export const WORKER_EXIT = {
  /** Protocol-level completion, including a failed or blocked task reported through its WorkerResult. */
  completed: 0,
  uncaught_exception: 1,
  /** Startup or protocol error: bad handshake, malformed or over-long line, unknown role. */
  protocol_error: 2,
  permission_error: 3,
  /** The parent cancelled the run. */
  cancelled: 4,
  /** Killed on its hard timeout. */
  hard_timeout: 5,
} as const;
export type WorkerExitName = keyof typeof WORKER_EXIT;
export type WorkerExitCode = (typeof WORKER_EXIT)[WorkerExitName];

/** The name of a worker exit code, e.g. `2` → `"protocol_error"`; undefined for codes outside 0–5. */
export function worker_exit_name(code: number): WorkerExitName | undefined {
  return (Object.keys(WORKER_EXIT) as WorkerExitName[]).find((name) => WORKER_EXIT[name] === code);
}

/** TaskType → worker `agent_type` (seeds 000 §8.3): `docs` is executor work with a documentation scope. */
export const AGENT_TYPE_OF_TASK: Readonly<Record<TaskType, AgentType>> = {
  execute: "executor",
  docs: "executor",
  review: "reviewer",
  debug: "debugger",
  compact: "compactor",
  mine_experience: "experience_miner",
};

// ---------------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------------

const next_ulid = monotonicFactory();

/** IPC message ids: `ipc_<ulid>`. They name lines, not entities, so they are not in the entity id table. */
export const IpcMessageId = v.pipe(v.string(), v.regex(/^ipc_[0-9A-HJKMNP-TV-Z]{26}$/, "expected an ipc message id (ipc_<ulid>)"));
export type IpcMessageId = v.InferOutput<typeof IpcMessageId>;

export function new_ipc_id(): IpcMessageId {
  return `ipc_${next_ulid()}`;
}

// ---------------------------------------------------------------------------------------------------
// Payloads
// ---------------------------------------------------------------------------------------------------

const Count = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * What an agent is told when its worker starts, besides its TaskSpec: the model and its budget, the tools,
 * the prompt layers, the turn limit (the seeds' ContextPack + AgentRuntimeContext, reduced).
 */
export const AgentBrief = v.strictObject({
  project_root: v.pipe(v.string(), v.minLength(1)),
  model_id: v.pipe(v.string(), v.minLength(1)),
  max_turns: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** The tools the model may call; the parent still checks every call through its registry. */
  tools: v.array(ToolSchema),
  /** Extra instructions of the parent for this run: the executor hands them to the model with its task instruction. */
  instructions: v.optional(v.string()),
  /**
   * The stable prompt layers L0–L6 (runtime invariant, role, permission mode, project rules, plan, task,
   * evidence), built by the parent so that the worker reads no project file for its prompt. Absent: the
   * worker prompts with its task specification alone.
   */
  layers: v.optional(v.array(PromptLayer)),
  /** The session model's context window and the input tokens a request may use of it. */
  context_window: v.optional(Count),
  token_budget: v.optional(Count),
  /** Internal tools the parent serves besides `model.complete`, e.g. `context.compact`; never offered to the model. */
  internal_tools: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** When the worker asks for its conversation to be compacted (the CompactionPolicy's settings). */
  compaction: v.optional(
    v.strictObject({
      threshold_ratio: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
      circuit_breaker: v.strictObject({ max_compactions: Count, min_turns_between: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
    }),
  ),
  /** How often the worker sends `agent.heartbeat` (default `DEFAULT_HEARTBEAT_INTERVAL_MS`). */
  heartbeat_interval_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type AgentBrief = v.InferOutput<typeof AgentBrief>;

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;

const Reason = v.pipe(v.string(), v.minLength(1), v.maxLength(4000));

const ControlPayload = v.variant("command", [
  /** `agent_type`: the role to run when it is not the one the task's type names (a debug attempt, a review). */
  v.strictObject({ command: v.literal("agent.start"), task: TaskSpec, brief: AgentBrief, agent_type: v.optional(AgentType) }),
  v.strictObject({ command: v.literal("cancel"), reason: Reason }),
  /** The soft timeout passed: finish the turn in progress and report what there is. */
  v.strictObject({ command: v.literal("wrap_up"), reason: Reason }),
  /** No heartbeat for a while: answer with one at once, to show the worker is alive and not just slow. */
  v.strictObject({ command: v.literal("ping") }),
]);

const ToolResultPayload = v.strictObject({ outcome: ToolOutcome });
const ToolStreamPayload = v.strictObject({ chunk: v.unknown() });

const WorkerReadyPayload = v.strictObject({
  protocol_version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  worker_version: v.pipe(v.string(), v.minLength(1)),
});
/**
 * An event a worker reports: type and payload only. The parent stamps the envelope (id, version, time,
 * session, source = this agent, route), so a worker cannot speak for anyone else, and validates it
 * through the EventIngestor.
 */
const EventPayload = v.strictObject({
  type: v.pipe(v.string(), v.regex(/^[a-z_]+(\.[a-z_]+)+$/, "expected a dotted event type")),
  payload: v.unknown(),
});
export const LogLevel = v.picklist(["debug", "info", "warn", "error"]);
export type LogLevel = v.InferOutput<typeof LogLevel>;
const LogPayload = v.strictObject({ level: LogLevel, message: v.pipe(v.string(), v.minLength(1)), data: v.optional(v.unknown()) });
const ToolCallPayload = v.strictObject({ call: ToolCall });
const WorkerResultPayload = v.strictObject({ result: WorkerResult });
const WorkerCheckpointPayload = v.strictObject({ data: v.unknown() });
const ProtocolErrorPayload = v.strictObject({ message: v.pipe(v.string(), v.minLength(1)), error: v.optional(AirError) });

// ---------------------------------------------------------------------------------------------------
// Protocol errors
// ---------------------------------------------------------------------------------------------------

export type IpcProtocolErrorCode = "line_too_long" | "malformed_json" | "invalid_message" | "wrong_direction" | "version_mismatch" | "unexpected_message";

/** The AirError of a protocol breach: the codec's decode errors and the parent's checks of what a worker says. */
export function protocol_error(code: IpcProtocolErrorCode, message: string, metadata: Record<string, unknown> = {}): AirError {
  return make_air_error({
    kind: "agent_error",
    message: `worker protocol error (${code}): ${message}`,
    retryability: "retryable",
    user_action: "A worker and its parent disagree about the IPC protocol; this is a bug in air, report it with the log.",
    metadata: { protocol_error: code, ...metadata },
  });
}

// ---------------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------------

export const IpcDirection = v.picklist(["parent_to_worker", "worker_to_parent"]);
export type IpcDirection = v.InferOutput<typeof IpcDirection>;

export const PARENT_TO_WORKER_KINDS = ["control", "tool.result", "tool.stream"] as const;
export const WORKER_TO_PARENT_KINDS = ["worker.ready", "event", "log", "tool.call", "worker.result", "worker.checkpoint", "protocol.error"] as const;
export type ParentToWorkerKind = (typeof PARENT_TO_WORKER_KINDS)[number];
export type WorkerToParentKind = (typeof WORKER_TO_PARENT_KINDS)[number];
export type IpcKind = ParentToWorkerKind | WorkerToParentKind;

/** The direction each kind travels in; a message on the wrong channel is a protocol error. */
export function direction_of(kind: IpcKind): IpcDirection {
  return (PARENT_TO_WORKER_KINDS as readonly string[]).includes(kind) ? "parent_to_worker" : "worker_to_parent";
}

const envelope_fields = {
  id: IpcMessageId,
  direction: IpcDirection,
  timestamp: Timestamp,
  session_id: SessionId,
  agent_id: AgentId,
  correlation_id: v.optional(IpcMessageId),
  protocol_version: v.pipe(v.number(), v.integer(), v.minValue(1)),
};

function kind<const K extends IpcKind, P extends v.GenericSchema>(name: K, payload: P) {
  return v.strictObject({ ...envelope_fields, kind: v.literal(name), payload });
}

/**
 * One line of the protocol. `direction` is checked against `kind` by the decoder (`direction_of`) rather
 * than in the schema, so that a message on the wrong channel is reported as such and not as a shape error.
 */
export const IpcMessage = v.variant("kind", [
  kind("control", ControlPayload),
  kind("tool.result", ToolResultPayload),
  kind("tool.stream", ToolStreamPayload),
  kind("worker.ready", WorkerReadyPayload),
  kind("event", EventPayload),
  kind("log", LogPayload),
  kind("tool.call", ToolCallPayload),
  kind("worker.result", WorkerResultPayload),
  kind("worker.checkpoint", WorkerCheckpointPayload),
  kind("protocol.error", ProtocolErrorPayload),
]);
export type IpcMessage = v.InferOutput<typeof IpcMessage>;
export type IpcMessageOf<K extends IpcKind> = Extract<IpcMessage, { kind: K }>;
export type ParentToWorkerMessage = IpcMessageOf<ParentToWorkerKind>;
export type WorkerToParentMessage = IpcMessageOf<WorkerToParentKind>;
/** Payload as a sender may write it (valibot input: defaults not yet filled in). */
export type IpcPayloadInputOf<K extends IpcKind> =
  v.InferInput<typeof IpcMessage> extends infer M ? (M extends { kind: K; payload: infer P } ? P : never) : never;

/** The ids every message of one worker carries. */
export type IpcAddress = { readonly session_id: SessionId; readonly agent_id: AgentId };

/** A new envelope at the current protocol version (validated again when encoded). */
export function make_ipc_message<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, address: IpcAddress, correlation_id?: IpcMessageId) {
  return {
    id: new_ipc_id(),
    direction: direction_of(kind),
    kind,
    timestamp: new Date().toISOString(),
    session_id: address.session_id,
    agent_id: address.agent_id,
    ...(correlation_id === undefined ? {} : { correlation_id }),
    protocol_version: PROTOCOL_VERSION,
    payload,
  };
}

import type * as v from "valibot";
import type { ArtifactRef } from "../contracts/artifact.js";
import type { JsonObject } from "../contracts/entity.js";
import type { EvidenceKind } from "../contracts/artifact.js";
import { AirFailure, type AirError } from "../contracts/errors.js";
import type { CapabilityTrust } from "../contracts/events/capability.js";
import type { EventOrigin, EventType, PayloadInputOf } from "../contracts/events/registry.js";
import type { AgentId, ArtifactId, CommandRunId, DiagnosticId, EvidenceId, MessageId, TaskId, ToolRunId } from "../contracts/ids.js";
import type { TaskScope } from "../contracts/task.js";
import type { ToolCategory, ToolEffectsInput } from "../contracts/tool.js";
import type { WorkspaceConfinement } from "../permissions/confinement.js";
import type { PermissionDecision } from "../permissions/engine.js";
import type { CurrentText } from "../permissions/proposed-change.js";
import type { ArtifactInput } from "../project/artifact-store.js";
import type { Session } from "../project/session-manager.js";
import type { ReadObservationScope } from "./observations.js";

/**
 * What a tool declares it touches (seeds 001 D-044 `permissions`), as functions of its validated input,
 * so the PermissionEngine sees the exact paths and command before anything runs. Paths are relative
 * to the project root or absolute.
 */
type ToolPermissions<I> = {
  reads?(input: I): readonly string[];
  writes?(input: I): readonly string[];
  executes?(input: I): { command: string; cwd: string };
  network?: boolean;
  /** The unified diff the call would make, shown when the user is asked before it runs; `current` reads a file's text as it is. */
  change?(input: I, current: CurrentText): string | undefined;
};

/** The capability a tool belongs to (its manifest id) and the trust it was given. */
export type ToolCapability = { readonly id: string; readonly trust: CapabilityTrust };

/** Everything a running tool may use; every side effect it records goes through here. */
export type ToolExecution = {
  readonly session: Session;
  /** The folder the call works in, relative paths start from: the task's workspace, else the session's project. */
  readonly project_root: string;
  /** The workspace the calling task is confined to, if any. */
  readonly workspace?: WorkspaceConfinement;
  readonly tool_run_id: ToolRunId;
  readonly tool_name: string;
  readonly task_id?: TaskId;
  readonly agent_id?: AgentId;
  readonly origin_message_id?: MessageId;
  readonly scope?: TaskScope;
  /** The runtime role that asks, when it has no agent row (see `ToolCaller.requester`). */
  readonly requester?: string;
  /** Aborted when the caller cancels; long tools must stop and throw (or return) promptly. */
  readonly signal: AbortSignal;
  /** The decision that let this call run, with the paths as they were classified then. */
  readonly permission: PermissionDecision;
  /** Read observations of the caller (session + agent, else task): path → sha256 at read time. */
  readonly observations: ReadObservationScope;
  /** The origin stamped on events this tool emits. */
  readonly origin: EventOrigin;
  /** Ingests an event (durable or ephemeral) under this tool's origin. */
  emit<T extends EventType>(type: T, payload: PayloadInputOf<T>): void;
  /** Hands a live chunk to the caller's `on_stream`. */
  stream(chunk: unknown): void;
  /** Creates an artifact linked to this tool run (and task/agent); its id joins `tool.completed`. */
  artifact(input: Omit<ArtifactInput, "tool_run_id" | "task_id" | "agent_id">): ArtifactRef;
  /** Records `evidence.created` linked to this tool run; its id joins `tool.completed`. */
  evidence(input: {
    kind: EvidenceKind;
    ref: string;
    claim: string;
    artifact_id?: ArtifactId;
    command_run_id?: CommandRunId;
    diagnostic_id?: DiagnosticId;
  }): EvidenceId;
};

/**
 * Thrown by a tool that fails after it already acted (a command that ran, then timed out): its effects still
 * reach the caller's outcome, as those of a successful call come in the output's `effects`.
 */
export class ToolFailure extends AirFailure {
  constructor(
    error: AirError,
    readonly effects: ToolEffectsInput,
    cause?: unknown,
  ) {
    super(error, cause === undefined ? undefined : { cause });
  }
}

/**
 * A tool (seeds 001 D-044): one valibot schema for its input (validated on every call and exported as
 * JSON Schema for the model) and one for its output (validated before `tool.completed`). A tool that changes
 * files or runs commands declares `effects: ToolEffects` in its output schema.
 */
export type ToolDefinition<I extends v.GenericSchema = v.GenericSchema, O extends v.GenericSchema = v.GenericSchema> = {
  readonly name: string;
  readonly version: number;
  readonly description: string;
  readonly category: ToolCategory;
  readonly input: I;
  /**
   * The JSON Schema the model is offered, for a tool whose input schema is not ours to write in valibot (an MCP
   * server's): `input` then checks calls against this same schema. Default: generated from `input`.
   */
  readonly input_json_schema?: JsonObject;
  readonly output: O;
  readonly permissions: ToolPermissions<v.InferOutput<I>>;
  /** Set for a capability's tool: the PermissionEngine asks before the first use of one the user has not vouched for. */
  readonly capability?: ToolCapability;
  /** Runs the tool. Throw an `AirFailure` for a tool-level failure; the registry records it. */
  execute(input: v.InferOutput<I>, execution: ToolExecution): Promise<v.InferInput<O>>;
};

// The registry stores tools of every input/output type side by side: `execute` and the permission functions are
// methods, so a tool typed from its own schemas is still one of these.
export type AnyToolDefinition = ToolDefinition<v.GenericSchema, v.GenericSchema>;

/** Identity, for inference: `define_tool({...})` types `execute`'s input from the schema. */
export function define_tool<I extends v.GenericSchema, O extends v.GenericSchema>(definition: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return definition;
}

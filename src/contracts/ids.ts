import { randomFillSync } from "node:crypto";
import * as v from "valibot";
import { monotonicFactory } from "ulidx";

/**
 * Entity ids: a short prefix naming the entity, then a ULID. ULIDs sort by creation time, so
 * `ORDER BY id` is creation order and ids of one process are strictly increasing (monotonic factory).
 */
export const ID_PREFIXES = {
  session: "ses",
  task: "tsk",
  attempt: "att",
  agent: "agt",
  event: "evt",
  message: "msg",
  tool_run: "tlr",
  command_run: "cmr",
  artifact: "art",
  diagnostic: "dgn",
  evidence: "evd",
  workspace: "wsp",
  summary: "sum",
  error: "err",
  permission_prompt: "prm",
  permission_decision: "pdc",
  capability: "cap",
  debug_record: "dbg",
  memory: "mem",
  requirement: "req",
  doctor_run: "drn",
  snapshot: "snp",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ULID_PATTERN = "[0-9A-HJKMNP-TV-Z]{26}";
/**
 * ulidx's own generator asks the OS for one random byte per character, 16 calls for each new millisecond:
 * measured at about 110 µs of every permission check (each decision gets an id). The same bytes, drawn
 * from a pool refilled 4 KiB at a time, scaled as ulidx scales them.
 */
function pooled_random(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    // biome-ignore lint/style/noNonNullAssertion: next < pool.length
    return pool[next++]! / 0xff;
  };
}

const next_ulid = monotonicFactory(pooled_random());

function id_schema<const K extends IdKind>(kind: K) {
  return v.pipe(
    v.string(),
    v.regex(new RegExp(`^${ID_PREFIXES[kind]}_${ULID_PATTERN}$`), `expected a ${kind} id (${ID_PREFIXES[kind]}_<ulid>)`),
    v.brand(kind),
  );
}

export const SessionId = id_schema("session");
export type SessionId = v.InferOutput<typeof SessionId>;
export const TaskId = id_schema("task");
export type TaskId = v.InferOutput<typeof TaskId>;
export const AttemptId = id_schema("attempt");
export type AttemptId = v.InferOutput<typeof AttemptId>;
export const AgentId = id_schema("agent");
export type AgentId = v.InferOutput<typeof AgentId>;
export const EventId = id_schema("event");
export type EventId = v.InferOutput<typeof EventId>;
export const MessageId = id_schema("message");
export type MessageId = v.InferOutput<typeof MessageId>;
export const ToolRunId = id_schema("tool_run");
export type ToolRunId = v.InferOutput<typeof ToolRunId>;
export const CommandRunId = id_schema("command_run");
export type CommandRunId = v.InferOutput<typeof CommandRunId>;
export const ArtifactId = id_schema("artifact");
export type ArtifactId = v.InferOutput<typeof ArtifactId>;
export const DiagnosticId = id_schema("diagnostic");
export type DiagnosticId = v.InferOutput<typeof DiagnosticId>;
export const EvidenceId = id_schema("evidence");
export type EvidenceId = v.InferOutput<typeof EvidenceId>;
export const WorkspaceId = id_schema("workspace");
export type WorkspaceId = v.InferOutput<typeof WorkspaceId>;
export const SummaryId = id_schema("summary");
export type SummaryId = v.InferOutput<typeof SummaryId>;
export const ErrorId = id_schema("error");
export type ErrorId = v.InferOutput<typeof ErrorId>;
export const PermissionPromptId = id_schema("permission_prompt");
export type PermissionPromptId = v.InferOutput<typeof PermissionPromptId>;
export const PermissionDecisionId = id_schema("permission_decision");
export type PermissionDecisionId = v.InferOutput<typeof PermissionDecisionId>;
export const CapabilityId = id_schema("capability");
export type CapabilityId = v.InferOutput<typeof CapabilityId>;
export const DebugRecordId = id_schema("debug_record");
export type DebugRecordId = v.InferOutput<typeof DebugRecordId>;
export const MemoryId = id_schema("memory");
export type MemoryId = v.InferOutput<typeof MemoryId>;
export const RequirementId = id_schema("requirement");
export type RequirementId = v.InferOutput<typeof RequirementId>;

export const DoctorRunId = id_schema("doctor_run");
export type DoctorRunId = v.InferOutput<typeof DoctorRunId>;
/** A snapshot of the write area in the backups repository. */
export const SnapshotId = id_schema("snapshot");
export type SnapshotId = v.InferOutput<typeof SnapshotId>;

/** A project's stable identity, generated once at `air init` (never derived from its path). */
export const ProjectId = v.pipe(v.string(), v.uuid("expected a project id (UUID)"), v.brand("project"));
export type ProjectId = v.InferOutput<typeof ProjectId>;

type BrandedId<K extends IdKind> = string & v.Brand<K>;

export function new_id<K extends IdKind>(kind: K, now: number = Date.now()): BrandedId<K> {
  return `${ID_PREFIXES[kind]}_${next_ulid(now)}` as BrandedId<K>;
}

export function new_project_id(): ProjectId {
  return crypto.randomUUID() as ProjectId;
}

/** ISO-8601 UTC timestamp with milliseconds, as every contract stores time. */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp("expected an ISO-8601 timestamp"));
export type Timestamp = v.InferOutput<typeof Timestamp>;

export function now_iso(): string {
  return new Date().toISOString();
}

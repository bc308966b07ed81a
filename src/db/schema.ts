/**
 * The session database: one libsql file per session (`.air/local/sessions/<id>/session.db`).
 * Status columns are written only by the event projection (INV-1); every closed enum has a CHECK.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ArtifactType, EvidenceKind } from "../contracts/artifact.js";
import { EntityType } from "../contracts/entity.js";
import { EventSourceKind } from "../contracts/events/envelope.js";
import { DiagnosticSeverity } from "../contracts/events/artifact.js";
import { WorkspaceStrategy } from "../contracts/events/workspace.js";
import { SummaryKind } from "../contracts/events/context.js";
import { CapabilityTrust } from "../contracts/events/capability.js";
import { AgentStatus, CapabilityStatus, MessageDraftStatus, SessionStatus, TaskStatus, ToolRunStatus, WorkspaceStatus } from "../contracts/status.js";
import { DependencyKind, TaskType } from "../contracts/task.js";
import { AgentType } from "../contracts/worker-result.js";
import { MessageRole } from "../contracts/events/message.js";
import { AttemptStatus } from "../contracts/events/task.js";
import { enum_check, enum_column, flag_check } from "./columns.js";

export const schema_meta = sqliteTable("schema_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    project_id: text("project_id").notNull(),
    title: text("title").notNull(),
    status: enum_column("status", SessionStatus.options).notNull(),
    model_provider_id: text("model_provider_id"),
    model_id: text("model_id"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    archived_at: text("archived_at"),
    deleted_at: text("deleted_at"),
  },
  () => [enum_check("sessions", "status", SessionStatus.options)],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    role: enum_column("role", MessageRole.options).notNull(),
    content_json: text("content_json").notNull(),
    canonical_format: text("canonical_format").notNull().default("anthropic"),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    model_id: text("model_id"),
    stop_reason: text("stop_reason"),
    usage_json: text("usage_json"),
    created_at: text("created_at").notNull(),
  },
  () => [enum_check("messages", "role", MessageRole.options), enum_check("messages", "canonical_format", ["anthropic"])],
);

export const message_drafts = sqliteTable(
  "message_drafts",
  {
    message_id: text("message_id").primaryKey(),
    session_id: text("session_id").notNull(),
    status: enum_column("status", MessageDraftStatus.options).notNull(),
    content_json: text("content_json").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    model_id: text("model_id"),
    error_json: text("error_json"),
    failure_artifact_id: text("failure_artifact_id"),
    started_at: text("started_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  () => [enum_check("message_drafts", "status", MessageDraftStatus.options)],
);

export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    type: text("type").notNull(),
    version: integer("version").notNull(),
    timestamp: text("timestamp").notNull(),
    session_id: text("session_id").notNull(),
    project_id: text("project_id"),
    source_kind: enum_column("source_kind", EventSourceKind.options).notNull(),
    source_id: text("source_id"),
    source_agent_type: enum_column("source_agent_type", AgentType.options),
    route_json: text("route_json").notNull(),
    route_text: text("route_text").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    tool_run_id: text("tool_run_id"),
    command_run_id: text("command_run_id"),
    payload_json: text("payload_json").notNull(),
  },
  (t) => [
    uniqueIndex("events_id_unique").on(t.id),
    index("events_type_idx").on(t.type),
    index("events_task_idx").on(t.task_id).where(sql`${t.task_id} is not null`),
    index("events_agent_idx").on(t.agent_id).where(sql`${t.agent_id} is not null`),
    index("events_tool_run_idx").on(t.tool_run_id).where(sql`${t.tool_run_id} is not null`),
    index("events_command_run_idx").on(t.command_run_id).where(sql`${t.command_run_id} is not null`),
    index("events_route_idx").on(t.route_text),
    enum_check("events", "source_kind", EventSourceKind.options),
    enum_check("events", "source_agent_type", AgentType.options, true),
  ],
);

export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    type: enum_column("type", TaskType.options).notNull(),
    title: text("title").notNull(),
    status: enum_column("status", TaskStatus.options).notNull(),
    spec_json: text("spec_json"),
    priority: integer("priority").notNull().default(0),
    attempt_count: integer("attempt_count").notNull().default(0),
    retry_budget: integer("retry_budget").notNull().default(0),
    agent_id: text("agent_id"),
    workspace_id: text("workspace_id"),
    worker_result_json: text("worker_result_json"),
    summary_id: text("summary_id"),
    last_error_json: text("last_error_json"),
    status_reason: text("status_reason"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    started_at: text("started_at"),
    completed_at: text("completed_at"),
    heartbeat_at: text("heartbeat_at"),
  },
  (t) => [index("tasks_status_idx").on(t.status), enum_check("tasks", "type", TaskType.options), enum_check("tasks", "status", TaskStatus.options)],
);

export const task_dependencies = sqliteTable(
  "task_dependencies",
  {
    task_id: text("task_id").notNull(),
    depends_on_task_id: text("depends_on_task_id").notNull(),
    kind: enum_column("kind", DependencyKind.options).notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.task_id, t.depends_on_task_id, t.kind] }),
    index("task_dependencies_depends_on_idx").on(t.depends_on_task_id),
    enum_check("task_dependencies", "kind", DependencyKind.options),
  ],
);

export const task_attempts = sqliteTable(
  "task_attempts",
  {
    id: text("id").primaryKey(),
    task_id: text("task_id").notNull(),
    attempt_index: integer("attempt_index").notNull(),
    status: enum_column("status", AttemptStatus.options).notNull(),
    agent_id: text("agent_id"),
    workspace_id: text("workspace_id"),
    started_at: text("started_at").notNull(),
    ended_at: text("ended_at"),
    failure_kind: text("failure_kind"),
    failure_signature: text("failure_signature"),
    failure_message: text("failure_message"),
    error_json: text("error_json"),
  },
  (t) => [uniqueIndex("task_attempts_task_index_unique").on(t.task_id, t.attempt_index), enum_check("task_attempts", "status", AttemptStatus.options)],
);

export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    agent_type: enum_column("agent_type", AgentType.options).notNull(),
    status: enum_column("status", AgentStatus.options).notNull(),
    pid: integer("pid"),
    model_id: text("model_id"),
    exit_code: integer("exit_code"),
    status_reason: text("status_reason"),
    error_json: text("error_json"),
    started_at: text("started_at").notNull(),
    ended_at: text("ended_at"),
    last_heartbeat_at: text("last_heartbeat_at"),
  },
  (t) => [index("agents_status_idx").on(t.status), enum_check("agents", "agent_type", AgentType.options), enum_check("agents", "status", AgentStatus.options)],
);

export const tool_runs = sqliteTable(
  "tool_runs",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    origin_message_id: text("origin_message_id"),
    tool_name: text("tool_name").notNull(),
    tool_version: integer("tool_version").notNull(),
    status: enum_column("status", ToolRunStatus.options).notNull(),
    input_json: text("input_json").notNull(),
    output_json: text("output_json"),
    error_json: text("error_json"),
    artifact_ids_json: text("artifact_ids_json"),
    evidence_ids_json: text("evidence_ids_json"),
    started_at: text("started_at").notNull(),
    completed_at: text("completed_at"),
    duration_ms: integer("duration_ms"),
  },
  (t) => [
    index("tool_runs_task_idx").on(t.task_id),
    index("tool_runs_origin_message_idx").on(t.origin_message_id),
    enum_check("tool_runs", "status", ToolRunStatus.options),
  ],
);

/** No status column: status is derived from the row (seeds 000 §4.4, `derive_command_status`). */
export const command_runs = sqliteTable(
  "command_runs",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    tool_run_id: text("tool_run_id"),
    origin_message_id: text("origin_message_id"),
    command: text("command").notNull(),
    cwd: text("cwd").notNull(),
    started_at: text("started_at").notNull(),
    completed_at: text("completed_at"),
    exit_code: integer("exit_code"),
    signal: text("signal"),
    duration_ms: integer("duration_ms"),
    stdout_artifact_id: text("stdout_artifact_id"),
    stderr_artifact_id: text("stderr_artifact_id"),
    diagnostic_ids_json: text("diagnostic_ids_json"),
    error_json: text("error_json"),
    cancelled_at: text("cancelled_at"),
    cancel_reason: text("cancel_reason"),
  },
  (t) => [index("command_runs_task_idx").on(t.task_id), index("command_runs_tool_run_idx").on(t.tool_run_id)],
);

export const artifacts = sqliteTable(
  "artifacts",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    type: enum_column("type", ArtifactType.options).notNull(),
    uri: text("uri").notNull(),
    path: text("path").notNull(),
    original_name: text("original_name"),
    mime_type: text("mime_type"),
    size_bytes: integer("size_bytes").notNull(),
    sha256: text("sha256").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    tool_run_id: text("tool_run_id"),
    command_run_id: text("command_run_id"),
    entity_type: enum_column("entity_type", EntityType.options),
    entity_id: text("entity_id"),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("artifacts_uri_unique").on(t.uri),
    index("artifacts_task_idx").on(t.task_id),
    enum_check("artifacts", "type", ArtifactType.options),
    enum_check("artifacts", "entity_type", EntityType.options, true),
  ],
);

export const diagnostics = sqliteTable(
  "diagnostics",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    command_run_id: text("command_run_id"),
    artifact_id: text("artifact_id"),
    severity: enum_column("severity", DiagnosticSeverity.options).notNull(),
    source_tool: text("source_tool"),
    file: text("file"),
    line: integer("line"),
    column: integer("column"),
    code: text("code"),
    message: text("message").notNull(),
    semantic_signature: text("semantic_signature").notNull(),
    family_signature: text("family_signature"),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    index("diagnostics_signature_idx").on(t.semantic_signature),
    index("diagnostics_command_run_idx").on(t.command_run_id),
    enum_check("diagnostics", "severity", DiagnosticSeverity.options),
  ],
);

export const evidence_refs = sqliteTable(
  "evidence_refs",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    kind: enum_column("kind", EvidenceKind.options).notNull(),
    ref: text("ref").notNull(),
    claim: text("claim").notNull(),
    location_json: text("location_json"),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    message_id: text("message_id"),
    tool_run_id: text("tool_run_id"),
    command_run_id: text("command_run_id"),
    artifact_id: text("artifact_id"),
    diagnostic_id: text("diagnostic_id"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("evidence_refs_task_idx").on(t.task_id), enum_check("evidence_refs", "kind", EvidenceKind.options)],
);

export const workspaces = sqliteTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    agent_id: text("agent_id"),
    strategy: enum_column("strategy", WorkspaceStrategy.options).notNull(),
    path: text("path").notNull(),
    base_ref: text("base_ref"),
    status: enum_column("status", WorkspaceStatus.options).notNull(),
    merge_in_progress: integer("merge_in_progress").notNull().default(0),
    merged_ref: text("merged_ref"),
    conflict_json: text("conflict_json"),
    status_reason: text("status_reason"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    merge_started_at: text("merge_started_at"),
    merged_at: text("merged_at"),
    cleaned_at: text("cleaned_at"),
  },
  (t) => [
    index("workspaces_status_idx").on(t.status),
    enum_check("workspaces", "strategy", WorkspaceStrategy.options),
    enum_check("workspaces", "status", WorkspaceStatus.options),
    flag_check("workspaces", "merge_in_progress"),
  ],
);

export const summaries = sqliteTable(
  "summaries",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    task_id: text("task_id"),
    kind: enum_column("kind", SummaryKind.options).notNull(),
    content: text("content").notNull(),
    covered_message_ids_json: text("covered_message_ids_json").notNull(),
    tokens_before: integer("tokens_before"),
    tokens_after: integer("tokens_after"),
    created_at: text("created_at").notNull(),
  },
  () => [enum_check("summaries", "kind", SummaryKind.options)],
);

/** Capability lifecycle rows (seeds 000 §20.6); written only by `capability.*` projection. */
export const capabilities = sqliteTable(
  "capabilities",
  {
    id: text("id").primaryKey(),
    session_id: text("session_id").notNull(),
    name: text("name").notNull(),
    version: text("version").notNull(),
    trust_level: enum_column("trust_level", CapabilityTrust.options).notNull(),
    status: enum_column("status", CapabilityStatus.options).notNull(),
    tool_names_json: text("tool_names_json"),
    error_json: text("error_json"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  () => [enum_check("capabilities", "trust_level", CapabilityTrust.options), enum_check("capabilities", "status", CapabilityStatus.options)],
);

/** UI scratch state, flushed periodically; never a source of truth (seeds 001 D-053). */
export const ui_state = sqliteTable(
  "ui_state",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    value_json: text("value_json").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);

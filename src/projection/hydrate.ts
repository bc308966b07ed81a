/**
 * The projection rebuilt from a session database (seeds 001 D-056: "hydrates from DB on startup"): the
 * domain tables, plus the permission prompts, which live in the event log only. Read-only.
 */
import { asc, inArray, max, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { CanonicalContent } from "../contracts/events/common.js";
import type { TokenUsage } from "../contracts/events/message.js";
import type { AgentId, ArtifactId, CommandRunId, DiagnosticId, EvidenceId, MessageId, SessionId, TaskId, ToolRunId } from "../contracts/ids.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import type { Connection } from "../db/connection.js";
import { event_from_row } from "../db/event-row.js";
import { agents, artifacts, command_runs, events, evidence_refs, message_drafts, messages, sessions, tasks, tool_runs } from "../db/schema.js";
import { fold_team, TEAM_PART_EVENTS } from "./apply-team.js";
import { count_message, counts_usage, empty_state, fold, summarize, type ProjectionOptions } from "./apply.js";
import type { AgentView, ArtifactView, CommandRunView, DraftView, EvidenceView, MessageView, ProjectionState, TaskView, ToolRunView } from "./types.js";
import type { UiState } from "./ui-state.js";
import { add_usage, content_view, context_tokens_of, derive_command_status, DEFAULT_TAIL_CHARS, error_view, input_summary, model_usage_of } from "./views.js";

/** Where a projection reads from: an open session (its connection is the session's own). */
export type ProjectionSource = { readonly id: SessionId; readonly connection: Connection };

export type Hydrated = {
  readonly state: ProjectionState;
  /** The last event the state includes; the next live durable event must be the one after it. */
  readonly seq: number;
};

const PROMPT_EVENTS = ["permission.prompt.requested", "permission.prompt.resolved"];

function parse(text: string | null): unknown {
  return text === null ? undefined : (JSON.parse(text) as unknown);
}

function rows_of<T extends SQLiteTable>(connection: Connection, table: T): T["$inferSelect"][] {
  return connection.db.select().from(table).orderBy(sql`rowid`).all() as T["$inferSelect"][];
}

function message_view(row: typeof messages.$inferSelect): MessageView {
  return {
    id: row.id as MessageId,
    role: row.role,
    ...content_view(parse(row.content_json) as CanonicalContent),
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    model_id: row.model_id,
    stop_reason: row.stop_reason,
    usage: (parse(row.usage_json) as TokenUsage | undefined) ?? null,
    created_at: row.created_at,
  };
}

function draft_view(row: typeof message_drafts.$inferSelect): DraftView {
  return {
    message_id: row.message_id as MessageId,
    status: row.status,
    text: content_view(parse(row.content_json) as CanonicalContent).text,
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    model_id: row.model_id,
    error: error_view(parse(row.error_json)),
    started_at: row.started_at,
  };
}

function task_view(row: typeof tasks.$inferSelect): TaskView {
  const result = parse(row.worker_result_json) as { summary?: string } | undefined;
  return {
    id: row.id as TaskId,
    type: row.type,
    title: row.title,
    status: row.status,
    attempt: row.attempt_count,
    priority: row.priority,
    agent_id: row.agent_id as AgentId | null,
    status_reason: row.status_reason,
    error: error_view(parse(row.last_error_json)),
    summary: result?.summary ?? null,
    progress: null,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}

function agent_view(row: typeof agents.$inferSelect): AgentView {
  return {
    id: row.id as AgentId,
    agent_type: row.agent_type,
    status: row.status,
    task_id: row.task_id as TaskId | null,
    model_id: row.model_id,
    pid: row.pid,
    exit_code: row.exit_code,
    status_reason: row.status_reason,
    started_at: row.started_at,
    ended_at: row.ended_at,
    last_heartbeat_at: row.last_heartbeat_at,
    stream_tail: "",
  };
}

function tool_run_view(row: typeof tool_runs.$inferSelect): ToolRunView {
  const stored_error = parse(row.error_json) as { reason?: string } | undefined;
  const cancelled = row.status === "cancelled";
  return {
    id: row.id as ToolRunId,
    tool_name: row.tool_name,
    status: row.status,
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    input_summary: input_summary(parse(row.input_json)),
    progress: null,
    error: cancelled ? null : error_view(stored_error),
    cancel_reason: cancelled ? (stored_error?.reason ?? null) : null,
    artifact_ids: (parse(row.artifact_ids_json) as ArtifactId[] | undefined) ?? [],
    evidence_ids: (parse(row.evidence_ids_json) as EvidenceId[] | undefined) ?? [],
    started_at: row.started_at,
    completed_at: row.completed_at,
    duration_ms: row.duration_ms,
  };
}

function command_run_view(row: typeof command_runs.$inferSelect): CommandRunView {
  const facts = { completed_at: row.completed_at, cancelled: row.cancelled_at !== null, exit_code: row.exit_code };
  return {
    id: row.id as CommandRunId,
    command: row.command,
    cwd: row.cwd,
    tool_run_id: row.tool_run_id as ToolRunId | null,
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    status: derive_command_status(facts),
    exit_code: row.exit_code,
    signal: row.signal,
    cancelled: facts.cancelled,
    error: error_view(parse(row.error_json)),
    stdout_tail: "",
    stderr_tail: "",
    stdout_artifact_id: row.stdout_artifact_id as ArtifactId | null,
    stderr_artifact_id: row.stderr_artifact_id as ArtifactId | null,
    diagnostic_ids: (parse(row.diagnostic_ids_json) as DiagnosticId[] | undefined) ?? [],
    started_at: row.started_at,
    completed_at: row.completed_at,
    duration_ms: row.duration_ms,
  };
}

function artifact_view(row: typeof artifacts.$inferSelect): ArtifactView {
  return {
    id: row.id as ArtifactId,
    type: row.type,
    uri: row.uri,
    path: row.path,
    original_name: row.original_name,
    mime_type: row.mime_type,
    size_bytes: row.size_bytes,
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    tool_run_id: row.tool_run_id as ToolRunId | null,
    command_run_id: row.command_run_id as CommandRunId | null,
    created_at: row.created_at,
  };
}

function evidence_view(row: typeof evidence_refs.$inferSelect): EvidenceView {
  return {
    id: row.id as EvidenceId,
    kind: row.kind,
    ref: row.ref,
    claim: row.claim,
    location: (parse(row.location_json) as EvidenceView["location"] | undefined) ?? null,
    task_id: row.task_id as TaskId | null,
    agent_id: row.agent_id as AgentId | null,
    message_id: row.message_id as MessageId | null,
    tool_run_id: row.tool_run_id as ToolRunId | null,
    command_run_id: row.command_run_id as CommandRunId | null,
    artifact_id: row.artifact_id as ArtifactId | null,
    diagnostic_id: row.diagnostic_id as DiagnosticId | null,
    created_at: row.created_at,
  };
}

function session_part(connection: Connection, state: ProjectionState): ProjectionState {
  const row = rows_of(connection, sessions).find((candidate) => candidate.id === state.session.id);
  if (row === undefined) return state;
  const session = {
    id: state.session.id,
    title: row.title,
    status: row.status,
    model_provider_id: row.model_provider_id,
    model_id: row.model_id,
    created_at: row.created_at,
  };
  return { ...state, session };
}

function usage_part(state: ProjectionState, model_runs: readonly (typeof tool_runs.$inferSelect)[], options: ProjectionOptions): ProjectionState {
  let counted = state;
  for (const message of state.conversation.messages) counted = { ...counted, usage: count_message(counted, message, options) };
  let usage = counted.usage;
  // The context in use is the latest exchange's, whether a Main Agent message or a model run came last (as the fold sees them).
  let latest_at = state.conversation.messages.findLast(counts_usage)?.created_at ?? "";
  for (const run of model_runs) {
    const found = run.status === "ok" ? model_usage_of(parse(run.output_json)) : undefined;
    if (found === undefined) continue;
    usage = add_usage(usage, found.usage, found.model_id, options.price);
    const at = run.completed_at ?? "";
    if (at >= latest_at) {
      latest_at = at;
      usage = { ...usage, context_tokens: context_tokens_of(found.usage) };
    }
  }
  return { ...counted, usage };
}

function prompts_part(connection: Connection, state: ProjectionState): ProjectionState {
  const rows = connection.db.select().from(events).where(inArray(events.type, PROMPT_EVENTS)).orderBy(asc(events.seq)).all();
  return rows.reduce((folded, row) => fold(folded, event_from_row(row), { tail_chars: DEFAULT_TAIL_CHARS }), state);
}

function team_part(connection: Connection, state: ProjectionState): ProjectionState {
  const rows = connection.db
    .select()
    .from(events)
    .where(inArray(events.type, [...TEAM_PART_EVENTS]))
    .orderBy(asc(events.seq))
    .all();
  return rows.reduce((folded, row) => fold_team(folded, event_from_row(row)), state);
}

function last_seq(connection: Connection): number {
  return (
    connection.db
      .select({ seq: max(events.seq) })
      .from(events)
      .get()?.seq ?? 0
  );
}

/** The whole projection of `source`'s database, with `ui` as the UI state. */
export function hydrate_state(source: ProjectionSource, ui: UiState, options: ProjectionOptions = {}): Hydrated {
  const { connection } = source;
  const seq = last_seq(connection);
  const runs = rows_of(connection, tool_runs);
  let state: ProjectionState = session_part(connection, empty_state(source.id, ui));
  state = {
    ...state,
    conversation: { messages: rows_of(connection, messages).map(message_view), drafts: rows_of(connection, message_drafts).map(draft_view) },
    tasks: rows_of(connection, tasks).map(task_view),
    agents: rows_of(connection, agents).map(agent_view),
    tool_runs: runs.map(tool_run_view),
    command_runs: rows_of(connection, command_runs).map(command_run_view),
    artifacts: rows_of(connection, artifacts).map(artifact_view),
    evidence: rows_of(connection, evidence_refs).map(evidence_view),
  };
  state = usage_part(
    state,
    runs.filter((run) => run.tool_name === MODEL_COMPLETE_TOOL),
    options,
  );
  return { state: summarize(team_part(connection, prompts_part(connection, state)), options), seq };
}

/**
 * The durable projection map (seeds 000 §5.4): for every durable event type of the registry, ingesting
 * one valid event writes exactly one `events` row and exactly its domain projection — nothing else.
 */
import { afterEach, describe, expect, it } from "vitest";
import { definition_of, EVENT_TYPES, type DurableEventType, type EventOrigin, type PayloadInputOf } from "../../src/contracts/events/registry.js";
import type { EventIngestor } from "../../src/event-store/event-ingestor.js";
import type { EventStore } from "../../src/event-store/event-store.js";
import type { Connection } from "../../src/db/connection.js";
import { air_error, clock, envelope, ingest_steps, step, valid_payloads, type CaseContext, type Step } from "../fixtures/events.js";
import {
  changed_tables,
  decode_json_columns,
  domain_tables,
  dump_tables,
  event_count,
  event_row,
  open_temp_session,
  open_temp_store,
  row_counts,
  type Dump,
  type Row,
} from "../fixtures/session.js";
import { new_id } from "../../src/contracts/ids.js";

const DURABLE_TYPES = EVENT_TYPES.filter((type): type is DurableEventType => definition_of(type).persistence === "durable");

/** What the test can see of the database around the one event under test. */
type View = {
  readonly at: string;
  readonly session_id: string;
  readonly project_id: string;
  before(table: string, key: string, column?: string): Row | undefined;
  after(table: string, key: string, column?: string): Row | undefined;
  after_rows(table: string, key: string, column: string): Row[];
  /** Timestamp of the last prerequisite of this type. */
  prior(type: DurableEventType): string;
};

type Spec<K extends DurableEventType> =
  | { readonly kind: "append_only" }
  | {
      readonly kind: "projected";
      readonly does: string;
      /** The domain tables whose contents change: all of them, no more. */
      readonly tables: readonly string[];
      check(payload: PayloadInputOf<K>, view: View): void;
    };

const APPEND_ONLY = { kind: "append_only" } as const;

/** seeds 000 §4.4: command_runs has no status column; its status is derived from the row. */
function derive_command_status(row: Row): "running" | "ok" | "error" | "cancelled" | "unknown" {
  if (row.completed_at === null) return "running";
  if (row.cancelled_at !== null || row.cancel_reason !== null) return "cancelled";
  if (row.exit_code === 0) return "ok";
  if (row.exit_code !== null) return "error";
  return "unknown";
}

/** The row as it must be after an update: the row before, with exactly these columns changed. */
function updated(before: Row | undefined, changes: Row): Row {
  expect(before, "the row must exist before the update").toBeDefined();
  return { ...before, ...changes };
}

/** Expects the `table` row of id `id` to be its row before with exactly `changes`; returns it. */
function expect_row_updated(v: View, table: string, id: string, changes: Row): Row | undefined {
  const after = v.after(table, id);
  expect(after).toEqual(updated(v.before(table, id), changes));
  return after;
}

/** Expects the one attempt of task `task_id` to be its row before with exactly `changes`. */
function expect_attempt_updated(v: View, task_id: string, changes: Row): void {
  const [attempt] = v.after_rows("task_attempts", task_id, "task_id");
  expect(attempt).toEqual(updated(v.before("task_attempts", String(attempt?.id)), changes));
}

/**
 * The projection of every durable event type. A mapped type, so a durable type added to the registry
 * without a line here does not compile; the loop below also fails at run time for a missing one.
 */
const PROJECTION_SPEC: { readonly [K in DurableEventType]: Spec<K> } = {
  "session.created": {
    kind: "projected",
    does: "inserts the sessions row, active",
    tables: ["sessions"],
    check: (p, v) => {
      expect(v.after("sessions", v.session_id)).toEqual({
        id: v.session_id,
        project_id: v.project_id,
        title: p.title,
        status: "active",
        model_provider_id: p.model_provider_id,
        model_id: p.model_id,
        created_at: v.at,
        updated_at: v.at,
        archived_at: null,
        deleted_at: null,
      });
    },
  },
  "session.renamed": {
    kind: "projected",
    does: "sets sessions.title",
    tables: ["sessions"],
    check: (p, v) => {
      expect_row_updated(v, "sessions", v.session_id, { title: p.title, updated_at: v.at });
    },
  },
  "session.archived": {
    kind: "projected",
    does: "sets sessions.status = archived and archived_at",
    tables: ["sessions"],
    check: (_p, v) => {
      expect_row_updated(v, "sessions", v.session_id, { status: "archived", archived_at: v.at, updated_at: v.at });
    },
  },
  "session.deleted": {
    kind: "projected",
    does: "sets sessions.status = deleted and deleted_at",
    tables: ["sessions"],
    check: (_p, v) => {
      const after = expect_row_updated(v, "sessions", v.session_id, { status: "deleted", deleted_at: v.at, updated_at: v.at });
      expect(after?.archived_at).toBe(v.prior("session.archived"));
    },
  },

  "user.message.created": {
    kind: "projected",
    does: "inserts a user message",
    tables: ["messages"],
    check: (p, v) => {
      expect(v.after("messages", p.message_id)).toEqual({
        id: p.message_id,
        session_id: v.session_id,
        role: "user",
        content_json: p.content,
        canonical_format: "anthropic",
        task_id: null,
        agent_id: null,
        model_id: null,
        stop_reason: null,
        usage_json: null,
        created_at: v.at,
      });
    },
  },
  "assistant.message.started": {
    kind: "projected",
    does: "inserts a streaming message draft",
    tables: ["message_drafts"],
    check: (p, v) => {
      expect(v.after("message_drafts", p.message_id, "message_id")).toEqual({
        message_id: p.message_id,
        session_id: v.session_id,
        status: "streaming",
        content_json: [],
        task_id: p.task_id,
        agent_id: p.agent_id,
        model_id: p.model_id,
        error_json: null,
        failure_artifact_id: null,
        started_at: v.at,
        updated_at: v.at,
      });
    },
  },
  "assistant.message.created": {
    kind: "projected",
    does: "inserts the assistant message and deletes its draft",
    tables: ["messages", "message_drafts"],
    check: (p, v) => {
      expect(v.before("message_drafts", p.message_id, "message_id")).toBeDefined();
      expect(v.after("message_drafts", p.message_id, "message_id")).toBeUndefined();
      expect(v.after("messages", p.message_id)).toEqual({
        id: p.message_id,
        session_id: v.session_id,
        role: "assistant",
        content_json: p.content,
        canonical_format: "anthropic",
        task_id: p.task_id,
        agent_id: p.agent_id,
        model_id: p.model_id,
        stop_reason: p.stop_reason,
        usage_json: p.usage,
        created_at: v.at,
      });
    },
  },
  "assistant.message.failed": {
    kind: "projected",
    does: "marks the draft error, keeping the partial content and the failure artifact",
    tables: ["message_drafts"],
    check: (p, v) => {
      expect(v.after("message_drafts", p.message_id, "message_id")).toEqual(
        updated(v.before("message_drafts", p.message_id, "message_id"), {
          status: "error",
          error_json: p.error,
          content_json: p.partial_content,
          failure_artifact_id: p.failure_artifact_id,
          updated_at: v.at,
        }),
      );
    },
  },

  "agent.started": {
    kind: "projected",
    does: "inserts the agents row with the status it carries",
    tables: ["agents"],
    check: (p, v) => {
      expect(v.after("agents", p.agent_id)).toEqual({
        id: p.agent_id,
        session_id: v.session_id,
        task_id: p.task_id,
        agent_type: p.agent_type,
        status: "running",
        pid: p.pid,
        model_id: p.model_id,
        exit_code: null,
        status_reason: null,
        error_json: null,
        started_at: v.at,
        ended_at: null,
        last_heartbeat_at: null,
      });
    },
  },
  "agent.completed": {
    kind: "projected",
    does: "sets agents.status = completed with exit code and end time",
    tables: ["agents"],
    check: (p, v) => {
      expect_row_updated(v, "agents", p.agent_id, { status: "completed", exit_code: p.exit_code, ended_at: v.at });
    },
  },
  "agent.failed": {
    kind: "projected",
    does: "sets agents.status = failed with the error",
    tables: ["agents"],
    check: (p, v) => {
      expect_row_updated(v, "agents", p.agent_id, {
        status: "failed",
        exit_code: p.exit_code,
        status_reason: p.error.message,
        error_json: p.error,
        ended_at: v.at,
      });
    },
  },
  "agent.lost": {
    kind: "projected",
    does: "sets agents.status = lost with the reason",
    tables: ["agents"],
    check: (p, v) => {
      expect_row_updated(v, "agents", p.agent_id, { status: "lost", status_reason: p.reason, ended_at: v.at });
    },
  },
  "agent.cancelled": {
    kind: "projected",
    does: "sets agents.status = cancelled with the reason",
    tables: ["agents"],
    check: (p, v) => {
      expect_row_updated(v, "agents", p.agent_id, { status: "cancelled", status_reason: p.reason, ended_at: v.at });
    },
  },

  "task.created": {
    kind: "projected",
    does: "inserts the task (pending) and one task_dependencies row per dependency",
    tables: ["tasks", "task_dependencies"],
    check: (p, v) => {
      const { task } = p;
      expect(v.after("tasks", task.id)).toEqual({
        id: task.id,
        session_id: v.session_id,
        type: task.type,
        title: task.title,
        status: "pending",
        spec_json: task,
        priority: p.priority,
        attempt_count: 0,
        retry_budget: task.constraints.retry_budget,
        agent_id: null,
        workspace_id: null,
        worker_result_json: null,
        summary_id: null,
        last_error_json: null,
        status_reason: null,
        created_at: v.at,
        updated_at: v.at,
        started_at: null,
        completed_at: null,
        heartbeat_at: null,
      });
      const [hard] = task.dependencies.hard;
      const [soft] = task.dependencies.soft;
      expect(v.after_rows("task_dependencies", task.id, "task_id")).toEqual([
        { task_id: task.id, depends_on_task_id: hard, kind: "hard", created_at: v.at },
        { task_id: task.id, depends_on_task_id: soft, kind: "soft", created_at: v.at },
        { task_id: task.id, depends_on_task_id: soft, kind: "conflict", created_at: v.at },
        { task_id: task.id, depends_on_task_id: hard, kind: "serialization", created_at: v.at },
      ]);
    },
  },
  "task.dependency.added": {
    kind: "projected",
    does: "inserts the task_dependencies row the wave planner inferred",
    tables: ["task_dependencies"],
    check: (p, v) => {
      expect(v.after_rows("task_dependencies", p.task_id, "task_id")).toContainEqual({
        task_id: p.task_id,
        depends_on_task_id: p.depends_on,
        kind: p.kind,
        created_at: v.at,
      });
    },
  },
  "task.started": {
    kind: "projected",
    does: "sets tasks.status = running with agent and workspace, and inserts attempt 1",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, {
        status: "running",
        attempt_count: 1,
        agent_id: p.agent_id,
        workspace_id: p.workspace_id,
        started_at: v.at,
        updated_at: v.at,
      });
      expect(v.after("task_attempts", p.attempt_id)).toEqual({
        id: p.attempt_id,
        task_id: p.task_id,
        attempt_index: 1,
        status: "running",
        agent_id: p.agent_id,
        workspace_id: p.workspace_id,
        started_at: v.at,
        ended_at: null,
        failure_kind: null,
        failure_signature: null,
        failure_message: null,
        error_json: null,
      });
    },
  },
  "task.completed": {
    kind: "projected",
    does: "sets tasks.status = completed with the worker result, and closes the attempt",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, {
        status: "completed",
        worker_result_json: p.worker_result,
        completed_at: v.at,
        updated_at: v.at,
      });
      expect_attempt_updated(v, p.task_id, { status: "completed", ended_at: v.at });
    },
  },
  "task.failed": {
    kind: "projected",
    does: "sets tasks.status = failed with the error, and records the failure on the attempt",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, {
        status: "failed",
        status_reason: p.error.message,
        last_error_json: p.error,
        worker_result_json: p.worker_result,
        completed_at: v.at,
        updated_at: v.at,
      });
      expect_attempt_updated(v, p.task_id, {
        status: "failed",
        ended_at: v.at,
        failure_kind: p.error.kind,
        failure_signature: p.error.semantic_signature,
        failure_message: p.error.message,
        error_json: p.error,
      });
    },
  },
  "task.blocked": {
    kind: "projected",
    does: "sets tasks.status = blocked with the reason, and closes the attempt as blocked",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "blocked", status_reason: p.reason, completed_at: v.at, updated_at: v.at });
      expect_attempt_updated(v, p.task_id, { status: "blocked", ended_at: v.at });
    },
  },
  "task.revised": {
    kind: "projected",
    does: "replaces the task's spec and title; its status and dependency rows stay",
    tables: ["tasks"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { title: p.task.title, spec_json: p.task, updated_at: v.at });
    },
  },
  "task.cancelled": {
    kind: "projected",
    does: "sets tasks.status = cancelled, and closes the running attempt as cancelled",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "cancelled", status_reason: p.reason, completed_at: v.at, updated_at: v.at });
      expect_attempt_updated(v, p.task_id, { status: "cancelled", ended_at: v.at });
    },
  },
  "task.interrupted": {
    kind: "projected",
    does: "sets tasks.status = interrupted (not completed), and closes the attempt as interrupted",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "interrupted", status_reason: p.reason, completed_at: null, updated_at: v.at });
      expect_attempt_updated(v, p.task_id, { status: "interrupted", ended_at: v.at });
    },
  },
  "task.retried": {
    kind: "projected",
    does: "puts a failed task back to pending; the failed attempt and last error stay",
    tables: ["tasks"],
    check: (p, v) => {
      const before = v.before("tasks", p.task_id);
      expect(before?.status).toBe("failed");
      const after = expect_row_updated(v, "tasks", p.task_id, { status: "pending", status_reason: p.reason, completed_at: null, updated_at: v.at });
      expect(after?.last_error_json).toEqual(before?.last_error_json);
    },
  },
  "task.resumed": {
    kind: "projected",
    does: "puts an interrupted task back to pending",
    tables: ["tasks"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "pending", status_reason: p.reason, completed_at: null, updated_at: v.at });
    },
  },
  "task.unblocked": {
    kind: "projected",
    does: "puts a blocked task back to pending with the decision",
    tables: ["tasks"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "pending", status_reason: p.decision, completed_at: null, updated_at: v.at });
    },
  },

  "tool.started": {
    kind: "projected",
    does: "inserts tool_runs (running)",
    tables: ["tool_runs"],
    check: (p, v) => {
      expect(v.after("tool_runs", p.tool_run_id)).toEqual({
        id: p.tool_run_id,
        session_id: v.session_id,
        task_id: p.task_id,
        agent_id: p.agent_id,
        origin_message_id: p.origin_message_id,
        tool_name: p.tool_name,
        tool_version: p.tool_version,
        status: "running",
        input_json: p.input,
        output_json: null,
        error_json: null,
        artifact_ids_json: null,
        evidence_ids_json: null,
        started_at: v.at,
        completed_at: null,
        duration_ms: null,
      });
    },
  },
  "tool.completed": {
    kind: "projected",
    does: "sets tool_runs.status = ok with output, artifacts, evidence and the rounded duration",
    tables: ["tool_runs"],
    check: (p, v) => {
      expect_row_updated(v, "tool_runs", p.tool_run_id, {
        status: "ok",
        output_json: p.output,
        artifact_ids_json: p.artifact_ids,
        evidence_ids_json: p.evidence_ids,
        duration_ms: 1235,
        completed_at: v.at,
      });
    },
  },
  "tool.failed": {
    kind: "projected",
    does: "sets tool_runs.status = error with the error",
    tables: ["tool_runs"],
    check: (p, v) => {
      expect_row_updated(v, "tool_runs", p.tool_run_id, { status: "error", error_json: p.error, duration_ms: 15, completed_at: v.at });
    },
  },
  "tool.cancelled": {
    kind: "projected",
    does: "sets tool_runs.status = cancelled with the reason",
    tables: ["tool_runs"],
    check: (p, v) => {
      expect_row_updated(v, "tool_runs", p.tool_run_id, { status: "cancelled", error_json: { reason: p.reason }, completed_at: v.at });
    },
  },

  "command.started": {
    kind: "projected",
    does: "inserts command_runs, whose derived status is running",
    tables: ["command_runs"],
    check: (p, v) => {
      const row = v.after("command_runs", p.command_run_id);
      expect(row).toEqual({
        id: p.command_run_id,
        session_id: v.session_id,
        task_id: p.task_id,
        agent_id: p.agent_id,
        tool_run_id: p.tool_run_id,
        origin_message_id: null,
        command: p.command,
        cwd: p.cwd,
        started_at: v.at,
        completed_at: null,
        exit_code: null,
        signal: null,
        duration_ms: null,
        stdout_artifact_id: null,
        stderr_artifact_id: null,
        diagnostic_ids_json: null,
        error_json: null,
        cancelled_at: null,
        cancel_reason: null,
      });
      expect(derive_command_status(row!)).toBe("running");
    },
  },
  "command.completed": {
    kind: "projected",
    does: "sets exit code, output artifacts, diagnostics and duration (derived status ok)",
    tables: ["command_runs"],
    check: (p, v) => {
      const row = expect_row_updated(v, "command_runs", p.command_run_id, {
        exit_code: 0,
        duration_ms: 1500,
        stdout_artifact_id: p.stdout_artifact_id,
        stderr_artifact_id: p.stderr_artifact_id,
        diagnostic_ids_json: p.diagnostic_ids,
        completed_at: v.at,
      });
      expect(derive_command_status(row!)).toBe("ok");
    },
  },
  "command.failed": {
    kind: "projected",
    does: "sets the error, exit code, signal and failure artifacts (derived status error)",
    tables: ["command_runs"],
    check: (p, v) => {
      const row = expect_row_updated(v, "command_runs", p.command_run_id, {
        exit_code: 124,
        signal: "SIGTERM",
        duration_ms: 30_000,
        error_json: p.error,
        stdout_artifact_id: p.stdout_artifact_id,
        completed_at: v.at,
      });
      expect(derive_command_status(row!)).toBe("error");
    },
  },

  "artifact.created": {
    kind: "projected",
    does: "inserts the artifacts row",
    tables: ["artifacts"],
    check: (p, v) => {
      expect(v.after("artifacts", p.artifact.id)).toEqual({
        id: p.artifact.id,
        session_id: v.session_id,
        type: p.artifact.type,
        uri: p.artifact.uri,
        path: p.path,
        original_name: p.original_name,
        mime_type: p.mime_type,
        size_bytes: p.artifact.size_bytes,
        sha256: p.artifact.sha256,
        task_id: p.task_id,
        agent_id: null,
        tool_run_id: null,
        command_run_id: p.command_run_id,
        entity_type: p.entity?.type,
        entity_id: p.entity?.id,
        created_at: p.artifact.created_at,
      });
    },
  },
  "diagnostic.created": {
    kind: "projected",
    does: "inserts the diagnostics row",
    tables: ["diagnostics"],
    check: (p, v) => {
      expect(v.after("diagnostics", p.diagnostic_id)).toEqual({
        id: p.diagnostic_id,
        session_id: v.session_id,
        task_id: p.task_id,
        command_run_id: p.command_run_id,
        artifact_id: p.artifact_id,
        severity: p.severity,
        source_tool: p.source_tool,
        file: p.file,
        line: p.line,
        column: p.column,
        code: p.code,
        message: p.message,
        semantic_signature: p.semantic_signature,
        family_signature: p.family_signature,
        created_at: v.at,
      });
    },
  },
  "evidence.created": {
    kind: "projected",
    does: "inserts the evidence_refs row with all its links",
    tables: ["evidence_refs"],
    check: (p, v) => {
      expect(v.after("evidence_refs", p.evidence.id)).toEqual({
        id: p.evidence.id,
        session_id: v.session_id,
        kind: p.evidence.kind,
        ref: p.evidence.ref,
        claim: p.evidence.claim,
        location_json: p.evidence.location,
        task_id: p.task_id,
        agent_id: p.agent_id,
        message_id: p.message_id,
        tool_run_id: p.tool_run_id,
        command_run_id: p.command_run_id,
        artifact_id: p.artifact_id,
        diagnostic_id: p.diagnostic_id,
        created_at: v.at,
      });
    },
  },

  "context.compaction.requested": {
    kind: "projected",
    does: "inserts the compact task (pending) when accepted",
    tables: ["tasks"],
    check: (p, v) => {
      if (!p.accepted) throw new Error("the valid case is an accepted request");
      expect(v.after("tasks", p.task_id)).toEqual({
        id: p.task_id,
        session_id: v.session_id,
        type: "compact",
        title: "Compact the conversation",
        status: "pending",
        spec_json: null,
        priority: 0,
        attempt_count: 0,
        retry_budget: 0,
        agent_id: null,
        workspace_id: null,
        worker_result_json: null,
        summary_id: null,
        last_error_json: null,
        status_reason: p.reason,
        created_at: v.at,
        updated_at: v.at,
        started_at: null,
        completed_at: null,
        heartbeat_at: null,
      });
    },
  },
  "context.compaction.started": {
    kind: "projected",
    does: "marks the compact task running and inserts its attempt",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, {
        status: "running",
        attempt_count: 1,
        agent_id: p.agent_id,
        status_reason: null,
        started_at: v.at,
        updated_at: v.at,
      });
      expect(v.after("task_attempts", p.attempt_id)).toMatchObject({ task_id: p.task_id, attempt_index: 1, status: "running", started_at: v.at });
    },
  },
  "context.compaction.completed": {
    kind: "projected",
    does: "marks the compact task completed with its summary id, and inserts no summary",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, { status: "completed", summary_id: p.summary_id, completed_at: v.at, updated_at: v.at });
      expect_attempt_updated(v, p.task_id, { status: "completed", ended_at: v.at });
    },
  },
  "context.compaction.failed": {
    kind: "projected",
    does: "marks the compact task failed with the error",
    tables: ["tasks", "task_attempts"],
    check: (p, v) => {
      expect_row_updated(v, "tasks", p.task_id, {
        status: "failed",
        status_reason: p.error.message,
        last_error_json: p.error,
        completed_at: v.at,
        updated_at: v.at,
      });
      const [attempt] = v.after_rows("task_attempts", p.task_id, "task_id");
      expect(attempt).toMatchObject({ status: "failed", ended_at: v.at, failure_kind: p.error.kind, error_json: p.error });
    },
  },
  "summary.created": {
    kind: "projected",
    does: "inserts the summaries row",
    tables: ["summaries"],
    check: (p, v) => {
      expect(v.after("summaries", p.summary_id)).toEqual({
        id: p.summary_id,
        session_id: v.session_id,
        task_id: null,
        kind: p.kind,
        content: p.content,
        covered_message_ids_json: p.covered_message_ids,
        tokens_before: p.tokens_before,
        tokens_after: p.tokens_after,
        created_at: v.at,
      });
    },
  },

  "permission.decision.recorded": APPEND_ONLY,
  "permission.prompt.requested": APPEND_ONLY,
  "permission.prompt.resolved": APPEND_ONLY,
  "doctor.run.started": APPEND_ONLY,
  "doctor.check.completed": APPEND_ONLY,
  "doctor.fix.applied": APPEND_ONLY,
  "doctor.run.completed": APPEND_ONLY,
  "requirement.changed": APPEND_ONLY,
  "architecture.plan.updated": APPEND_ONLY,
  "architecture.impact.completed": APPEND_ONLY,
  "memory.candidate.created": APPEND_ONLY,
  "memory.promoted": APPEND_ONLY,
  "memory.archived": APPEND_ONLY,
  "debug.record.created": APPEND_ONLY,
  "budget.warning": APPEND_ONLY,
  "budget.exceeded": APPEND_ONLY,
  "wave.planned": APPEND_ONLY,
  "review.completed": APPEND_ONLY,
  "snapshot.taken": APPEND_ONLY,
  "restore.applied": APPEND_ONLY,

  "workspace.created": {
    kind: "projected",
    does: "inserts the workspaces row (active)",
    tables: ["workspaces"],
    check: (p, v) => {
      expect(v.after("workspaces", p.workspace_id)).toEqual({
        id: p.workspace_id,
        session_id: v.session_id,
        task_id: p.task_id,
        agent_id: p.agent_id,
        strategy: p.strategy,
        path: p.path,
        base_ref: p.base_ref,
        status: "active",
        merge_in_progress: 0,
        merged_ref: null,
        conflict_json: null,
        status_reason: null,
        created_at: v.at,
        updated_at: v.at,
        merge_started_at: null,
        merged_at: null,
        cleaned_at: null,
      });
    },
  },
  "workspace.merge.started": {
    kind: "projected",
    does: "marks a merge in progress without changing the status",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, { status: "active", merge_in_progress: 1, merge_started_at: v.at, updated_at: v.at });
    },
  },
  "workspace.merge.completed": {
    kind: "projected",
    does: "sets workspaces.status = merged with merged_at and the merged ref",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, {
        status: "merged",
        merge_in_progress: 0,
        merged_ref: p.merged_ref,
        merged_at: v.at,
        updated_at: v.at,
      });
    },
  },
  "workspace.merge.conflicted": {
    kind: "projected",
    does: "sets workspaces.status = conflicted with the conflicting files",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, {
        status: "conflicted",
        merge_in_progress: 0,
        conflict_json: { cause: p.cause, conflicting_files: p.conflicting_files, detail: p.detail },
        updated_at: v.at,
      });
    },
  },
  "workspace.abandoned": {
    kind: "projected",
    does: "sets workspaces.status = abandoned with the reason",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, { status: "abandoned", status_reason: p.reason, updated_at: v.at });
    },
  },
  "workspace.reactivated": {
    kind: "projected",
    does: "puts a conflicted workspace back to active with the decision",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, { status: "active", status_reason: p.decision, updated_at: v.at });
    },
  },
  "workspace.cleaned": {
    kind: "projected",
    does: "sets workspaces.status = cleaned and keeps the row",
    tables: ["workspaces"],
    check: (p, v) => {
      expect_row_updated(v, "workspaces", p.workspace_id, { status: "cleaned", cleaned_at: v.at, updated_at: v.at });
    },
  },

  "capability.discovered": {
    kind: "projected",
    does: "inserts the capabilities row (discovered)",
    tables: ["capabilities"],
    check: (p, v) => {
      expect(v.after("capabilities", p.capability_id)).toEqual({
        id: p.capability_id,
        session_id: v.session_id,
        name: p.name,
        version: p.version,
        trust_level: p.trust_level,
        status: "discovered",
        tool_names_json: null,
        error_json: null,
        created_at: v.at,
        updated_at: v.at,
      });
    },
  },
  "capability.validated": capability_move("validated"),
  "capability.doctor_checked": capability_move("doctor_checked"),
  "capability.enabled": capability_move("enabled"),
  "capability.tools_registered": {
    kind: "projected",
    does: "sets capabilities.status = registered with the tool names",
    tables: ["capabilities"],
    check: (p, v) => {
      expect_row_updated(v, "capabilities", p.capability_id, { status: "registered", tool_names_json: p.tool_names, updated_at: v.at });
    },
  },
  "capability.activated": capability_move("active"),
  "capability.disabled": capability_move("disabled"),
  "capability.failed": {
    kind: "projected",
    does: "sets capabilities.status = failed with the error",
    tables: ["capabilities"],
    check: (p, v) => {
      expect_row_updated(v, "capabilities", p.capability_id, { status: "failed", error_json: p.error, updated_at: v.at });
    },
  },
  "capability.updated": {
    kind: "projected",
    does: "sets capabilities.status = updated with the new version",
    tables: ["capabilities"],
    check: (p, v) => {
      expect_row_updated(v, "capabilities", p.capability_id, { status: "updated", version: p.version, updated_at: v.at });
    },
  },
};

function capability_move(status: string): Spec<"capability.validated"> {
  return {
    kind: "projected",
    does: `sets capabilities.status = ${status}`,
    tables: ["capabilities"],
    check: (p, v) => {
      expect_row_updated(v, "capabilities", p.capability_id, { status, updated_at: v.at });
    },
  };
}

/** The id columns the events row must carry: the payload's own, and a created task's id from its spec. */
function expected_refs(type: DurableEventType, payload: Record<string, unknown>) {
  const own = (key: string) => (typeof payload[key] === "string" ? payload[key] : null);
  const task_id = type === "task.created" ? (payload.task as { id: string }).id : own("task_id");
  return { task_id, agent_id: own("agent_id"), tool_run_id: own("tool_run_id"), command_run_id: own("command_run_id") };
}

/** The envelope fields that the events row keeps besides the payload: a distinctive origin. */
const PRODUCER = {
  source: { kind: "agent", id: "worker-7", agent_type: "executor" },
  route: ["main", "scheduler", "executor-7"],
} as const;

type Pipeline = {
  connection: Connection;
  store: EventStore;
  ingestor: EventIngestor;
  origin: EventOrigin;
  ctx: CaseContext;
  cleanup(): void;
};

function pipeline_for(session: "new" | undefined): Pipeline {
  if (session === "new") {
    const temp = open_temp_store();
    return { ...temp, ctx: { project_id: temp.project_id, session_id: temp.session_id } };
  }
  const temp = open_temp_session();
  const { connection, store, ingestor, origin } = temp.session;
  return {
    connection,
    store,
    ingestor,
    origin,
    ctx: { project_id: temp.project.file.project_id, session_id: temp.session.id },
    cleanup: temp.cleanup,
  };
}

function find_in(dump: Dump, table: string, key: string, column: string): Row | undefined {
  const row = dump[table]?.find((candidate) => candidate[column] === key);
  return row === undefined ? undefined : decode_json_columns(row);
}

describe("EventStore projection of every durable event (seeds 000 §5.4)", () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => {
    cleanup?.();
    cleanup = undefined;
  });

  it("has a valid case and a projection spec for every durable event type of the registry, and no others", () => {
    expect(DURABLE_TYPES.length).toBeGreaterThan(0);
    for (const type of DURABLE_TYPES) {
      expect(valid_payloads[type], `test/fixtures/events.ts has no valid case for ${type}`).toBeTypeOf("function");
      expect(PROJECTION_SPEC[type], `no projection spec for ${type}`).toBeDefined();
    }
    expect(Object.keys(PROJECTION_SPEC).sort()).toEqual([...DURABLE_TYPES].sort());
    expect(Object.keys(valid_payloads).sort()).toEqual([...DURABLE_TYPES].sort());
  });

  for (const type of DURABLE_TYPES) {
    const spec = PROJECTION_SPEC[type] as Spec<DurableEventType> | undefined;
    const does = spec === undefined ? "(no spec)" : spec.kind === "append_only" ? "is appended and changes no domain table" : spec.does;

    it(`${type}: writes one events row and ${does}`, () => {
      expect(spec, `no projection spec for ${type}`).toBeDefined();
      const build = valid_payloads[type] as ((ctx: CaseContext) => { session?: "new"; prerequisites: readonly Step[]; payload: unknown }) | undefined;
      expect(build, `no valid case for ${type}`).toBeDefined();

      // Only session.created asks for a database without a sessions row; ask the case before opening one.
      const wants = build!({ project_id: "probe", session_id: "probe" }).session;
      const pipe = pipeline_for(wants);
      cleanup = pipe.cleanup;
      const example = build!(pipe.ctx);
      const tick = clock();
      const prerequisites = ingest_steps(pipe.ingestor, example.prerequisites, pipe.origin, tick);

      const tables = domain_tables(pipe.connection);
      const before = dump_tables(pipe.connection, tables);
      const counts_before = row_counts(pipe.connection, tables);
      const events_before = event_count(pipe.connection);
      const last_seq = pipe.store.query({ order: "desc", limit: 1 })[0]?.seq ?? 0;

      const input = envelope(type, example.payload as never, { ...pipe.origin, ...PRODUCER, route: [...PRODUCER.route] }, { timestamp: tick() });
      pipe.ingestor.ingest(input);

      // Exactly one events row, carrying the envelope and the extracted id columns.
      expect(event_count(pipe.connection)).toBe(events_before + 1);
      const row = event_row(pipe.connection, input.id);
      expect(row).toEqual({
        seq: last_seq + 1,
        id: input.id,
        type,
        version: definition_of(type).version,
        timestamp: input.timestamp,
        session_id: pipe.ctx.session_id,
        project_id: pipe.ctx.project_id,
        source_kind: "agent",
        source_id: "worker-7",
        source_agent_type: "executor",
        route_json: JSON.stringify(PRODUCER.route),
        route_text: "main/scheduler/executor-7",
        payload_json: expect.any(String),
        ...expected_refs(type, example.payload as Record<string, unknown>),
      });
      expect(JSON.parse(String(row?.payload_json))).toEqual(example.payload);

      // The query API gives the event back as it was ingested.
      const stored = pipe.store.query({ after_seq: last_seq });
      expect(stored).toHaveLength(1);
      expect(stored[0]).toEqual({ seq: last_seq + 1, event: input });
      expect(stored[0]?.event.route).toEqual(PRODUCER.route);
      expect(stored[0]?.event.source).toEqual(PRODUCER.source);
      expect(stored[0]?.event.payload).toEqual(example.payload);
      for (const [column, value] of Object.entries(expected_refs(type, example.payload as Record<string, unknown>))) {
        if (value === null) continue;
        const by_ref = pipe.store.query({ [column]: value, types: [type] });
        expect(
          by_ref.map((s) => s.event.id),
          `query by ${column}`,
        ).toEqual([input.id]);
      }

      // Exactly the projection: the declared tables change, no other one does.
      const after = dump_tables(pipe.connection, tables);
      if (spec!.kind === "append_only") {
        expect(row_counts(pipe.connection, tables)).toEqual(counts_before);
        expect(changed_tables(before, after)).toEqual([]);
        return;
      }
      expect(changed_tables(before, after)).toEqual([...spec!.tables].sort());
      const view: View = {
        at: input.timestamp,
        session_id: pipe.ctx.session_id,
        project_id: pipe.ctx.project_id,
        before: (table, key, column = "id") => find_in(before, table, key, column),
        after: (table, key, column = "id") => find_in(after, table, key, column),
        after_rows: (table, key, column) => (after[table] ?? []).filter((r) => r[column] === key).map(decode_json_columns),
        prior: (prior_type) => {
          const found = prerequisites.filter((event) => event.type === prior_type).at(-1);
          if (found === undefined) throw new Error(`no prerequisite ${prior_type}`);
          return found.timestamp;
        },
      };
      spec!.check(example.payload as never, view);
    });
  }
});

describe("context.compaction.requested", () => {
  it("inserts no task when the request was declined", () => {
    const temp = open_temp_session();
    try {
      const { connection, ingestor, origin } = temp.session;
      const before = dump_tables(connection, domain_tables(connection));
      const input = envelope(
        "context.compaction.requested",
        { accepted: false, reason: "a compaction ran 2 turns ago", token_estimate: 150_000, threshold_tokens: 160_000 },
        origin,
      );
      ingestor.ingest(input);
      expect(changed_tables(before, dump_tables(connection, domain_tables(connection)))).toEqual([]);
      expect(event_row(connection, input.id)).toMatchObject({ type: "context.compaction.requested", task_id: null });
    } finally {
      temp.cleanup();
    }
  });
});

describe("command_runs derived status (seeds 000 §4.4)", () => {
  type Ending = { name: string; status: ReturnType<typeof derive_command_status>; end: (command_run_id: string) => Step | undefined };
  const endings: Ending[] = [
    { name: "no end event yet", status: "running", end: () => undefined },
    {
      name: "command.completed with exit code 0",
      status: "ok",
      end: (id) => step("command.completed", { command_run_id: id, exit_code: 0, duration_ms: 10, diagnostic_ids: [] }),
    },
    {
      name: "command.completed with a non-zero exit code",
      status: "error",
      end: (id) => step("command.completed", { command_run_id: id, exit_code: 2, duration_ms: 10, diagnostic_ids: [] }),
    },
    {
      name: "command.failed killed by a signal",
      status: "error",
      end: (id) =>
        step("command.failed", {
          command_run_id: id,
          error: air_error({ kind: "command_error", message: "killed by SIGKILL" }),
          exit_code: 137,
          signal: "SIGKILL",
          cancelled: false,
        }),
    },
    {
      name: "command.failed with cancelled: true",
      status: "cancelled",
      end: (id) =>
        step("command.failed", {
          command_run_id: id,
          error: air_error({ kind: "command_error", message: "cancelled by the user" }),
          signal: "SIGINT",
          cancelled: true,
        }),
    },
    {
      name: "command.failed that never got an exit code (spawn error)",
      status: "unknown",
      end: (id) => step("command.failed", { command_run_id: id, error: air_error({ kind: "command_error", message: "spawn npm ENOENT" }), cancelled: false }),
    },
  ];

  for (const ending of endings) {
    it(`is ${ending.status} after ${ending.name}`, () => {
      const temp = open_temp_session();
      try {
        const { connection, ingestor, origin } = temp.session;
        const command_run_id = new_id("command_run");
        const tick = clock();
        const end = ending.end(command_run_id);
        const steps = [step("command.started", { command_run_id, command: "npm test", cwd: "/work" }), ...(end === undefined ? [] : [end])];
        const events = ingest_steps(ingestor, steps, origin, tick);
        const row = connection.client.prepare("SELECT * FROM command_runs WHERE id = ?").get(command_run_id) as Row;
        expect(derive_command_status(row)).toBe(ending.status);
        if (ending.status === "cancelled") {
          expect(row.cancelled_at).toBe(events.at(-1)?.timestamp);
          expect(row.cancel_reason).toBe("cancelled by the user");
        }
      } finally {
        temp.cleanup();
      }
    });
  }
});

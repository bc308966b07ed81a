/**
 * The 8 invariants that `foreign_keys = OFF` leaves to air (seeds 000 §18.3): the projection never
 * breaks them, and `referential_check` reports every row that does, naming the invariant, table, id and
 * column.
 */
import { describe, expect, it } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { definition_of, EVENT_TYPES, type DurableEventType } from "../../src/contracts/events/registry.js";
import { new_id, type IdKind } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { clock, ingest_steps, ingest_task_with_dependents, step, valid_payloads } from "../fixtures/events.js";
import { dump_tables, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
temp_session_per_test((temp) => {
  session = temp.session;
});

const NOW = "2030-01-01T00:00:00.000Z";

/** The NOT NULL columns each table needs besides the reference under test. */
const REQUIRED: Record<string, Record<string, string | number>> = {
  tasks: { type: "execute", title: "orphan", status: "pending", created_at: NOW, updated_at: NOW },
  task_attempts: { attempt_index: 1, status: "running", started_at: NOW },
  agents: { agent_type: "executor", status: "running", started_at: NOW },
  tool_runs: { tool_name: "bash", tool_version: 1, status: "running", input_json: "{}", started_at: NOW },
  command_runs: { command: "ls", cwd: "/", started_at: NOW },
  workspaces: { strategy: "worktree", path: "/tmp/w", status: "active", created_at: NOW, updated_at: NOW },
  diagnostics: { severity: "error", message: "m", semantic_signature: "s", created_at: NOW },
  evidence_refs: { kind: "diagnostic", ref: "r", claim: "c", created_at: NOW },
};

const ID_KIND_OF_TABLE: Record<string, IdKind> = {
  tasks: "task",
  task_attempts: "attempt",
  agents: "agent",
  tool_runs: "tool_run",
  command_runs: "command_run",
  workspaces: "workspace",
  diagnostics: "diagnostic",
  evidence_refs: "evidence",
};

function sql_value(value: string | number): string {
  return typeof value === "number" ? String(value) : `'${value.replace(/'/g, "''")}'`;
}

/** Inserts a row straight into `table` (bypassing the event log) whose `column` is `value`. */
function insert_raw(table: string, column: string, value: string | null): string {
  const id = new_id(ID_KIND_OF_TABLE[table]!);
  const row: Record<string, string | number> = { id, ...REQUIRED[table] };
  if (table !== "task_attempts" && column !== "session_id") row.session_id = session.id;
  const columns = [...Object.keys(row), column];
  const values = [...Object.values(row).map(sql_value), value === null ? "NULL" : sql_value(value)];
  session.connection.client.exec(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${values.join(", ")})`);
  return id;
}

type Case = { invariant: string; table: string; column: string; target: IdKind };

/** seeds 000 §18.3, one case per reference column. */
const CASES: Case[] = [
  { invariant: "tasks.session_id → sessions", table: "tasks", column: "session_id", target: "session" },
  { invariant: "task_attempts.task_id → tasks", table: "task_attempts", column: "task_id", target: "task" },
  { invariant: "agents.task_id → tasks", table: "agents", column: "task_id", target: "task" },
  { invariant: "tool_runs.task_id/agent_id → tasks/agents", table: "tool_runs", column: "task_id", target: "task" },
  { invariant: "tool_runs.task_id/agent_id → tasks/agents", table: "tool_runs", column: "agent_id", target: "agent" },
  ...(["task_id", "agent_id", "tool_run_id"] as const).map((column) => ({
    invariant: "command_runs.task_id/agent_id/tool_run_id → tasks/agents/tool_runs",
    table: "command_runs",
    column,
    target: ({ task_id: "task", agent_id: "agent", tool_run_id: "tool_run" } as const)[column],
  })),
  { invariant: "workspaces.task_id/agent_id → tasks/agents", table: "workspaces", column: "task_id", target: "task" },
  { invariant: "workspaces.task_id/agent_id → tasks/agents", table: "workspaces", column: "agent_id", target: "agent" },
  {
    invariant: "diagnostics.command_run_id/artifact_id → command_runs/artifacts",
    table: "diagnostics",
    column: "command_run_id",
    target: "command_run",
  },
  { invariant: "diagnostics.command_run_id/artifact_id → command_runs/artifacts", table: "diagnostics", column: "artifact_id", target: "artifact" },
  ...(
    [
      ["task_id", "task"],
      ["agent_id", "agent"],
      ["message_id", "message"],
      ["tool_run_id", "tool_run"],
      ["command_run_id", "command_run"],
      ["artifact_id", "artifact"],
      ["diagnostic_id", "diagnostic"],
    ] as const
  ).map(([column, target]) => ({ invariant: "evidence_refs.* → their rows", table: "evidence_refs", column, target })),
];

/** Every valid case of the fixtures in one session (the session.* ones would end the session). */
function ingest_every_valid_case(): void {
  const tick = clock();
  const ctx = { project_id: session.project.file.project_id, session_id: session.id };
  const types = EVENT_TYPES.filter((type): type is DurableEventType => definition_of(type).persistence === "durable" && !type.startsWith("session."));
  for (const type of types) {
    const example = valid_payloads[type](ctx);
    ingest_steps(session.ingestor, [...example.prerequisites, step(type, example.payload as never)], session.origin, tick);
  }
}

describe("referential_check", () => {
  it("reports a fresh session as ok", () => {
    expect(referential_check(session.connection)).toEqual({ ok: true, orphans: [] });
  });

  it("reports ok after every valid event of the registry was projected into one session", () => {
    ingest_every_valid_case();
    const counts = session.connection.client
      .prepare(
        "SELECT (SELECT count(*) FROM tasks) AS tasks, (SELECT count(*) FROM evidence_refs) AS evidence, (SELECT count(*) FROM diagnostics) AS diagnostics",
      )
      .get() as { tasks: number; evidence: number; diagnostics: number };
    expect(counts.tasks).toBeGreaterThan(10);
    expect(counts.evidence).toBeGreaterThan(0);
    expect(counts.diagnostics).toBeGreaterThan(0);
    expect(referential_check(session.connection)).toEqual({ ok: true, orphans: [] });
  });

  it("covers all 8 invariants of seeds 000 §18.3", () => {
    expect(new Set(CASES.map((c) => c.invariant)).size).toBe(8);
  });

  for (const c of CASES) {
    it(`reports ${c.table}.${c.column} pointing at a missing ${c.target} (${c.invariant})`, () => {
      const missing = new_id(c.target);
      const id = insert_raw(c.table, c.column, missing);
      const before = dump_tables(session.connection);
      expect(referential_check(session.connection)).toEqual({
        ok: false,
        orphans: [{ invariant: c.invariant, table: c.table, id, column: c.column, value: missing }],
      });
      expect(dump_tables(session.connection), "the check only reads").toEqual(before);
    });
  }

  it("does not report a NULL reference: the optional ones may be absent", () => {
    for (const c of CASES.filter((c) => c.table !== "tasks" && c.table !== "task_attempts")) insert_raw(c.table, c.column, null);
    expect(referential_check(session.connection)).toEqual({ ok: true, orphans: [] });
  });

  it("reports every dependent of a task row deleted behind the event log's back", () => {
    const { task_id, agent_id, attempt_id, tool_run_id, command_run_id, workspace_id } = ingest_task_with_dependents(session.ingestor, session.origin);
    expect(referential_check(session.connection).ok).toBe(true);

    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${task_id}'`);
    const orphan = (invariant: string, table: string, id: string) => ({ invariant, table, id, column: "task_id", value: task_id });
    expect(referential_check(session.connection)).toEqual({
      ok: false,
      orphans: [
        orphan("task_attempts.task_id → tasks", "task_attempts", attempt_id),
        orphan("agents.task_id → tasks", "agents", agent_id),
        orphan("tool_runs.task_id/agent_id → tasks/agents", "tool_runs", tool_run_id),
        orphan("command_runs.task_id/agent_id/tool_run_id → tasks/agents/tool_runs", "command_runs", command_run_id),
        orphan("workspaces.task_id/agent_id → tasks/agents", "workspaces", workspace_id),
      ],
    });
  });

  it("reports several orphans of different invariants together", () => {
    const attempt = insert_raw("task_attempts", "task_id", new_id("task"));
    const diagnostic = insert_raw("diagnostics", "artifact_id", new_id("artifact"));
    const report = referential_check(session.connection);
    expect(report.ok).toBe(false);
    expect(report.orphans.map((o) => [o.table, o.id, o.column])).toEqual([
      ["task_attempts", attempt, "task_id"],
      ["diagnostics", diagnostic, "artifact_id"],
    ]);
  });
});

import type { Connection } from "../db/connection.js";

/** One FK-off invariant of seeds 000 §18.3: rows whose reference points at nothing. */
type Invariant = { readonly name: string; readonly sql: string };

function dangling(table: string, column: string, target: string, target_column = "id"): string {
  return `SELECT '${table}' AS "table", id, '${column}' AS "column", ${column} AS value FROM ${table}
    WHERE ${column} IS NOT NULL AND ${column} NOT IN (SELECT ${target_column} FROM ${target})`;
}

const INVARIANTS: readonly Invariant[] = [
  { name: "tasks.session_id → sessions", sql: dangling("tasks", "session_id", "sessions") },
  {
    name: "task_attempts.task_id → tasks",
    sql: dangling("task_attempts", "task_id", "tasks"),
  },
  { name: "agents.task_id → tasks", sql: dangling("agents", "task_id", "tasks") },
  {
    name: "tool_runs.task_id/agent_id → tasks/agents",
    sql: `${dangling("tool_runs", "task_id", "tasks")} UNION ALL ${dangling("tool_runs", "agent_id", "agents")}`,
  },
  {
    name: "command_runs.task_id/agent_id/tool_run_id → tasks/agents/tool_runs",
    sql: [
      dangling("command_runs", "task_id", "tasks"),
      dangling("command_runs", "agent_id", "agents"),
      dangling("command_runs", "tool_run_id", "tool_runs"),
    ].join(" UNION ALL "),
  },
  {
    name: "workspaces.task_id/agent_id → tasks/agents",
    sql: `${dangling("workspaces", "task_id", "tasks")} UNION ALL ${dangling("workspaces", "agent_id", "agents")}`,
  },
  {
    name: "diagnostics.command_run_id/artifact_id → command_runs/artifacts",
    sql: `${dangling("diagnostics", "command_run_id", "command_runs")} UNION ALL ${dangling("diagnostics", "artifact_id", "artifacts")}`,
  },
  {
    name: "evidence_refs.* → their rows",
    sql: [
      dangling("evidence_refs", "task_id", "tasks"),
      dangling("evidence_refs", "agent_id", "agents"),
      dangling("evidence_refs", "message_id", "messages"),
      dangling("evidence_refs", "tool_run_id", "tool_runs"),
      dangling("evidence_refs", "command_run_id", "command_runs"),
      dangling("evidence_refs", "artifact_id", "artifacts"),
      dangling("evidence_refs", "diagnostic_id", "diagnostics"),
    ].join(" UNION ALL "),
  },
];

type Orphan = { readonly invariant: string; readonly table: string; readonly id: string; readonly column: string; readonly value: string };
export type OrphanReport = { readonly ok: boolean; readonly orphans: readonly Orphan[] };

/** Checks the 8 invariants that `foreign_keys=OFF` leaves to air (seeds 000 §18.3); reads only. */
export function referential_check(connection: Connection): OrphanReport {
  const orphans: Orphan[] = [];
  for (const invariant of INVARIANTS) {
    const rows = connection.client.prepare(invariant.sql).all() as { table: string; id: string; column: string; value: string }[];
    for (const row of rows) orphans.push({ invariant: invariant.name, table: row.table, id: row.id, column: row.column, value: row.value });
  }
  return { ok: orphans.length === 0, orphans };
}

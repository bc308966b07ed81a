import crypto from "node:crypto";
import Database from "libsql";
import type { ExpectedRows } from "./workload.js";

/**
 * Checks that a run did what it claims: row counts and end states after every run, and — once per mode —
 * that the ceiling wrote exactly the rows air wrote, so the ratio compares equal work.
 */
export class VerificationError extends Error {
  override name = "VerificationError";
}

type Check = { readonly what: string; readonly sql: string; readonly expected: number };

/** Counts and end states of the workload's tables after `tasks` complete cycles (and `extra_events` more). */
export function workload_checks(expected: ExpectedRows, extra_events: number): Check[] {
  const { tasks } = expected;
  return [
    { what: "events rows", sql: "SELECT count(*) FROM events", expected: expected.events + extra_events },
    { what: "completed tasks", sql: "SELECT count(*) FROM tasks WHERE status = 'completed' AND attempt_count = 1", expected: tasks },
    { what: "task_dependencies rows", sql: "SELECT count(*) FROM task_dependencies", expected: expected.task_dependencies },
    { what: "completed attempts", sql: "SELECT count(*) FROM task_attempts WHERE status = 'completed'", expected: tasks },
    { what: "ok tool runs", sql: "SELECT count(*) FROM tool_runs WHERE status = 'ok'", expected: tasks },
    { what: "ended command runs", sql: "SELECT count(*) FROM command_runs WHERE completed_at IS NOT NULL", expected: tasks },
  ];
}

function with_db<T>(file: string, read: (db: InstanceType<typeof Database>) => T): T {
  const db = new Database(file, { timeout: 5_000 });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export function verify_counts(label: string, file: string, checks: readonly Check[]): void {
  with_db(file, (db) => {
    for (const check of checks) {
      const row = db.prepare(check.sql).raw(true).get([]) as [number | bigint];
      const found = Number(row[0]);
      if (found !== check.expected) throw new VerificationError(`${label}: ${check.what} = ${found}, expected ${check.expected}`);
    }
  });
}

/** Every table the workload writes, as it should read identically in both files (events without seq, which counts session.created). */
const CONTENT = {
  events: `SELECT id, type, version, timestamp, session_id, project_id, source_kind, source_id, source_agent_type, route_json,
    route_text, task_id, agent_id, tool_run_id, command_run_id, payload_json FROM events WHERE type <> 'session.created' ORDER BY seq`,
  tasks: "SELECT * FROM tasks ORDER BY id",
  task_dependencies: "SELECT * FROM task_dependencies ORDER BY task_id, depends_on_task_id, kind",
  task_attempts: "SELECT * FROM task_attempts ORDER BY id",
  tool_runs: "SELECT * FROM tool_runs ORDER BY id",
  command_runs: "SELECT * FROM command_runs ORDER BY id",
} as const;

function digest(file: string, sql: string): { rows: number; hash: string } {
  return with_db(file, (db) => {
    const hash = crypto.createHash("sha256");
    let rows = 0;
    for (const row of db.prepare(sql).raw(true).iterate([])) {
      hash.update(JSON.stringify(row, (_, value: unknown) => (typeof value === "bigint" ? value.toString() : value)));
      hash.update("\n");
      rows++;
    }
    return { rows, hash: hash.digest("hex") };
  });
}

export function verify_same_rows(label: string, air_file: string, raw_file: string): void {
  for (const [table, sql] of Object.entries(CONTENT)) {
    const ours = digest(air_file, sql);
    const ceiling = digest(raw_file, sql);
    if (ours.rows !== ceiling.rows || ours.hash !== ceiling.hash) {
      throw new VerificationError(`${label}: ${table} differs between air (${ours.rows} rows) and the raw ceiling (${ceiling.rows} rows)`);
    }
  }
}

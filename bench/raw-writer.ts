import Database from "libsql";
import type { BenchEvent, CycleType } from "./workload.js";

/**
 * The ceiling: the same rows air writes for the workload, with hand-written prepared SQL on a bare libsql
 * connection (same pragmas as air's Connection). The lifecycle guard is folded into each UPDATE's WHERE,
 * and every guarded write checks it hit exactly one row, so the ceiling refuses what air refuses.
 * Parameters are bound as one array: a lone Buffer or null argument crashes libsql.
 */
type Db = InstanceType<typeof Database>;
type Statement = ReturnType<Db["prepare"]>;

const SQL = {
  event: `INSERT INTO events (id, type, version, timestamp, session_id, project_id, source_kind, source_id, source_agent_type,
    route_json, route_text, task_id, agent_id, tool_run_id, command_run_id, payload_json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  task_insert: `INSERT INTO tasks (id, session_id, type, title, status, spec_json, priority, retry_budget, created_at, updated_at)
    VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
  dependency_insert: "INSERT INTO task_dependencies (task_id, depends_on_task_id, kind, created_at) VALUES (?, ?, ?, ?)",
  task_start: `UPDATE tasks SET status = 'running', attempt_count = attempt_count + 1, agent_id = ?, workspace_id = ?,
    started_at = ?, updated_at = ?, completed_at = NULL, status_reason = NULL
    WHERE id = ? AND status = 'pending' RETURNING attempt_count`,
  attempt_insert: `INSERT INTO task_attempts (id, task_id, attempt_index, status, agent_id, started_at)
    VALUES (?, ?, ?, 'running', ?, ?)`,
  task_complete: `UPDATE tasks SET status = 'completed', status_reason = NULL, worker_result_json = ?, completed_at = ?, updated_at = ?
    WHERE id = ? AND status = 'running'`,
  attempt_complete: "UPDATE task_attempts SET status = 'completed', ended_at = ? WHERE task_id = ? AND status = 'running'",
  tool_insert: `INSERT INTO tool_runs (id, session_id, tool_name, tool_version, status, input_json, task_id, agent_id, started_at)
    VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
  tool_complete: `UPDATE tool_runs SET status = 'ok', output_json = ?, artifact_ids_json = ?, evidence_ids_json = ?, duration_ms = ?,
    completed_at = ? WHERE id = ? AND status = 'running'`,
  command_insert: `INSERT INTO command_runs (id, session_id, command, cwd, tool_run_id, task_id, agent_id, started_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  command_complete: `UPDATE command_runs SET exit_code = ?, duration_ms = ?, diagnostic_ids_json = ?, completed_at = ?
    WHERE id = ? AND completed_at IS NULL`,
} as const;

const DEPENDENCY_KINDS = ["hard", "soft", "conflict", "serialization"] as const;

// biome-ignore lint/suspicious/noExplicitAny: the hand-written ceiling reads payloads as untyped JSON, as raw libsql code would
type Payload = Record<string, any>;

function one(changes: number, event: BenchEvent): void {
  if (changes !== 1) throw new Error(`raw writer: ${event.type} ${event.id} changed ${changes} rows`);
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export class RawWriter {
  readonly #db: Db;
  readonly #s: { [K in keyof typeof SQL]: Statement };

  constructor(file: string, busy_timeout_ms = 5_000) {
    this.#db = new Database(file, { timeout: busy_timeout_ms });
    this.#db.exec(`PRAGMA busy_timeout=${busy_timeout_ms}; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;`);
    this.#s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, this.#db.prepare(sql)])) as never;
  }

  /** Writes `events` in transactions of `per_tx` events each. */
  write(events: readonly BenchEvent[], per_tx: number): void {
    for (let start = 0; start < events.length; start += per_tx) {
      const end = Math.min(start + per_tx, events.length);
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        // biome-ignore lint/style/noNonNullAssertion: i stays below end, which is at most events.length
        for (let i = start; i < end; i++) this.#write_one(events[i]!);
        this.#db.exec("COMMIT");
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
        throw error;
      }
    }
  }

  close(): void {
    this.#db.close();
  }

  #write_one(event: BenchEvent): void {
    this.#insert_event(event);
    this.#project(event);
  }

  #insert_event(event: BenchEvent): void {
    const p = event.payload as Payload;
    const task_id = event.type === "task.created" ? (p.task.id as string) : str(p.task_id);
    this.#s.event.run([
      event.id,
      event.type,
      event.version,
      event.timestamp,
      event.session_id,
      event.project_id ?? null,
      event.source.kind,
      event.source.id ?? null,
      event.source.agent_type ?? null,
      JSON.stringify(event.route),
      event.route.join("/"),
      task_id,
      str(p.agent_id),
      str(p.tool_run_id),
      str(p.command_run_id),
      JSON.stringify(p),
    ]);
  }

  #project(event: BenchEvent): void {
    const p = event.payload as Payload;
    const s = this.#s;
    const at = event.timestamp;
    switch (event.type as CycleType) {
      case "task.created": {
        const task = p.task;
        s.task_insert.run([task.id, event.session_id, task.type, task.title, JSON.stringify(task), p.priority, task.constraints.retry_budget, at, at]);
        for (const kind of DEPENDENCY_KINDS) {
          for (const depends_on of task.dependencies[kind] as string[]) s.dependency_insert.run([task.id, depends_on, kind, at]);
        }
        return;
      }
      case "task.started": {
        const row = s.task_start.get([p.agent_id ?? null, p.workspace_id ?? null, at, at, p.task_id]) as { attempt_count: number } | undefined;
        if (row === undefined) throw new Error(`raw writer: task ${p.task_id} is not pending`);
        s.attempt_insert.run([p.attempt_id, p.task_id, row.attempt_count, p.agent_id ?? null, at]);
        return;
      }
      case "task.completed":
        one(s.task_complete.run([JSON.stringify(p.worker_result), at, at, p.task_id]).changes, event);
        s.attempt_complete.run([at, p.task_id]);
        return;
      case "tool.started":
        s.tool_insert.run([p.tool_run_id, event.session_id, p.tool_name, p.tool_version, JSON.stringify(p.input), p.task_id ?? null, p.agent_id ?? null, at]);
        return;
      case "tool.completed":
        one(
          s.tool_complete.run([
            JSON.stringify(p.output ?? null),
            JSON.stringify(p.artifact_ids),
            JSON.stringify(p.evidence_ids),
            Math.round(p.duration_ms),
            at,
            p.tool_run_id,
          ]).changes,
          event,
        );
        return;
      case "command.started":
        s.command_insert.run([p.command_run_id, event.session_id, p.command, p.cwd, p.tool_run_id ?? null, p.task_id ?? null, p.agent_id ?? null, at]);
        return;
      case "command.completed":
        one(s.command_complete.run([p.exit_code, Math.round(p.duration_ms), JSON.stringify(p.diagnostic_ids), at, p.command_run_id]).changes, event);
        return;
    }
  }
}

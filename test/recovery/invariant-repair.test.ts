/**
 * The FK-off invariant scan with repair (seeds 000 §16.3 step 6, §18.3) on a real session database: rows
 * damaged behind the event log's back are brought back to what a replay of the log says; what the log
 * cannot settle is reported with what to do, and left as it is.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import { referential_check } from "../../src/event-store/referential-check.js";
import type { Session } from "../../src/project/session-manager.js";
import { repair_invariants } from "../../src/recovery/invariant-repair.js";
import { ingest_steps, ingest_task_with_dependents, step } from "../fixtures/events.js";
import { dump_tables, event_count, find_row, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
temp_session_per_test((temp) => {
  session = temp.session;
});

function task_with_dependents() {
  return ingest_task_with_dependents(session.ingestor, session.origin);
}

describe("repair_invariants", () => {
  it("does nothing on a session whose references all hold", () => {
    task_with_dependents();
    const before = dump_tables(session.connection);
    expect(repair_invariants(session, { dry_run: false })).toEqual({ repaired: [], unrepaired: [] });
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("restores a task row deleted behind the event log's back, as the log has it, so its five dependents hold again", () => {
    const { task_id } = task_with_dependents();
    const task_row = find_row(session.connection, "tasks", task_id);
    const events_before = event_count(session.connection);
    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${task_id}'`);
    expect(referential_check(session.connection).orphans).toHaveLength(5);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair.unrepaired).toEqual([]);
    expect(repair.repaired.map((entry) => [entry.orphan.table, entry.action])).toEqual(
      ["task_attempts", "agents", "tool_runs", "command_runs", "workspaces"].map((table) => [table, `restored tasks row ${task_id} from the event log`]),
    );
    expect(find_row(session.connection, "tasks", task_id)).toEqual(task_row);
    expect(referential_check(session.connection)).toEqual({ ok: true, orphans: [] });
    expect(event_count(session.connection), "no event is written or rewritten").toBe(events_before);
    expect(fs.readdirSync(session.project.layout.tmp), "the replay's scratch database is gone").toEqual([]);
  });

  it("goes round again when a restored row itself points at a missing one", () => {
    const { task_id } = task_with_dependents();
    const session_row = find_row(session.connection, "sessions", session.id);
    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${task_id}'; DELETE FROM sessions WHERE id = '${session.id}'`);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair.unrepaired).toEqual([]);
    expect(repair.repaired.at(-1)).toMatchObject({
      orphan: { table: "tasks", id: task_id, column: "session_id" },
      action: `restored sessions row ${session.id} from the event log`,
    });
    expect(find_row(session.connection, "sessions", session.id)).toEqual(session_row);
    expect(referential_check(session.connection).ok).toBe(true);
  });

  it("restores a reference column rewritten behind the log's back to the value the log gives it", () => {
    const { agent_id, command_run_id } = task_with_dependents();
    const dangling = new_id("agent");
    session.connection.client.exec(`UPDATE command_runs SET agent_id = '${dangling}' WHERE id = '${command_run_id}'`);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair).toEqual({
      repaired: [
        {
          orphan: {
            invariant: "command_runs.task_id/agent_id/tool_run_id → tasks/agents/tool_runs",
            table: "command_runs",
            id: command_run_id,
            column: "agent_id",
            value: dangling,
          },
          action: `restored command_runs.agent_id of ${command_run_id} to ${agent_id} from the event log`,
        },
      ],
      unrepaired: [],
    });
    expect(find_row(session.connection, "command_runs", command_run_id)?.agent_id).toBe(agent_id);
  });

  it("reports a row no event wrote, with what to do, and leaves it", () => {
    const attempt_id = new_id("attempt");
    const missing_task = new_id("task");
    session.connection.client.exec(
      `INSERT INTO task_attempts (id, task_id, attempt_index, status, started_at) VALUES ('${attempt_id}', '${missing_task}', 1, 'running', '2030-01-01T00:00:00.000Z')`,
    );
    const before = dump_tables(session.connection);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair.repaired).toEqual([]);
    expect(repair.unrepaired).toEqual([
      {
        orphan: { invariant: "task_attempts.task_id → tasks", table: "task_attempts", id: attempt_id, column: "task_id", value: missing_task },
        reason: `task_attempts row ${attempt_id} is in none of the session's events (written outside air), so the log cannot say what its task_id should be`,
        user_action:
          "If you wrote that row yourself, remove it (sqlite3 on the session's session.db); otherwise keep the session and report it with `air doctor --bundle`.",
      },
    ]);
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("reports every orphan, repairing none, when the log cannot be replayed", () => {
    const { task_id } = task_with_dependents();
    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${task_id}'; UPDATE events SET payload_json = '{' WHERE type = 'task.created'`);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair.repaired).toEqual([]);
    expect(repair.unrepaired).toHaveLength(5);
    for (const entry of repair.unrepaired) expect(entry.reason).toMatch(/^the session's event log could not be replayed to rebuild its rows: /);
    expect(find_row(session.connection, "tasks", task_id)).toBeUndefined();
  });

  it("reports, writing nothing, when the row the log gives collides with a row changed behind its back", () => {
    const artifact = session.artifacts.create({ type: "build_log", content: "error: x\n" });
    const diagnostic_id = new_id("diagnostic");
    ingest_steps(
      session.ingestor,
      [step("diagnostic.created", { diagnostic_id, severity: "error", message: "x", semantic_signature: "sig", artifact_id: artifact.id })],
      session.origin,
    );
    // The artifact's row renamed: its uri (unique) stays, so the row the log gives cannot go back in beside it.
    session.connection.client.exec(`UPDATE artifacts SET id = '${new_id("artifact")}' WHERE id = '${artifact.id}'`);
    const before = dump_tables(session.connection);

    const repair = repair_invariants(session, { dry_run: false });

    expect(repair.repaired).toEqual([]);
    expect(repair.unrepaired).toEqual([
      {
        orphan: expect.objectContaining({ table: "diagnostics", id: diagnostic_id, column: "artifact_id", value: artifact.id }),
        reason: expect.stringMatching(/^restoring the rows the event log gives failed: .*UNIQUE constraint failed: artifacts\.uri/),
        user_action: "Run `air doctor --bundle` and report it: the session still opens, and its other rows are sound.",
      },
    ]);
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("with dry_run says what it would restore and changes nothing", () => {
    const { task_id } = task_with_dependents();
    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${task_id}'`);
    const before = dump_tables(session.connection);

    const repair = repair_invariants(session, { dry_run: true });

    expect(repair.repaired).toHaveLength(5);
    expect(repair.unrepaired).toEqual([]);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(referential_check(session.connection).orphans).toHaveLength(5);
  });
});

/**
 * `air e2e cpp-debug-review-fixture` through the built CLI, then its two sessions and the project's
 * debug-records.db: a compile error that a blind retry does not fix goes to the Debugger by its signature, the
 * reviewer approves the Debugger's fix, it lands and ctest passes, and its debug record makes the second run, on a fresh copy of the
 * broken source in the same project, a retry with the known fix and fewer model turns.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOWN_FIX_HEADING } from "../../src/actors/runtime/debug-brief.js";
import type { Connection } from "../../src/db/connection.js";
import { referential_check } from "../../src/event-store/referential-check.js";
import { project_layout } from "../../src/project/layout.js";
import { air, air_env, events_of, open_readonly, query, require_build, session_files, session_ids, temp_dir } from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
if (missing_tools.length > 0) {
  console.warn(`[e2e] skipping the C++ debug fixture: ${missing_tools.join(", ")} not found on PATH (Debian: apt-get install cmake g++)`);
}

/** Every model call of a session is a `model.complete` tool run; by the role of the agent that made it (main: none). */
function model_turns(connection: Connection): Record<string, number> {
  const rows = query(
    connection,
    "SELECT coalesce(agents.agent_type, 'main') AS role, count(*) AS turns FROM tool_runs LEFT JOIN agents ON agents.id = tool_runs.agent_id WHERE tool_runs.tool_name = 'model.complete' GROUP BY role",
  );
  return Object.fromEntries(rows.map((row) => [String(row.role), Number(row.turns)]));
}

const total = (turns: Record<string, number>): number => Object.values(turns).reduce((sum, n) => sum + n, 0);

describe.skipIf(missing_tools.length > 0)("air e2e cpp-debug-review-fixture --keep: two runs in one project", () => {
  let home: ReturnType<typeof temp_dir>;
  let kept_work: string | undefined;
  let project: string;
  let stdout: string;
  let first: Connection;
  let second: Connection;
  let records: Connection;

  beforeAll(async () => {
    require_build();
    home = temp_dir("air-e2e-home-");
    const run = await air(["e2e", "cpp-debug-review-fixture", "--keep"], { cwd: home.dir, env: air_env(path.join(home.dir, "air-home")) });
    stdout = run.stdout;
    const kept = /^fixture cpp-debug-review: (.+)$/m.exec(run.stdout)?.[1];
    if (kept !== undefined) kept_work = path.dirname(kept);
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    expect(kept, `no kept project path in the output:\n${run.transcript}`).toBeDefined();
    project = kept ?? "";
    const sessions = session_ids(project).sort();
    expect(sessions).toHaveLength(2);
    first = open_readonly(session_files(project, sessions[0] ?? "").db);
    second = open_readonly(session_files(project, sessions[1] ?? "").db);
    records = open_readonly(project_layout(project).debug_records_db);
  });

  afterAll(() => {
    for (const connection of [first, second, records]) connection?.close();
    if (kept_work !== undefined && path.basename(kept_work).startsWith("air-e2e-cpp-debug-review-")) fs.rmSync(kept_work, { recursive: true, force: true });
    home?.cleanup();
  });

  it("passes both runs: the fix is in the checkout and ctest passes", () => {
    expect(stdout).toContain("run 1 of 2: passed");
    expect(stdout).toContain("run 2 of 2: passed");
    expect(stdout).toContain("e2e passed");
    expect(fs.readFileSync(path.join(project, "src", "clock.cpp"), "utf8")).toContain("hours * minutes_per_hour + minutes");
  });

  it("routes the first run by signature: a retry with the failure, then the Debugger, whose attempt completes the task", () => {
    const attempts = query(first, "SELECT status, failure_kind, failure_signature FROM task_attempts ORDER BY attempt_index");
    expect(attempts.map((attempt) => attempt.status)).toEqual(["failed", "failed", "completed"]);
    // Both failures are cpp.build's compile error, not a summary of the run: the same signature.
    expect(attempts[0]).toMatchObject({ failure_kind: "build_error" });
    expect(attempts[1]?.failure_signature).toBe(attempts[0]?.failure_signature);
    const changes = events_of(first)
      .filter((event) => event.type === "task.retried")
      .map((event) => event.payload.change);
    expect(changes).toEqual(["failure_in_context", "debug"]);
    expect(query(first, "SELECT agent_type FROM agents ORDER BY started_at").map((row) => row.agent_type)).toEqual([
      "executor",
      "executor",
      "debugger",
      "reviewer",
    ]);
    const [task] = query(first, "SELECT status, worker_result_json FROM tasks");
    expect(task?.status).toBe("completed");
    expect(task?.worker_result_json).toMatchObject({
      agent_type: "debugger",
      status: "completed",
      changed_files: ["src/clock.cpp"],
      result: { fix_applied: true },
    });
  });

  it("lands each run's fix only after the reviewer approved it (the fixture's review policy is always)", () => {
    for (const session of [first, second]) {
      const events = events_of(session);
      const reviews = events.filter((event) => event.type === "review.completed");
      expect(reviews.map((event) => event.payload)).toEqual([expect.objectContaining({ verdict: "approved", findings: [], gating: false })]);
      const types = events.map((event) => event.type);
      expect(types.indexOf("review.completed")).toBeLessThan(types.indexOf("task.completed"));
      expect(types.indexOf("review.completed")).toBeGreaterThan(types.lastIndexOf("task.started"));
    }
  });

  it("writes one verified debug record of the landed fix, then one debug.record.created naming it", () => {
    const rows = query(records, "SELECT * FROM debug_records");
    expect(rows).toHaveLength(1);
    const [attempt_1] = query(first, "SELECT failure_signature FROM task_attempts WHERE attempt_index = 1");
    expect(rows[0]).toMatchObject({ failure_signature: attempt_1?.failure_signature, verified: 1, status: "active", hit_count: 1 });
    expect(rows[0]?.family_signature).toEqual(expect.any(String));
    expect(String(rows[0]?.root_cause)).toContain("minutes_per_hr");
    const created = events_of(first).filter((event) => event.type === "debug.record.created");
    expect(created).toHaveLength(1);
    expect(created[0]?.payload).toMatchObject({ debug_record_id: rows[0]?.id, failure_signature: rows[0]?.failure_signature });
    const types = events_of(first).map((event) => event.type);
    expect(types.indexOf("debug.record.created")).toBeGreaterThan(types.lastIndexOf("task.completed"));
  });

  it("gives the second run's retry the record as a known fix, so no debug attempt is needed", () => {
    const attempts = query(second, "SELECT status FROM task_attempts ORDER BY attempt_index");
    expect(attempts.map((attempt) => attempt.status)).toEqual(["failed", "completed"]);
    const retry_agent = query(second, "SELECT id FROM agents ORDER BY started_at")[1]?.id;
    const [first_message] = events_of(second).filter((event) => event.type === "user.message.created" && event.agent_id === retry_agent);
    expect(JSON.stringify(first_message?.payload.content)).toContain(KNOWN_FIX_HEADING);
    expect(query(second, "SELECT agent_type FROM agents").map((row) => row.agent_type)).not.toContain("debugger");
    expect(events_of(second).filter((event) => event.type === "debug.record.created")).toEqual([]);
  });

  it("needs fewer model turns in the second run than in the first", () => {
    const before = model_turns(first);
    const after = model_turns(second);
    expect(before).toMatchObject({ main: 1, executor: 4, debugger: 4, reviewer: 1 });
    expect(total(after)).toBeLessThan(total(before));
  });

  it("passes the referential check in both sessions", () => {
    expect(referential_check(first)).toEqual({ ok: true, orphans: [] });
    expect(referential_check(second)).toEqual({ ok: true, orphans: [] });
  });
});

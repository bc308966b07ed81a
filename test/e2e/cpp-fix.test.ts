/**
 * The C++ fixture end to end through the built CLI binary, asserting on the session DB afterwards; and
 * `air run -p` against a scripted model server in this process, in the json and events formats.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import type { Connection } from "../../src/db/connection.js";
import {
  air,
  air_env,
  chain_positions,
  copy_fixture_project,
  events_of,
  fixture_requirement,
  only_session,
  open_readonly,
  query,
  require_build,
  session_files,
  SHIPPED_FIXTURES,
  temp_dir,
} from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
if (missing_tools.length > 0) {
  // Visible in the run's output: the skip is about the machine, not the code.
  console.warn(`[e2e] skipping the C++ fixture: ${missing_tools.join(", ")} not found on PATH (Debian: apt-get install cmake g++)`);
}

describe.skipIf(missing_tools.length > 0)("air e2e cpp-fix-fixture --keep, then the session DB", () => {
  let home: ReturnType<typeof temp_dir>;
  let kept_work: string | undefined;
  let project: string;
  let stdout: string;
  let connection: Connection;
  let artifacts_dir: string;

  beforeAll(async () => {
    require_build();
    home = temp_dir("air-e2e-home-");
    const run = await air(["e2e", "cpp-fix-fixture", "--keep"], { cwd: home.dir, env: air_env(path.join(home.dir, "air-home")) });
    stdout = run.stdout;
    const kept = /^fixture cpp-fix: (.+)$/m.exec(run.stdout)?.[1];
    if (kept !== undefined) kept_work = path.dirname(kept);
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    expect(kept, `no kept project path in the output:\n${run.transcript}`).toBeDefined();
    project = kept!;
    const files = session_files(project, only_session(project));
    artifacts_dir = files.artifacts;
    connection = open_readonly(files.db);
  });

  afterAll(() => {
    connection?.close();
    if (kept_work !== undefined && path.basename(kept_work).startsWith("air-e2e-cpp-fix-")) fs.rmSync(kept_work, { recursive: true, force: true });
    home?.cleanup();
  });

  it("reports a passing run", () => {
    expect(stdout).toContain("event chain: complete");
    expect(stdout).toMatch(/verification \(.*\): exit 0/);
    expect(stdout).toContain("e2e passed");
  });

  it("completed the task with a worker_result whose verification passed", () => {
    const tasks = query(connection, "SELECT * FROM tasks");
    expect(tasks).toHaveLength(1);
    const task = tasks[0]!;
    expect(task.status).toBe("completed");
    expect(task.attempt_count).toBe(1);
    const result = task.worker_result_json as {
      status: string;
      changed_files: string[];
      diff_ref?: string;
      verification: { command: string; passed: boolean; exit_code: number | null; artifact_id?: string }[];
      evidence_refs: unknown[];
    };
    expect(result.status).toBe("completed");
    expect(result.changed_files).toEqual(["src/calc.cpp"]);
    expect(result.verification.length).toBeGreaterThan(0);
    for (const check of result.verification) expect(check).toMatchObject({ passed: true, exit_code: 0 });
    expect(result.verification[0]!.command).toContain("ctest");
    expect(result.evidence_refs.length).toBeGreaterThan(0);
    const attempts = query(connection, "SELECT status FROM task_attempts");
    expect(attempts).toEqual([{ status: "completed" }]);
  });

  it("recorded the worker's agent as completed", () => {
    const agents = query(connection, "SELECT * FROM agents");
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ agent_type: "executor", status: "completed", exit_code: 0 });
    expect(agents[0]!.task_id).toBe(query(connection, "SELECT id FROM tasks")[0]!.id);
    expect(typeof agents[0]!.pid).toBe("number");
  });

  it("recorded fs.read, fs.edit, shell.run and model.complete tool runs, all ok", () => {
    const runs = query(connection, "SELECT tool_name, status, agent_id, task_id FROM tool_runs");
    for (const name of ["fs.read", "fs.edit", "shell.run", "model.complete"]) {
      const of_tool = runs.filter((run) => run.tool_name === name);
      expect(of_tool.length, `tool runs of ${name}`).toBeGreaterThan(0);
      for (const run of of_tool) expect(run.status, `${name}`).toBe("ok");
    }
    expect(runs.filter((run) => run.status !== "ok")).toEqual([]);
    // The worker's own calls are attributed to its agent and task; the Main Agent's classification is not.
    const agent_id = query(connection, "SELECT id FROM agents")[0]!.id;
    expect(runs.filter((run) => run.tool_name !== "model.complete").every((run) => run.agent_id === agent_id)).toBe(true);
    expect(runs.filter((run) => run.tool_name === "model.complete" && run.agent_id === null)).toHaveLength(1);
  });

  it("kept every command's output as artifacts whose files exist and match their sha256", () => {
    const commands = query(connection, "SELECT * FROM command_runs");
    expect(commands.length).toBeGreaterThanOrEqual(2); // the executor's own run and the verification
    for (const command of commands) {
      expect(command.exit_code).toBe(0);
      expect(command.completed_at).not.toBeNull();
      for (const column of ["stdout_artifact_id", "stderr_artifact_id"]) {
        const [artifact] = query(connection, "SELECT * FROM artifacts WHERE id = ?", command[column]);
        expect(artifact, `${column} of ${String(command.id)}`).toBeDefined();
        expect(artifact).toMatchObject({ type: "command_log", command_run_id: command.id });
        const file = path.join(artifacts_dir, String(artifact!.path));
        expect(fs.existsSync(file), file).toBe(true);
        const content = fs.readFileSync(file);
        expect(crypto.createHash("sha256").update(content).digest("hex")).toBe(artifact!.sha256);
        expect(content.byteLength).toBe(artifact!.size_bytes);
      }
      const [stdout_artifact] = query(connection, "SELECT path FROM artifacts WHERE id = ?", command.stdout_artifact_id);
      expect(fs.readFileSync(path.join(artifacts_dir, String(stdout_artifact!.path)), "utf8")).toContain("100% tests passed");
    }
  });

  it("recorded the edit as a diff artifact of the fs.edit run", () => {
    const [edit] = query(connection, "SELECT * FROM tool_runs WHERE tool_name = 'fs.edit'");
    const diffs = query(connection, "SELECT * FROM artifacts WHERE type = 'diff'");
    expect(diffs).toHaveLength(1);
    expect(diffs[0]!.tool_run_id).toBe(edit!.id);
    expect((edit!.output_json as { diff_artifact_id: string }).diff_artifact_id).toBe(diffs[0]!.id);
    const file = path.join(artifacts_dir, String(diffs[0]!.path));
    const diff = fs.readFileSync(file, "utf8");
    expect(diff).toContain("-  for (long i = 1; i < n; ++i)");
    expect(diff).toContain("+  for (long i = 1; i <= n; ++i)");
    expect(crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")).toBe(diffs[0]!.sha256);
    const task = query(connection, "SELECT worker_result_json FROM tasks")[0]!.worker_result_json as { diff_ref?: string };
    expect(task.diff_ref).toBe(diffs[0]!.id);
  });

  it("has evidence rows for the edit and for each command", () => {
    const evidence = query(connection, "SELECT * FROM evidence_refs");
    const commands = query(connection, "SELECT id FROM command_runs").map((row) => row.id);
    expect(
      evidence
        .filter((row) => row.kind === "command_run")
        .map((row) => row.command_run_id)
        .sort(),
    ).toEqual([...commands].sort());
    const diff_id = query(connection, "SELECT id FROM artifacts WHERE type = 'diff'")[0]!.id;
    expect(evidence.some((row) => row.kind === "artifact_excerpt" && row.artifact_id === diff_id)).toBe(true);
    const task_id = query(connection, "SELECT id FROM tasks")[0]!.id;
    for (const row of evidence) expect(row.task_id).toBe(task_id);
  });

  it("logged the whole event chain in order, each event once", () => {
    const events = events_of(connection);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const types = events.map((event) => event.type);
    chain_positions(types, [
      "task.created",
      "task.started",
      "agent.started",
      "tool.started",
      "tool.completed",
      "command.started",
      "command.completed",
      "artifact.created",
      "evidence.created",
      "task.completed",
    ]);
    // agent.completed is recorded by the worker bridge when the worker process exits with its result, which
    // is before the Scheduler settles the task: both close the run, after every tool and command event.
    const last_work = Math.max(...["tool.completed", "command.completed", "evidence.created", "artifact.created"].map((type) => types.lastIndexOf(type)));
    for (const type of ["task.completed", "agent.completed"]) {
      expect(
        types.filter((t) => t === type),
        type,
      ).toHaveLength(1);
      expect(types.indexOf(type), type).toBeGreaterThan(last_work);
    }
    // The task and the worker's agent go through their lifecycles in order.
    const started = events.filter((event) => event.type === "agent.started").map((event) => event.payload.status);
    expect(started).toEqual(["starting", "running"]);
    expect(types.indexOf("task.started")).toBeLessThan(types.indexOf("agent.started"));
  });

  it("passes the referential check", () => {
    expect(referential_check(connection)).toEqual({ ok: true, orphans: [] });
  });

  it("left the fix in src/calc.cpp", () => {
    const source = fs.readFileSync(path.join(project, "src", "calc.cpp"), "utf8");
    expect(source).toContain("for (long i = 1; i <= n; ++i)");
    expect(source).not.toContain("i < n;");
  });
});

describe("air run -p against a scripted model server", () => {
  const script = path.join(SHIPPED_FIXTURES, "worker", "script.yaml");
  const requirement = fixture_requirement("worker");

  async function run_worker_fixture(format: "json" | "events") {
    require_build();
    const work = temp_dir("air-e2e-run-");
    const server = await start_scripted_server({ script, api_key: "sk-e2e-run" });
    try {
      const project = copy_fixture_project("worker", work.dir);
      const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: "sk-e2e-run", ANTHROPIC_BASE_URL: server.url });
      const run = await air(["run", "-p", requirement, "--output-format", format, "--permission-mode", "accept-edits"], { cwd: project, env });
      const greeting = fs.existsSync(path.join(project, "greeting.txt")) ? fs.readFileSync(path.join(project, "greeting.txt"), "utf8") : undefined;
      return { run, greeting, requests: server.requests() };
    } finally {
      await server.close();
      work.cleanup();
    }
  }

  it("--output-format json prints one result document", async () => {
    const { run, greeting, requests } = await run_worker_fixture("json");
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    const result = JSON.parse(run.stdout) as {
      type: string;
      code: number;
      session_id: string;
      outcome: { kind: string; run?: { status: string } };
      summary: string;
    };
    expect(result).toMatchObject({ type: "result", code: 0, outcome: { kind: "executed", run: { status: "completed" } } });
    expect(result.session_id).toMatch(/^ses_/);
    expect(result.summary).toContain("is completed");
    expect(greeting).toBe("hello from air");
    expect(requests.map((request) => [request.requester, request.outcome.kind])).toEqual([
      ["main", "reply"],
      ["executor", "reply"],
      ["executor", "reply"],
    ]);
  });

  it("--output-format events prints air's events one JSON document a line, the result last", async () => {
    const { run, greeting } = await run_worker_fixture("events");
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    const lines = run.stdout.split("\n").filter((line) => line !== "");
    const parsed = lines.map((line, index) => {
      try {
        return JSON.parse(line) as { type: string; event?: { type: string; id: string }; code?: number };
      } catch {
        throw new Error(`stdout line ${index + 1} is not JSON: ${line}`);
      }
    });
    expect(parsed.length).toBeGreaterThan(5);
    expect(parsed.at(-1)).toMatchObject({ type: "result", code: 0, outcome: { kind: "executed" } });
    expect(parsed.slice(0, -1).every((line) => line.type === "event")).toBe(true);
    const types = parsed.slice(0, -1).map((line) => line.event!.type);
    chain_positions(types, [
      "user.message.created",
      "task.created",
      "task.started",
      "agent.started",
      "tool.started",
      "tool.completed",
      "command.started",
      "command.completed",
      "task.completed",
    ]);
    expect(greeting).toBe("hello from air");
  });
});

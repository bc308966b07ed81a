/**
 * `air run -p` with a plan: the scripted Main Agent answers the classification with several tasks; the plan
 * is shown before work starts (text and json), recorded whole, and a bad plan goes back to the model once and
 * then fails with its reason, leaving no task behind. The real runtime and worker against the scripted server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/output.js";
import type { OutputFormat } from "../../src/cli/progress.js";
import { RunResultJson } from "../../src/cli/run-result.js";
import { run_requirement } from "../../src/cli/run-requirement.js";
import { Connection } from "../../src/db/connection.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { TurnInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { copy_fixture_project, only_session, require_build, session_files } from "../e2e/helpers.js";
import { set_air_home } from "../fixtures/session.js";

const KEY = "sk-run-plan-test";

type PlannedInput = { key: string; title: string; file: string; hard?: string[]; soft?: string[] };

function planned({ key, title, file, hard = [], soft = [] }: PlannedInput) {
  return {
    key,
    title,
    description: `Create ${file} holding "${key}".`,
    acceptance_criteria: [`${file} holds ${key}`],
    verification_commands: [`grep -qx "${key}" ${file}`],
    write_area: [file],
    expected_files: [file],
    depends_on: { hard, soft },
  };
}

const classified = (input: Record<string, unknown>, expect?: TurnInput["expect"]): TurnInput => ({
  ...(expect === undefined ? {} : { expect }),
  reply: { content: [{ type: "tool_use", name: "classify_request", input }] },
});
const plan_of = (...tasks: PlannedInput[]) => ({ intent: "plan", tasks: tasks.map(planned) });

/** A worker that writes its file, then reports. */
const writes = (file: string, content: string): TurnInput[] => [
  { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: file, content } }] } },
  { reply: { content: [{ type: "text", text: `Wrote ${file}.` }] } },
];

let root: string;
let restore_air_home: () => void;
let servers: ScriptedServer[] = [];
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "air-run-plan-"));
  restore_air_home = set_air_home(path.join(root, "air-home"));
});
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  restore_air_home();
  fs.rmSync(root, { recursive: true, force: true });
});

async function run(turns: Record<string, TurnInput[]>, format: OutputFormat) {
  const server = await start_scripted_server({ script: { turns }, api_key: KEY });
  servers.push(server);
  const project = copy_fixture_project("worker", root);
  let out = "";
  const io: Io = { cwd: project, out: (text) => (out += text), err: () => undefined };
  const providers = ProviderManager.load({
    home: path.join(root, "air-home"),
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const report = await run_requirement(io, { requirement: "write the two files", format, permissions: { mode: "accept-edits", prompts: "policy" } }, providers);
  const reader = Connection.open(session_files(project, only_session(project)).db, { must_exist: true });
  const rows = (sql: string) => reader.client.prepare(sql).all() as Record<string, unknown>[];
  const tasks = rows("SELECT id, title, status FROM tasks ORDER BY rowid");
  const dependencies = rows("SELECT task_id, depends_on_task_id, kind FROM task_dependencies ORDER BY kind");
  const created = rows("SELECT seq FROM events WHERE type = 'task.created'");
  reader.close();
  return { report, out, project, tasks, dependencies, created };
}

describe("air run -p with a plan", () => {
  it("shows the plan in the json result, records its tasks and dependencies, and runs every task", async () => {
    require_build();
    const { report, out, project, tasks, dependencies } = await run(
      {
        main: [classified(plan_of({ key: "a", title: "Write a", file: "a.txt" }, { key: "b", title: "Write b", file: "b.txt", hard: ["a"], soft: ["a"] }))],
        executor: [...writes("a.txt", "a"), ...writes("b.txt", "b")],
      },
      "json",
    );
    const parsed = JSON.parse(out) as {
      code: number;
      summary: string;
      plan: { tasks: { id: string; title: string; write_area: string[]; depends_on: unknown }[] };
    };
    const result = { ...v.parse(RunResultJson, parsed), plan: parsed.plan };
    expect(result.code).toBe(0);
    // Each task's block: the executor's closing words, then its verdict and facts.
    const blocks = result.summary.split(/\n\n(?=Wrote )/);
    expect(blocks.map((block) => block.split("\n").slice(0, 4))).toEqual([
      ["Wrote a.txt.", "", '- Task "Write a" is completed.', "- Files changed: `a.txt`"],
      ["Wrote b.txt.", "", '- Task "Write b" is completed.', "- Files changed: `b.txt`"],
    ]);
    const [a, b] = result.plan.tasks;
    expect(result.plan.tasks.map((task) => [task.title, task.write_area])).toEqual([
      ["Write a", ["a.txt"]],
      ["Write b", ["b.txt"]],
    ]);
    expect(b?.depends_on).toEqual({ hard: [a?.id], soft: [a?.id], serialized: [] });
    expect(report.outcome).toMatchObject({ kind: "executed", task_ids: [a?.id, b?.id], run: { status: "completed" } });
    expect(tasks).toEqual([
      { id: a?.id, title: "Write a", status: "completed" },
      { id: b?.id, title: "Write b", status: "completed" },
    ]);
    expect(dependencies).toEqual([
      { task_id: b?.id, depends_on_task_id: a?.id, kind: "hard" },
      { task_id: b?.id, depends_on_task_id: a?.id, kind: "soft" },
    ]);
    expect(fs.readFileSync(path.join(project, "b.txt"), "utf8")).toBe("b");
    expect(result.tasks.map((task) => ({ ...task, usage: task.usage.turns }))).toEqual([
      {
        id: a?.id,
        title: "Write a",
        status: "completed",
        status_reason: null,
        attempts: 1,
        workspace: "main",
        branch: null,
        usage: 2,
        summary: expect.any(String),
        error: null,
      },
      {
        id: b?.id,
        title: "Write b",
        status: "completed",
        status_reason: null,
        attempts: 1,
        workspace: "main",
        branch: null,
        usage: 2,
        summary: expect.any(String),
        error: null,
      },
    ]);
    expect(result.total.turns).toBe(5);
  });

  it("prints the plan as text before any task starts", async () => {
    require_build();
    const { out } = await run(
      {
        main: [classified(plan_of({ key: "a", title: "Write a", file: "a.txt" }, { key: "b", title: "Write b", file: "b.txt", hard: ["a"] }))],
        executor: [...writes("a.txt", "a"), ...writes("b.txt", "b")],
      },
      "text",
    );
    const block = "Plan: 2 tasks\n  1. Write a — writes a.txt\n  2. Write b — writes b.txt — after 1\n";
    expect(out).toContain(block);
    expect(out.indexOf(block)).toBeLessThan(out.indexOf(" started — agent "));
    // The fixture is no git checkout: said once, before the first wave.
    expect(out.split("! not a git repository: tasks run one at a time in the project folder\n").length).toBe(2);
    expect(out).toMatch(/▸ wave: Write a \((tsk_\w+)\) starts\n {2}· Write b \(tsk_\w+\) waits for \1 to complete\n/);
    expect(out).toMatch(/▸ Write a \(tsk_\w+\) started — agent agt_\w+ in the project folder\n/);
  });

  it("hands a refused plan back to the model once, with the reason as its tool result, and runs the corrected answer", async () => {
    const cycle = plan_of({ key: "a", title: "Write a", file: "a.txt", hard: ["b"] }, { key: "b", title: "Write b", file: "b.txt", hard: ["a"] });
    const { report, tasks } = await run(
      { main: [classified(cycle), classified({ intent: "chat", answer: "Nothing to do after all." }, { tool_result_contains: 'cycle: "a" → "b" → "a"' })] },
      "json",
    );
    expect(report.outcome).toEqual({ kind: "answered", answer: "Nothing to do after all." });
    expect(tasks).toEqual([]);
  });

  it("fails with the plan's problem when the second answer is refused too, and records no task", async () => {
    const outside = plan_of({ key: "a", title: "Write a", file: "a.txt" }, { key: "hooks", title: "Edit hooks", file: ".git/hooks/pre-commit" });
    const unknown = plan_of({ key: "a", title: "Write a", file: "a.txt", hard: ["lib-z"] });
    const { report, out, tasks, created } = await run(
      { main: [classified(outside), classified(unknown, { tool_result_contains: "must not be in .git" })] },
      "json",
    );
    expect(report.code).toBe(1);
    expect(report.outcome).toMatchObject({
      kind: "failed",
      error: { kind: "agent_error", message: 'the plan is invalid: task "a" depends on "lib-z", which is not a task of the plan (its tasks: "a")' },
    });
    expect((JSON.parse(out) as { plan: unknown }).plan).toBeNull();
    expect(tasks).toEqual([]);
    expect(created).toEqual([]);
  });
});

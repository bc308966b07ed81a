/**
 * The reviewer cannot write (seeds 000 §8.3): its brief offers read tools only, and the parent refuses every
 * write whatever the worker asks — a reviewer's calls carry the `read_only` access the parent gives its role,
 * which the PermissionEngine refuses to any write, command, commit or patch, even in bypass mode.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { REVIEW_TOOLS, reviewer_runner } from "../../src/actors/runtime/review-run.js";
import { read_task_spec } from "../../src/actors/runtime/task-graph.js";
import { AgentId, new_id, TaskId } from "../../src/contracts/ids.js";
import type { ToolOutcome } from "../../src/contracts/tool.js";
import type { WorkerLogEntry } from "../../src/actors/worker-bridge/index.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { REPO_ROOT, TSX_LOADER } from "../fixtures/cli.js";
import { task_created_event } from "../fixtures/events.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { REVIEWER_ATTACKS, TODAY } from "../fixtures/reviewer-attacks.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const ROGUE = path.join(REPO_ROOT, "test", "fixtures", "workers", "rogue-reviewer.ts");

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

function project(): { temp: TempSession; root: string; task_id: TaskId } {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  const root = temp.project.layout.root;
  init_repo(root);
  commit_files(root, "start", { "notes/today.md": TODAY, ".gitignore": ".air/\n" });
  const event = task_created_event(temp.session.origin, { scope: { write_area: ["notes"] } });
  temp.session.ingestor.ingest(event);
  return { temp, root, task_id: v.parse(TaskId, event.payload.task.id) };
}

describe("the reviewer cannot write", () => {
  it("refuses at the parent every write a reviewer worker sends, whatever its own checks would have said", async () => {
    const { temp, root, task_id } = project();
    const registry = create_tool_registry({ permissions: permissions_for_project(temp.project.layout, { mode: "bypass" }) });
    const logs: WorkerLogEntry[] = [];
    const run_reviewer = reviewer_runner({
      session: temp.session,
      registry,
      brief_of: () => ({ project_root: root, model_id: "scripted-model", max_turns: 3, tools: registry.schemas() }),
      entry: { command: process.execPath, args: ["--import", pathToFileURL(TSX_LOADER).href, ROGUE] },
      on_log: (entry) => logs.push(entry),
    });
    const task = read_task_spec(temp.session.connection, task_id);
    const outcome = await run_reviewer({ task, agent_id: v.parse(AgentId, new_id("agent")), instructions: "Review." }, new AbortController().signal);

    expect(outcome).toMatchObject({ status: "completed", result: { agent_type: "reviewer", result: { verdict: "approved" } } });
    const attacks = logs.filter((entry) => entry.message === "attack").map((entry) => entry.data as { tool_name: string; outcome: ToolOutcome });
    expect(attacks.map((attack) => attack.tool_name)).toEqual(REVIEWER_ATTACKS.map((attack) => attack.tool_name));
    for (const attack of attacks) expect(attack.outcome).toMatchObject({ ok: false, error: { kind: "permission_error" } });
    expect(fs.readFileSync(path.join(root, "notes/today.md"), "utf8")).toBe(TODAY);
    expect(git(root, "log", "--format=%s").trim()).toBe("start");
    expect(git(root, "status", "--porcelain").trim()).toBe("");
    // None of them got as far as running.
    expect(temp.session.store.query({ types: ["tool.started"] })).toEqual([]);
  });

  it("refuses a read-only caller's writes, commands, commits and patches in the PermissionEngine, even in bypass mode", async () => {
    const { temp, root } = project();
    const registry = create_tool_registry({ permissions: permissions_for_project(temp.project.layout, { mode: "bypass" }) });
    const caller = { session: temp.session, access: "read_only" as const };
    for (const attack of REVIEWER_ATTACKS.filter((candidate) => registry.get(candidate.tool_name) !== undefined)) {
      const outcome = await registry.call(attack, caller);
      expect(outcome.ok, attack.tool_name).toBe(false);
      if (!outcome.ok) expect(outcome.error.message).toContain("this agent's role (a reviewer, the experience miner) may only read");
    }
    expect(fs.readFileSync(path.join(root, "notes/today.md"), "utf8")).toBe(TODAY);
    expect(await registry.call({ tool_name: "fs.read", input: { path: "notes/today.md" } }, caller)).toMatchObject({ ok: true });
    // The same write by a caller with full access goes ahead in bypass mode: the refusal is the role's.
    expect(await registry.call({ tool_name: "fs.write", input: { path: "notes/other.md", content: "x\n" } }, { session: temp.session })).toMatchObject({
      ok: true,
    });
  });

  it("offers a reviewer read tools only", () => {
    expect(REVIEW_TOOLS.filter((name) => /write|edit|patch|shell|commit/.test(name))).toEqual([]);
  });
});

/**
 * Recovery mid-wave (issue 12): the runtime is SIGKILLed while the parallel fixture's three workers run, each
 * in its worktree. No worker outlives it by more than a few seconds; `air resume` finishes every task in the
 * worktree it had, the merges land one at a time, no git worktree lock of the dead runtime is left, and the
 * main checkout ends exactly merged.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commit_fixture_project } from "../../src/cli/commands/e2e-git.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import {
  air,
  air_env,
  AirProcess,
  copy_fixture_project,
  events_of,
  fixture_requirement,
  open_readonly,
  peek,
  pid_alive,
  query,
  require_build,
  rows,
  SHIPPED_FIXTURES,
  session_files,
  session_ids,
  temp_dir,
  wait_until,
} from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++", "git"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
const SCRIPT = path.join(SHIPPED_FIXTURES, "parallel", "script.yaml");

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" }).stdout;

describe.skipIf(missing_tools.length > 0)("the runtime SIGKILLed with three workers running, then air resume", () => {
  it("leaves no worker alive, and resume finishes every task in its own worktree, merging one at a time", async () => {
    require_build();
    const work = temp_dir("air-e2e-parallel-resume-");
    cleanups.push(work.cleanup);
    const project = copy_fixture_project("parallel", work.dir);
    commit_fixture_project(project);
    // Every answer waits, so the three workers are all mid-conversation when the runtime dies.
    const slow = await start_scripted_server({ script: SCRIPT, delay_ms: 1_500 });
    cleanups.push(() => slow.close());
    const env = (url: string) => air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: url });

    const runtime = new AirProcess(["run", "-p", fixture_requirement("parallel"), "--permission-mode", "accept-edits"], { cwd: project, env: env(slow.url) });
    cleanups.push(() => runtime.kill());
    const session_id = await wait_until("the session database", () => session_ids(project)[0], 30_000);
    const { db } = session_files(project, session_id);
    const agents = await wait_until(
      "three workers running",
      () => {
        const running = peek(db, (client) => rows(client, "SELECT id, pid FROM agents WHERE status = 'running'"));
        return running !== undefined && running.length === 3 ? running : undefined;
      },
      60_000,
    );
    runtime.kill("SIGKILL");
    expect(await runtime.exit).toEqual({ code: null, signal: "SIGKILL" });
    const pids = agents.map((agent) => Number(agent.pid));
    await wait_until("every worker gone", () => pids.every((pid) => !pid_alive(pid)), 5_000);

    const before = open_readonly(db);
    const worktrees_before = query(before, "SELECT task_id, path FROM workspaces WHERE strategy = 'worktree' AND status = 'active'");
    before.close();
    expect(worktrees_before).toHaveLength(3);
    expect(git(project, "diff", "--name-only").trim()).toBe("");

    // A fresh server: the resumed workers start their conversations again.
    const fresh = await start_scripted_server({ script: SCRIPT });
    cleanups.push(() => fresh.close());
    const resume = await air(["resume", "--permission-mode", "accept-edits"], { cwd: project, env: env(fresh.url) });
    expect(resume.result, resume.transcript).toEqual({ code: 0, signal: null });

    const after = open_readonly(db);
    cleanups.push(() => after.close());
    const tasks = query(after, "SELECT id, status FROM tasks");
    expect(tasks.map((task) => task.status)).toEqual(["completed", "completed", "completed", "completed"]);
    // The interrupted tasks went on in the worktrees they had: no second worktree for any of them.
    const worktrees = query(after, "SELECT task_id, path, status FROM workspaces WHERE strategy = 'worktree'");
    for (const earlier of worktrees_before) {
      expect(worktrees.filter((row) => row.task_id === earlier.task_id).map((row) => row.path)).toEqual([earlier.path]);
    }
    const merges = events_of(after).filter((event) => event.type.startsWith("workspace.merge."));
    for (let index = 0; index < merges.length; index += 2) {
      expect([merges[index]?.type, merges[index + 1]?.type]).toEqual(["workspace.merge.started", "workspace.merge.completed"]);
    }

    expect(git(project, "worktree", "list", "--porcelain")).not.toContain("locked");
    expect(git(project, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(git(project, "diff", "--name-only").trim().split("\n").sort()).toEqual([
      "app/calendar.cpp",
      "libs/alpha/alpha.cpp",
      "libs/beta/beta.cpp",
      "libs/gamma/gamma.cpp",
    ]);
    const verify = spawnSync("bash", ["-c", "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && ctest --test-dir build >/dev/null"], {
      cwd: project,
    });
    expect(verify.status).toBe(0);
  }, 240_000);
});

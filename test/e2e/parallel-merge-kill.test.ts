/**
 * Recovery mid-merge (issue 12): the runtime is SIGKILLed while the merge queue merges a task of the parallel
 * fixture into the main checkout, its verification running on the merged checkout. No worker outlives it by
 * more than a few seconds; the checkout is either exactly as before that merge or exactly merged, never half;
 * `air resume` rolls the cut-off merge back or completes it and finishes every task; every commit a worker
 * made before the kill is still there; no git worktree lock of the dead runtime is left.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commit_fixture_project } from "../../src/cli/commands/e2e-git.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { journal_path } from "../../src/workspaces/journal.js";
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

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" }).stdout;

/**
 * The shipped script with one more verification command per task, a pause: the merge re-runs the task's
 * verification on the merged checkout, so the merge lasts long enough for the kill to land inside it.
 */
function slow_merge_script(into: string): string {
  const shipped = fs.readFileSync(path.join(SHIPPED_FIXTURES, "parallel", "script.yaml"), "utf8");
  const slowed = shipped.replace(/^(\s+)(- &\w+_verify .*)$/gm, "$1$2\n$1- sleep 3");
  expect(slowed.match(/- sleep 3$/gm)).toHaveLength(4);
  const file = path.join(into, "slow-merge.yaml");
  fs.writeFileSync(file, slowed);
  return file;
}

/** The files of the checkout that differ from HEAD (tracked or new, never ignored ones nor air's own folder). */
function changed_files(project: string): string[] {
  const tracked = git(project, "diff", "--name-only", "HEAD").split("\n");
  const untracked = git(project, "ls-files", "--others", "--exclude-standard").split("\n");
  return [...tracked, ...untracked].filter((file) => file !== "" && !file.startsWith(".air/")).sort();
}

/** The changed files a task commit brings over its base, with their bytes there. */
function work_of(project: string, base: string, commit: string): Map<string, string> {
  const files = git(project, "diff", "--name-only", base, commit)
    .split("\n")
    .filter((file) => file !== "");
  return new Map(files.map((file) => [file, git(project, "show", `${commit}:${file}`)]));
}

/** `refs/heads/air/…` of the project: each task's branch and the commit it points at. */
function air_branches(project: string): Map<string, string> {
  const lines = git(project, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/air/")
    .split("\n")
    .filter((line) => line !== "");
  return new Map(lines.map((line) => line.split(" ") as [string, string]));
}

describe.skipIf(missing_tools.length > 0)("the runtime SIGKILLed during a merge, then air resume", () => {
  it("never leaves the checkout half-merged, and resume recovers the merge and finishes every task", async () => {
    require_build();
    const work = temp_dir("air-e2e-merge-kill-");
    cleanups.push(work.cleanup);
    const project = copy_fixture_project("parallel", work.dir);
    commit_fixture_project(project);
    const head = git(project, "rev-parse", "HEAD").trim();
    const script = slow_merge_script(work.dir);
    const server = await start_scripted_server({ script });
    cleanups.push(() => server.close());
    const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: server.url });

    const runtime = new AirProcess(["run", "-p", fixture_requirement("parallel"), "--permission-mode", "accept-edits"], { cwd: project, env });
    cleanups.push(() => runtime.kill());
    const session_id = await wait_until("the session database", () => session_ids(project)[0], 30_000);
    const { db } = session_files(project, session_id);
    // The first merge, once the three workers of the wave have all finished: one merging, two queued behind it.
    const merging = await wait_until(
      "the first merge under way, the wave's three workers finished",
      () => {
        if (!fs.existsSync(journal_path(project))) return undefined;
        const state = peek(db, (client) => ({
          started: rows(client, "SELECT id, task_id, base_ref FROM workspaces WHERE merge_in_progress = 1"),
          merged: rows(client, "SELECT id FROM workspaces WHERE merged_at IS NOT NULL"),
          completed: rows(client, "SELECT id FROM agents WHERE agent_type = 'executor' AND status = 'completed'"),
        }));
        if (state === undefined || state.merged.length > 0 || state.completed.length < 3) return undefined;
        return state.started.length === 1 ? state.started[0] : undefined;
      },
      60_000,
      10,
    );
    const branches = air_branches(project);
    const agents = peek(db, (client) => rows(client, "SELECT id, pid FROM agents WHERE pid IS NOT NULL")) ?? [];
    runtime.kill("SIGKILL");
    expect(await runtime.exit).toEqual({ code: null, signal: "SIGKILL" });
    const pids = agents.map((agent) => Number(agent.pid));
    await wait_until("every worker gone", () => pids.every((pid) => !pid_alive(pid)), 5_000);

    const at_kill = open_readonly(db);
    const cut_off = events_of(at_kill).filter((event) => event.type.startsWith("workspace.merge."));
    const wave = new Set(query(at_kill, "SELECT task_id FROM workspaces WHERE strategy = 'worktree'").map((row) => row.task_id));
    at_kill.close();
    expect(wave.size).toBe(3);
    expect(cut_off.at(-1)?.type).toBe("workspace.merge.started");
    // The merge commits the task's work on its branch before it starts: that commit is the work to land.
    const task_commit = [...branches].find(([ref]) => ref.endsWith(`/${String(merging?.id)}`))?.[1];
    expect(task_commit).toBeDefined();
    const merged_work = work_of(project, String(merging?.base_ref), String(task_commit));
    expect(merged_work.size).toBeGreaterThan(0);
    // Never half-merged: exactly the checkout before this merge (the first, so HEAD), or exactly merged.
    const now = changed_files(project);
    if (now.length > 0) {
      expect(now).toEqual([...merged_work.keys()].sort());
      for (const [file, bytes] of merged_work) expect(fs.readFileSync(path.join(project, file), "utf8")).toBe(bytes);
    }
    expect(air_branches(project)).toEqual(branches);

    // The same server: the three finished conversations have no turn left, so a worker run again would fail.
    const resume = await air(["resume", "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(resume.result, resume.transcript).toEqual({ code: 0, signal: null });

    const after = open_readonly(db);
    cleanups.push(() => after.close());
    const resumed = events_of(after).filter((event) => event.seq > Number(cut_off.at(-1)?.seq));
    expect(resumed.filter((event) => event.type === "task.started" && wave.has(event.task_id))).toEqual([]);
    expect(resumed.filter((event) => event.type === "task.completed").map((event) => event.task_id)).toHaveLength(4);
    const merges = resumed.filter((event) => event.type.startsWith("workspace.merge."));
    for (let index = 0; index < merges.length; index += 2) {
      expect([merges[index]?.type, merges[index + 1]?.type]).toEqual(["workspace.merge.started", "workspace.merge.completed"]);
    }
    expect(query(after, "SELECT status FROM tasks").map((task) => task.status)).toEqual(["completed", "completed", "completed", "completed"]);
    expect(fs.existsSync(journal_path(project))).toBe(false);
    // Every commit a worker's branch held at the kill is still in the repository.
    for (const commit of branches.values()) expect(spawnSync("git", ["cat-file", "-e", `${commit}^{commit}`], { cwd: project }).status).toBe(0);
    const porcelain = git(project, "worktree", "list", "--porcelain");
    expect(porcelain).not.toContain("locked");
    expect(porcelain.match(/^worktree /gm)).toHaveLength(1);
    expect(git(project, "rev-parse", "HEAD").trim()).toBe(head);
    expect(changed_files(project)).toEqual(["app/calendar.cpp", "libs/alpha/alpha.cpp", "libs/beta/beta.cpp", "libs/gamma/gamma.cpp"]);
    const verify = spawnSync("bash", ["-c", "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && ctest --test-dir build >/dev/null"], {
      cwd: project,
    });
    expect(verify.status).toBe(0);
  }, 180_000);
});

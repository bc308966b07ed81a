/**
 * The parallel fixture end to end through the built CLI binary (issue 12's acceptance): four planned tasks, the
 * three independent ones in one wave, each in its own worktree, merged one at a time, the fourth after them;
 * ctest passes in the main checkout and no worktree or branch of air's is left.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Connection } from "../../src/db/connection.js";
import { air, air_env, events_of, only_session, open_readonly, query, require_build, session_files, temp_dir } from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++", "git"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);

type Interval = { task_id: string; start: number; end: number };

describe.skipIf(missing_tools.length > 0)("air e2e parallel-fixture --keep, then the session DB", () => {
  let home: ReturnType<typeof temp_dir>;
  let kept_work: string | undefined;
  let project: string;
  let stdout: string;
  let connection: Connection;

  beforeAll(async () => {
    require_build();
    home = temp_dir("air-e2e-home-");
    const run = await air(["e2e", "parallel-fixture", "--keep"], { cwd: home.dir, env: air_env(path.join(home.dir, "air-home")) });
    stdout = run.stdout;
    const kept = /^fixture parallel: (.+)$/m.exec(run.stdout)?.[1];
    if (kept !== undefined) kept_work = path.dirname(kept);
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    project = kept ?? "";
    connection = open_readonly(session_files(project, only_session(project)).db);
  }, 240_000);

  afterAll(() => {
    connection?.close();
    if (kept_work !== undefined && path.basename(kept_work).startsWith("air-e2e-parallel-")) fs.rmSync(kept_work, { recursive: true, force: true });
    home?.cleanup();
  });

  it("reports a passing team run: ctest passes in the main checkout, nothing left in git", () => {
    expect(stdout).toMatch(/verification \(.*\): exit 0/);
    expect(stdout).toContain("team run: one wave of independent tasks, merges one at a time, nothing left in git");
    expect(stdout).toContain("e2e passed");
  });

  it("shows the wave, each agent's worktree and each merge in its text output", () => {
    expect(stdout).toMatch(/▸ wave: 3 tasks run together: .+\n {2}· .+ \(tsk_\w+\) waits for tsk_\w+, tsk_\w+ to complete\n/);
    expect(stdout.match(/ started — agent agt_\w+ in worktree .+ on branch air\/tsk_\w+\/wsp?_\w+\n/g)?.length).toBeGreaterThanOrEqual(3);
    expect(stdout.match(/^⇢ merging .+ into the checkout$/gm)?.length).toBeGreaterThanOrEqual(3);
    expect(stdout.match(/^✓ merged .+$/gm)?.length).toBeGreaterThanOrEqual(3);
    expect(stdout).not.toContain("tasks run one at a time");
  });

  it("ran the three independent tasks at the same time, each in a worktree of its own, and the dependent one after their merges", () => {
    const tasks = query(connection, "SELECT id, title, status, attempt_count FROM tasks ORDER BY rowid");
    expect(tasks.map((task) => [task.status, task.attempt_count])).toEqual([
      ["completed", 1],
      ["completed", 1],
      ["completed", 1],
      ["completed", 1],
    ]);
    const events = events_of(connection);
    const at = (type: string, task_id: string) =>
      events.findIndex((event) => event.type === type && (event.payload as { task_id?: string }).task_id === task_id);
    const intervals: Interval[] = tasks.map((task) => ({
      task_id: String(task.id),
      start: at("task.started", String(task.id)),
      end: at("task.completed", String(task.id)),
    }));
    const [alpha, beta, gamma, app] = intervals;
    for (const task of [beta, gamma]) expect(task!.start).toBeLessThan(alpha!.end);
    expect(Math.max(alpha!.start, beta!.start, gamma!.start)).toBeLessThan(Math.min(alpha!.end, beta!.end, gamma!.end));
    expect(app!.start).toBeGreaterThan(Math.max(alpha!.end, beta!.end));

    const workspaces = query(connection, "SELECT task_id, strategy, status FROM workspaces ORDER BY created_at");
    expect(workspaces.filter((row) => row.strategy === "worktree").map((row) => row.task_id)).toEqual(
      expect.arrayContaining(intervals.slice(0, 3).map((i) => i.task_id)),
    );
    expect(workspaces.every((row) => row.status === "cleaned")).toBe(true);
  });

  it("merged one at a time: every merge.started is closed by its merge.completed before the next one", () => {
    const merges = events_of(connection).filter((event) => event.type.startsWith("workspace.merge."));
    expect(merges.length).toBeGreaterThanOrEqual(6);
    for (let index = 0; index < merges.length; index += 2) {
      expect([merges[index]!.type, merges[index + 1]!.type]).toEqual(["workspace.merge.started", "workspace.merge.completed"]);
    }
  });

  it("leaves the user's branch and index alone: the merged work is uncommitted in the main checkout", () => {
    const git = (...args: string[]) => spawnSync("git", args, { cwd: project, encoding: "utf8" }).stdout;
    expect(git("log", "--format=%s").trim()).toBe("The fixture project");
    expect(git("diff", "--cached", "--name-only").trim()).toBe("");
    expect(git("diff", "--name-only").trim().split("\n").sort()).toEqual([
      "app/calendar.cpp",
      "libs/alpha/alpha.cpp",
      "libs/beta/beta.cpp",
      "libs/gamma/gamma.cpp",
    ]);
  });
});

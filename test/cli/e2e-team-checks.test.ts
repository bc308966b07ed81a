/**
 * What `air e2e` checks of a team fixture's run: the event log of a plan (one wave of the independent
 * tasks, overlapping, each in its own worktree; merges one at a time; a dependent task after its
 * dependencies' merges), and the fixture's git repository afterwards (no worktree or branch left).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commit_fixture_project, git_leftovers } from "../../src/cli/commands/e2e-git.js";
import { team_run_problems } from "../../src/cli/commands/e2e-team-checks.js";
import { make_event, parse_event, type EventOrigin, type EventType, type PayloadInputOf } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import type { HistoryEntry } from "../../src/project/session-catalog.js";
import { minimal_task_spec } from "../fixtures/events.js";
import { git } from "../fixtures/git-repo.js";
import { TempDirs } from "../fixtures/processes.js";

const origin: EventOrigin = { session_id: new_id("session") as SessionId, source: { kind: "scheduler" }, route: ["main", "scheduler"] };

/** An event log written step by step, as the runtime would commit it. */
class Log {
  readonly entries: HistoryEntry[] = [];
  readonly #agents = new Map<string, string>();
  readonly #workspaces = new Map<string, string>();

  add<T extends EventType>(type: T, payload: PayloadInputOf<T>): void {
    this.entries.push({ ...parse_event(make_event(type, payload, origin)), seq: this.entries.length + 1 });
  }

  task(title: string, hard: string[] = []): string {
    const task = minimal_task_spec({ title, dependencies: { hard, soft: [] } });
    this.add("task.created", { task });
    return task.id;
  }

  start(task_id: string, workspace: "worktree" | "main" = "worktree"): void {
    const agent_id = new_id("agent");
    const workspace_id = new_id("workspace");
    this.#agents.set(task_id, agent_id);
    this.#workspaces.set(task_id, workspace_id);
    this.add("workspace.created", { workspace_id, strategy: workspace, path: `/wt/${workspace_id}`, task_id });
    this.add("agent.started", { agent_id, agent_type: "executor", status: "running", task_id, pid: 4242 });
  }

  finish(task_id: string): void {
    this.add("agent.completed", { agent_id: this.#agent(task_id), exit_code: 0 });
  }

  merge_started(task_id: string): void {
    this.add("workspace.merge.started", { workspace_id: this.#workspace(task_id) });
  }

  merged(task_id: string): void {
    this.add("workspace.merge.completed", { workspace_id: this.#workspace(task_id) });
    this.add("task.completed", {
      task_id,
      worker_result: {
        task_id,
        agent_id: this.#agent(task_id),
        agent_type: "executor",
        status: "completed",
        summary: "done",
        changed_files: [],
        artifacts: [],
        verification: [],
        risks: [],
        follow_up_tasks: [],
        evidence_refs: [],
        result: { commands_run: [], tests_added: [] },
      },
    });
  }

  merge(task_id: string): void {
    this.merge_started(task_id);
    this.merged(task_id);
  }

  #agent(task_id: string): string {
    return this.#agents.get(task_id) ?? "";
  }

  #workspace(task_id: string): string {
    return this.#workspaces.get(task_id) ?? "";
  }
}

/** The parallel fixture's plan: three independent fixes and an app task on two of them. */
function plan(log: Log) {
  const alpha = log.task("alpha");
  const beta = log.task("beta");
  const gamma = log.task("gamma");
  const app = log.task("app", [alpha, beta]);
  return { alpha, beta, gamma, app };
}

describe("team_run_problems", () => {
  it("finds nothing wrong with one wave of overlapping workers in their own worktrees, merged one at a time, then the dependent task", () => {
    const log = new Log();
    const { alpha, beta, gamma, app } = plan(log);
    for (const id of [alpha, beta, gamma]) log.start(id);
    for (const id of [beta, alpha, gamma]) log.finish(id);
    for (const id of [beta, alpha, gamma]) log.merge(id);
    log.start(app, "main");
    log.finish(app);
    log.merge(app);

    expect(team_run_problems(log.entries)).toEqual([]);
  });

  it("names the independent tasks when their workers ran one after another", () => {
    const log = new Log();
    const { alpha, beta, gamma, app } = plan(log);
    for (const id of [alpha, beta, gamma]) {
      log.start(id);
      log.finish(id);
      log.merge(id);
    }
    log.start(app);
    log.finish(app);
    log.merge(app);

    const problems = team_run_problems(log.entries);

    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^the tasks without dependencies did not run at the same time \(worker spans in event seq: "alpha" \d+–\d+, "beta"/);
  });

  it("names a dependent task whose worker started before a dependency was merged", () => {
    const log = new Log();
    const { alpha, beta, gamma, app } = plan(log);
    for (const id of [alpha, beta, gamma]) log.start(id);
    for (const id of [alpha, beta, gamma]) log.finish(id);
    log.merge(alpha);
    log.start(app);
    log.merge(beta);
    log.merge(gamma);
    log.finish(app);
    log.merge(app);

    expect(team_run_problems(log.entries)).toEqual([expect.stringMatching(/^"app" started \(seq \d+\) before its dependency "beta" was merged \(seq \d+\)$/)]);
  });

  it("names a merge that started while another was open", () => {
    const log = new Log();
    const { alpha, beta, gamma, app } = plan(log);
    for (const id of [alpha, beta, gamma]) log.start(id);
    for (const id of [alpha, beta, gamma]) log.finish(id);
    log.merge_started(alpha);
    log.merge_started(beta);
    log.merged(alpha);
    log.merged(beta);
    log.merge(gamma);
    log.start(app);
    log.finish(app);
    log.merge(app);

    expect(team_run_problems(log.entries)).toEqual([expect.stringMatching(/^the merge of wsp_\w+ started \(seq \d+\) while the merge of wsp_\w+ was open$/)]);
  });

  it("names a wave task that worked in the main checkout and a task that never completed", () => {
    const log = new Log();
    const { alpha, beta, gamma } = plan(log);
    log.start(alpha, "main");
    log.start(beta);
    log.start(gamma);
    for (const id of [alpha, beta, gamma]) log.finish(id);
    for (const id of [alpha, beta, gamma]) log.merge(id);

    expect(team_run_problems(log.entries)).toEqual(['"app" did not complete', '"alpha" ran in no worktree of its own']);
  });

  it("says a run of one task is not a plan", () => {
    const log = new Log();
    log.task("only");

    expect(team_run_problems(log.entries)).toEqual(["the run has 1 task(s), not a plan of several"]);
  });
});

describe("the fixture's repository", () => {
  const dirs = new TempDirs();
  afterAll(() => dirs.cleanup());

  it("starts as one commit on main, and any worktree or branch left in it is named", () => {
    const root = dirs.make("air-e2e-git-");
    fs.writeFileSync(path.join(root, "CMakeLists.txt"), "project(p)\n");
    commit_fixture_project(root);

    expect(git(root, "log", "--format=%s").trim()).toBe("The fixture project");
    expect(git(root, "status", "--porcelain")).toBe("");
    expect(git_leftovers(root)).toEqual([]);

    const worktree = path.join(dirs.make("air-e2e-wt-"), "alpha");
    git(root, "worktree", "add", "--quiet", "-b", "air/alpha", worktree);

    expect(git_leftovers(root)).toEqual([`a worktree is left: ${fs.realpathSync(worktree)}`, "a branch is left: air/alpha"]);

    git(root, "worktree", "remove", worktree);
    git(root, "branch", "--quiet", "-D", "air/alpha");

    expect(git_leftovers(root)).toEqual([]);
  });
});

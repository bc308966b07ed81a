import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { new_id, type TaskId } from "../../src/contracts/ids.js";
import { write_journal } from "../../src/workspaces/journal.js";
import { WorkspaceManager } from "../../src/workspaces/manager.js";
import type { VerifyOutcome } from "../../src/workspaces/merge-result.js";
import { list_air_worktrees } from "../../src/workspaces/worktree.js";
import { checkout_state, write_files } from "../fixtures/checkout.js";
import { task_created_event } from "../fixtures/events.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { find_row, temp_session_per_test, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
temp_session_per_test((opened) => {
  temp = opened;
});

function setup(): { root: string; manager: WorkspaceManager; task_id: TaskId } {
  const root = temp.project.layout.root;
  init_repo(root);
  commit_files(root, "base", { "lib/a.c": "int a;\n", "lib/b.c": "int b;\n" });
  const task_id = new_id("task") as TaskId;
  temp.session.ingestor.ingest(task_created_event(temp.session.origin, { id: task_id, title: "a task" }));
  return { root, manager: new WorkspaceManager(temp.session), task_id };
}

function workspace_event_types(): string[] {
  return temp.session.store
    .query({ types: ["workspace.created", "workspace.merge.started", "workspace.merge.completed", "workspace.merge.conflicted", "workspace.cleaned"] })
    .map((stored) => stored.event.type);
}

const passes = async (): Promise<VerifyOutcome> => ({ passed: true });

describe("WorkspaceManager", () => {
  it("creates, merges and cleans a worktree workspace, recording each step after it happened", async () => {
    const { root, manager, task_id } = setup();
    const { commit } = await manager.snapshot();
    const ref = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit });
    expect(find_row(temp.session.connection, "workspaces", ref.workspace_id)).toMatchObject({ status: "active", path: ref.path, base_ref: commit, task_id });
    write_files(ref.path, { "lib/a.c": "int a = 1;\n" });
    let seen_started = false;
    const verify = async (): Promise<VerifyOutcome> => {
      // merge.started is recorded before the checkout is touched; the verification sees the merged file.
      seen_started = find_row(temp.session.connection, "workspaces", ref.workspace_id)?.merge_in_progress === 1;
      expect(fs.readFileSync(path.join(root, "lib/a.c"), "utf8")).toBe("int a = 1;\n");
      return { passed: true };
    };
    const result = await manager.merge_workspace(ref, { message: "a task", verify });
    expect(result.kind).toBe("merged");
    expect(seen_started).toBe(true);
    expect(find_row(temp.session.connection, "workspaces", ref.workspace_id)).toMatchObject({ status: "merged", merge_in_progress: 0 });
    await manager.cleanup_workspace(ref);
    expect(find_row(temp.session.connection, "workspaces", ref.workspace_id)).toMatchObject({ status: "cleaned" });
    expect(await list_air_worktrees(root)).toEqual([]);
    expect(git(root, "branch", "--list", "air/*").trim()).toBe("");
    expect(workspace_event_types()).toEqual(["workspace.created", "workspace.merge.started", "workspace.merge.completed", "workspace.cleaned"]);
  });

  it("merges one at a time in the order asked, and records a conflict with its files", async () => {
    const { root, manager, task_id } = setup();
    const { commit } = await manager.snapshot();
    const first = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit });
    const second = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit });
    write_files(first.path, { "lib/a.c": "int a = 1;\n" });
    write_files(second.path, { "lib/a.c": "int a = 2;\n" });
    const order: string[] = [];
    const verify = (name: string) => async (): Promise<VerifyOutcome> => {
      order.push(name);
      return { passed: true };
    };
    const [one, two] = await Promise.all([
      manager.merge_workspace(first, { message: "first", verify: verify("first") }),
      manager.merge_workspace(second, { message: "second", verify: verify("second") }),
    ]);
    expect([one.kind, two.kind, order]).toEqual(["merged", "conflicted", ["first"]]);
    expect(fs.readFileSync(path.join(root, "lib/a.c"), "utf8")).toBe("int a = 1;\n");
    expect(find_row(temp.session.connection, "workspaces", second.workspace_id)).toMatchObject({
      status: "conflicted",
      conflict_json: { cause: "conflict", conflicting_files: ["lib/a.c"], detail: expect.stringContaining("CONFLICT (content)") },
    });
  });

  it("records a failed post-merge verification as a merge that did not land, the checkout restored", async () => {
    const { root, manager, task_id } = setup();
    const ref = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: (await manager.snapshot()).commit });
    write_files(ref.path, { "lib/b.c": "broken\n" });
    const before = checkout_state(root);
    const result = await manager.merge_workspace(ref, { message: "b", verify: async () => ({ passed: false, reason: "ctest failed" }) });
    expect(result.kind).toBe("verification_failed");
    expect(checkout_state(root)).toEqual(before);
    expect(find_row(temp.session.connection, "workspaces", ref.workspace_id)).toMatchObject({
      status: "conflicted",
      conflict_json: { cause: "verification_failed", conflicting_files: ["lib/b.c"], detail: "post-merge verification failed: ctest failed" },
    });
  });

  it("on recover, records a merge whose journal reached its merged phase as completed", async () => {
    const { manager, task_id } = setup();
    const { commit } = await manager.snapshot();
    const ref = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit });
    write_journal(temp.project.layout.root, {
      version: 1,
      workspace_id: ref.workspace_id,
      base_commit: commit,
      task_commit: commit,
      ours_commit: commit,
      merged_commit: commit,
      phase: "merged",
      touched: [],
      created_dirs: [],
    });
    expect((await manager.recover()).merge).toEqual({ kind: "completed", workspace_id: ref.workspace_id, merged_commit: commit });
    expect(find_row(temp.session.connection, "workspaces", ref.workspace_id)).toMatchObject({ status: "merged", merged_ref: commit });
    expect((await manager.recover()).merge).toEqual({ kind: "none" });
  });

  it("keeps a main workspace in the project root, with nothing to merge", async () => {
    const { root, manager, task_id } = setup();
    const ref = await manager.create_workspace({ task_id, strategy: "main" });
    expect(ref.path).toBe(root);
    await expect(manager.merge_workspace(ref, { message: "m", verify: passes })).rejects.toThrow(/cannot be merged/);
  });
});

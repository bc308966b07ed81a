import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { new_id, type TaskId, type WorkspaceId } from "../../src/contracts/ids.js";
import { commit_work } from "../../src/workspaces/commit.js";
import { create_copy } from "../../src/workspaces/copy.js";
import { snapshot_checkout } from "../../src/workspaces/snapshot.js";
import { workspace_strategy_for } from "../../src/workspaces/strategy.js";
import { create_worktree, list_air_worktrees, prune_worktrees, remove_worktree } from "../../src/workspaces/worktree.js";
import { init_air_repo, write_files } from "../fixtures/checkout.js";
import { commit_files, git, marker_script } from "../fixtures/git-repo.js";
import { dead_pid, TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const ids = () => ({ workspace_id: new_id("workspace") as WorkspaceId, task_id: new_id("task") as TaskId });

async function repo_with_worktree() {
  const root = dirs.make();
  init_air_repo(root);
  commit_files(root, "base", { "a.txt": "a\n" });
  write_files(root, { "a.txt": "uncommitted\n", "u.txt": "untracked\n" });
  const { commit: base_commit } = await snapshot_checkout(root);
  const id = ids();
  const made = await create_worktree({ root, ...id, base_commit });
  return { root, base_commit, ...id, ...made };
}

describe("create_worktree", () => {
  it("checks out the snapshot, uncommitted changes included, under .air/local/workspaces on air/<task>/<workspace>", async () => {
    const { root, path: worktree, branch, task_id, workspace_id } = await repo_with_worktree();
    expect(worktree).toBe(path.join(root, ".air", "local", "workspaces", workspace_id));
    expect(branch).toBe(`air/${task_id}/${workspace_id}`);
    expect(fs.readFileSync(path.join(worktree, "a.txt"), "utf8")).toBe("uncommitted\n");
    expect(fs.readFileSync(path.join(worktree, "u.txt"), "utf8")).toBe("untracked\n");
    expect(git(worktree, "symbolic-ref", "--short", "HEAD").trim()).toBe(branch);
    expect(git(root, "symbolic-ref", "--short", "HEAD").trim()).toBe("main");
  });

  it("runs no checkout hook of the repository", async () => {
    const root = dirs.make();
    init_air_repo(root);
    commit_files(root, "base", { "a.txt": "a\n" });
    const marker = path.join(root, "..", `hook-ran-${path.basename(root)}`);
    marker_script(path.join(root, ".git", "hooks", "post-checkout"), marker);
    const { commit } = await snapshot_checkout(root);
    await create_worktree({ root, ...ids(), base_commit: commit });
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("commit_work", () => {
  it("commits every change of the workspace as air, without hooks, and answers undefined when nothing changed", async () => {
    const { path: worktree, base_commit } = await repo_with_worktree();
    const marker = path.join(worktree, "..", "pre-commit-ran");
    marker_script(path.join(worktree, ".githooks", "pre-commit"), marker);
    git(worktree, "config", "core.hooksPath", ".githooks");
    write_files(worktree, { "b.txt": "b\n" });
    fs.rmSync(path.join(worktree, "u.txt"));
    const first = await commit_work({ path: worktree, message: "the task's work" });
    expect(first.commit).toBe(first.head);
    expect(git(worktree, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%P|%s").trim()).toBe(
      `air <air@localhost>|air <air@localhost>|${base_commit}|the task's work`,
    );
    expect(git(worktree, "show", "--name-status", "--format=", "HEAD").trim().split("\n").sort()).toEqual(["A\t.githooks/pre-commit", "A\tb.txt", "D\tu.txt"]);
    expect(fs.existsSync(marker)).toBe(false);
    expect(await commit_work({ path: worktree, message: "again" })).toEqual({ commit: undefined, head: first.head });
  });
});

describe("list_air_worktrees, prune_worktrees and remove_worktree", () => {
  it("lists air's worktrees only, locked in the name of this process", async () => {
    const { root, path: worktree, branch } = await repo_with_worktree();
    git(root, "worktree", "add", "--quiet", "-b", "user-branch", path.join(root, "..", `${path.basename(root)}-user-wt`));
    expect(await list_air_worktrees(root)).toEqual([expect.objectContaining({ path: worktree, branch, locked: `air pid ${process.pid}`, prunable: false })]);
  });

  it("unlocks worktrees whose owning runtime is gone and prunes the ones whose folder is missing", async () => {
    const { root, path: worktree, base_commit } = await repo_with_worktree();
    const gone = await create_worktree({ root, ...ids(), base_commit });
    const pid = await dead_pid();
    for (const file of [worktree, gone.path]) {
      git(root, "worktree", "unlock", file);
      git(root, "worktree", "lock", "--reason", `air pid ${pid}`, file);
    }
    fs.rmSync(gone.path, { recursive: true, force: true });
    expect((await prune_worktrees(root)).sort()).toEqual([worktree, gone.path].sort());
    expect(await list_air_worktrees(root)).toEqual([expect.objectContaining({ path: worktree, locked: undefined })]);
    // The branch and its commits stay: removing a workspace's files is a separate decision.
    expect(git(root, "branch", "--list", gone.branch).trim()).toBe(gone.branch);
  });

  it("keeps a lock whose owner is alive", async () => {
    const { root } = await repo_with_worktree();
    expect(await prune_worktrees(root)).toEqual([]);
    expect((await list_air_worktrees(root))[0]?.locked).toBe(`air pid ${process.pid}`);
  });

  it("removes a locked worktree with its branch, leaving no air branch behind", async () => {
    const { root, path: worktree, branch } = await repo_with_worktree();
    write_files(worktree, { "dirty.txt": "uncommitted work the Scheduler chose to drop\n" });
    await remove_worktree({ root, path: worktree, branch });
    expect(fs.existsSync(worktree)).toBe(false);
    expect(await list_air_worktrees(root)).toEqual([]);
    expect(git(root, "branch", "--list", "air/*").trim()).toBe("");
  });
});

describe("workspace_strategy_for", () => {
  it("answers worktree for a repository's top, isolated_copy for a plain folder or a sub-folder of a repository", async () => {
    const repo = dirs.make();
    init_air_repo(repo);
    fs.mkdirSync(path.join(repo, "sub"));
    const plain = dirs.make();
    expect((await workspace_strategy_for(repo)).strategy).toBe("worktree");
    expect(await workspace_strategy_for(path.join(repo, "sub"))).toMatchObject({
      strategy: "isolated_copy",
      why: expect.stringContaining("inside the git repository"),
    });
    expect(await workspace_strategy_for(plain)).toMatchObject({ strategy: "isolated_copy", why: expect.stringContaining("not a git repository") });
  });
});

describe("create_copy", () => {
  it("copies the project without .air and build outputs, symlinks as symlinks", () => {
    const root = dirs.make();
    write_files(root, { "src/a.c": "a\n", "build/out.o": "o", "cmake-build-debug/x": "x", ".air/local/s.db": "db" });
    fs.symlinkSync("/etc/passwd", path.join(root, "outside"));
    const { path: copy } = create_copy({ root, workspace_id: new_id("workspace") as WorkspaceId });
    expect(fs.readdirSync(copy).sort()).toEqual(["outside", "src"]);
    expect(fs.readlinkSync(path.join(copy, "outside"))).toBe("/etc/passwd");
    expect(fs.readFileSync(path.join(copy, "src/a.c"), "utf8")).toBe("a\n");
  });
});

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TaskId, WorkspaceId } from "../../src/contracts/ids.js";
import { new_id } from "../../src/contracts/ids.js";
import { commit_work } from "../../src/workspaces/commit.js";
import { journal_path } from "../../src/workspaces/journal.js";
import { merge_into_checkout } from "../../src/workspaces/merge.js";
import type { VerifyOutcome } from "../../src/workspaces/merge-result.js";
import { snapshot_checkout } from "../../src/workspaces/snapshot.js";
import { create_worktree } from "../../src/workspaces/worktree.js";
import { checkout_state, init_air_repo, repo_state, write_files } from "../fixtures/checkout.js";
import { commit_files, git } from "../fixtures/git-repo.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const passes = async (): Promise<VerifyOutcome> => ({ passed: true });
const fails = async (): Promise<VerifyOutcome> => ({ passed: false, reason: "ctest: 1 test failed" });

/** A repository with committed files and the user's uncommitted edits on top. */
function user_repo(): string {
  const root = dirs.make();
  init_air_repo(root);
  commit_files(root, "base", { "lib/a.c": "int a;\nint a2;\nint a3;\n", "lib/b.c": "int b;\n", "doc.md": "one\ntwo\nthree\n", ".gitignore": "*.log\n" });
  write_files(root, { "doc.md": "one\ntwo (user)\nthree\n", "notes.txt": "the user's untracked notes\n", "run.log": "ignored log\n" });
  return root;
}

/** A worktree of the checkout as it is now; `work` edits it; returns the base and the task's commit. */
async function task_work(root: string, work: (worktree: string) => void): Promise<{ base_commit: string; task_commit: string }> {
  const { commit: base_commit } = await snapshot_checkout(root);
  const { path: worktree } = await create_worktree({
    root,
    workspace_id: new_id("workspace") as WorkspaceId,
    task_id: new_id("task") as TaskId,
    base_commit,
  });
  work(worktree);
  const { head } = await commit_work({ path: worktree, message: "task work" });
  return { base_commit, task_commit: head };
}

describe("merge_into_checkout", () => {
  it("applies the task's work to the working tree, keeping the user's uncommitted changes, committing nothing, index untouched", async () => {
    const root = user_repo();
    const { base_commit, task_commit } = await task_work(root, (worktree) => {
      write_files(worktree, { "lib/a.c": "int a;\nint a2 = 2;\nint a3;\n", "lib/new.c": "int n;\n" });
      fs.rmSync(path.join(worktree, "lib/b.c"));
    });
    write_files(root, { "doc.md": "one\ntwo (user)\nthree (user, later)\n" });
    const before = repo_state(root);
    const result = await merge_into_checkout({ root, task_commit, base_commit, verify: passes });
    expect(result.kind).toBe("merged");
    expect(repo_state(root)).toEqual(before);
    expect(fs.readFileSync(path.join(root, "lib/a.c"), "utf8")).toBe("int a;\nint a2 = 2;\nint a3;\n");
    expect(fs.readFileSync(path.join(root, "lib/new.c"), "utf8")).toBe("int n;\n");
    expect(fs.existsSync(path.join(root, "lib/b.c"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "doc.md"), "utf8")).toBe("one\ntwo (user)\nthree (user, later)\n");
    expect(fs.readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("the user's untracked notes\n");
    expect(git(root, "status", "--porcelain").split("\n").sort().filter(Boolean)).toEqual([
      " D lib/b.c",
      " M doc.md",
      " M lib/a.c",
      "?? .air/",
      "?? lib/new.c",
      "?? notes.txt",
    ]);
    expect(fs.existsSync(journal_path(root))).toBe(false);
  });

  it("merges sibling tasks of one wave one after the other, each three-way on the result of the last", async () => {
    const root = user_repo();
    const { commit: base_commit } = await snapshot_checkout(root);
    const tasks = [];
    for (const [file, line] of [
      ["lib/a.c", "int a;\nint a2 = 20;\nint a3;\n"],
      ["lib/b.c", "int b = 1;\n"],
    ] as const) {
      const { path: worktree } = await create_worktree({
        root,
        workspace_id: new_id("workspace") as WorkspaceId,
        task_id: new_id("task") as TaskId,
        base_commit,
      });
      write_files(worktree, { [file]: line });
      tasks.push((await commit_work({ path: worktree, message: file })).head);
    }
    for (const task_commit of tasks) expect((await merge_into_checkout({ root, task_commit, base_commit, verify: passes })).kind).toBe("merged");
    expect(fs.readFileSync(path.join(root, "lib/a.c"), "utf8")).toBe("int a;\nint a2 = 20;\nint a3;\n");
    expect(fs.readFileSync(path.join(root, "lib/b.c"), "utf8")).toBe("int b = 1;\n");
  });

  it("reports a conflict with its files and hunks and leaves the checkout untouched", async () => {
    const root = user_repo();
    const { base_commit, task_commit } = await task_work(root, (worktree) => write_files(worktree, { "doc.md": "one\ntwo (task)\nthree\n" }));
    write_files(root, { "doc.md": "one\ntwo (user, meanwhile)\nthree\n" });
    const before = { files: checkout_state(root), repo: repo_state(root) };
    const result = await merge_into_checkout({ root, task_commit, base_commit, verify: passes });
    if (result.kind !== "conflicted") throw new Error(`expected a conflict, got ${result.kind}`);
    expect(result.files).toEqual(["doc.md"]);
    expect(result.conflicts[0]?.messages.join("\n")).toContain("CONFLICT (content)");
    expect(result.conflicts[0]?.hunks[0]).toMatch(/^<<<<<<< .*\ntwo \(user, meanwhile\)\n=======\ntwo \(task\)\n>>>>>>> /);
    expect({ files: checkout_state(root), repo: repo_state(root) }).toEqual(before);
  });

  it("rolls a failed verification back byte for byte: added files removed, ignored files and modes restored", async () => {
    const root = user_repo();
    fs.chmodSync(path.join(root, "lib/a.c"), 0o600);
    fs.symlinkSync("lib/a.c", path.join(root, "link"));
    const { base_commit, task_commit } = await task_work(root, (worktree) => {
      fs.rmSync(path.join(worktree, "link"));
      write_files(worktree, { "lib/a.c": "changed\n", "run.log": "the task's log\n", "deep/new/file.c": "x\n", link: "now a file\n" });
      fs.chmodSync(path.join(worktree, "lib/a.c"), 0o755);
      fs.rmSync(path.join(worktree, "lib/b.c"));
      // A committed file where the user has an ignored one: the task's gitignore does not list it.
      fs.writeFileSync(path.join(worktree, ".gitignore"), "");
    });
    const before = { files: checkout_state(root), repo: repo_state(root) };
    const verify = async (): Promise<VerifyOutcome> => {
      const merged = checkout_state(root);
      expect(merged["run.log"]).not.toEqual(before.files["run.log"]);
      expect(merged["lib/a.c"]).toMatchObject({ kind: "file", mode: 0o711 });
      expect(merged.link).toMatchObject({ kind: "file" });
      expect(merged["deep/new/file.c"]).toBeDefined();
      expect(merged["lib/b.c"]).toBeUndefined();
      return fails();
    };
    const result = await merge_into_checkout({ root, task_commit, base_commit, verify });
    expect(result).toMatchObject({ kind: "verification_failed", outcome: { passed: false, reason: "ctest: 1 test failed" } });
    expect({ files: checkout_state(root), repo: repo_state(root) }).toEqual(before);
    expect(fs.existsSync(journal_path(root))).toBe(false);
  });

  it("restores the checkout when verification throws, and rethrows", async () => {
    const root = user_repo();
    const { base_commit, task_commit } = await task_work(root, (worktree) => write_files(worktree, { "lib/new.c": "n\n", "lib/a.c": "x\n" }));
    const before = checkout_state(root);
    const verify = async (): Promise<VerifyOutcome> => {
      expect(fs.existsSync(path.join(root, "lib/new.c"))).toBe(true);
      throw new Error("the verification runner crashed");
    };
    await expect(merge_into_checkout({ root, task_commit, base_commit, verify })).rejects.toThrow("the verification runner crashed");
    expect(checkout_state(root)).toEqual(before);
  });

  it("refuses, before touching anything, to write a file where an ignored folder holds files", async () => {
    const root = user_repo();
    const { base_commit, task_commit } = await task_work(root, (worktree) => write_files(worktree, { cache: "a file now\n" }));
    write_files(root, { ".gitignore": "*.log\ncache/\n", "cache/blob.bin": "ignored" });
    git(root, "commit", "-qam", "ignore cache");
    const before = checkout_state(root);
    await expect(merge_into_checkout({ root, task_commit, base_commit, verify: passes })).rejects.toThrow(/cannot write cache/);
    expect(checkout_state(root)).toEqual(before);
  });

  it("refuses a task commit that writes into .git, before touching anything", async () => {
    const root = user_repo();
    const { commit: base_commit } = await snapshot_checkout(root);
    const before = checkout_state(root);
    const task_commit = commit_with_git_dir(root, base_commit);
    await expect(merge_into_checkout({ root, task_commit, base_commit, verify: passes })).rejects.toThrow(/outside what a merge may change/);
    expect(checkout_state(root)).toEqual(before);
  });
});

function git_input(root: string, input: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, input, encoding: "utf8" }).trim();
}

/** A commit on `base` whose tree adds `.git/config`: `git add` refuses such a path, `mktree` does not. */
function commit_with_git_dir(root: string, base: string): string {
  const blob = git_input(root, "[core]\n\tbare = true\n", "hash-object", "-w", "--stdin");
  const inner = git_input(root, `100644 blob ${blob}\tconfig\n`, "mktree");
  const listing = git(root, "ls-tree", `${base}^{tree}`);
  const outer = git_input(root, `${listing}040000 tree ${inner}\t.git\n`, "mktree");
  return git(root, "commit-tree", outer, "-p", base, "-m", "writes into .git").trim();
}

import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshot_checkout } from "../../src/workspaces/snapshot.js";
import { checkout_state, init_air_repo, repo_state, write_files } from "../fixtures/checkout.js";
import { commit_files, git } from "../fixtures/git-repo.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

function files_of(root: string, commit: string): string[] {
  return git(root, "ls-tree", "-r", "--name-only", commit).trim().split("\n");
}

describe("snapshot_checkout", () => {
  it("holds staged, unstaged and untracked changes and deletions, not ignored files, parented on HEAD", async () => {
    const root = dirs.make();
    init_air_repo(root);
    const head = commit_files(root, "base", { "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "x\n", ".gitignore": "*.log\n" });
    write_files(root, { "a.txt": "a staged\n", "b.txt": "b unstaged\n", "new/untracked.txt": "u\n", "debug.log": "ignored\n" });
    git(root, "add", "a.txt");
    fs.rmSync(path.join(root, "gone.txt"));
    const { commit } = await snapshot_checkout(root);
    expect(git(root, "rev-parse", `${commit}^`).trim()).toBe(head);
    expect(files_of(root, commit)).toEqual([".air/.gitignore", ".gitignore", "a.txt", "b.txt", "new/untracked.txt"]);
    expect(git(root, "show", `${commit}:a.txt`)).toBe("a staged\n");
    expect(git(root, "show", `${commit}:b.txt`)).toBe("b unstaged\n");
  });

  it("changes nothing of the user's: status, index bytes, HEAD, branch, stash, files", async () => {
    const root = dirs.make();
    init_air_repo(root);
    commit_files(root, "base", { "a.txt": "a\n", "b.txt": "b\n" });
    write_files(root, { "a.txt": "changed\n", "c.txt": "new\n" });
    git(root, "add", "a.txt");
    write_files(root, { "a.txt": "changed again\n" });
    const before = { repo: repo_state(root), files: checkout_state(root) };
    const status = git(root, "status", "--porcelain");
    const index = fs.readFileSync(path.join(root, ".git", "index"));
    await snapshot_checkout(root);
    expect(fs.readFileSync(path.join(root, ".git", "index")).equals(index)).toBe(true);
    expect({ repo: repo_state(root), files: checkout_state(root) }).toEqual(before);
    expect(git(root, "status", "--porcelain")).toBe(status);
    expect(fs.readdirSync(path.join(root, ".air", "local", "tmp"))).toEqual([]);
  });

  it("is a root commit when HEAD is unborn", async () => {
    const root = dirs.make();
    init_air_repo(root);
    write_files(root, { "first.txt": "1\n" });
    const { commit } = await snapshot_checkout(root);
    expect(git(root, "rev-list", "--parents", "-n", "1", commit).trim()).toBe(commit);
    expect(files_of(root, commit)).toEqual([".air/.gitignore", "first.txt"]);
  });

  it("leaves air's runtime state out even without air's .gitignore", async () => {
    const root = dirs.make();
    init_air_repo(root);
    fs.rmSync(path.join(root, ".air", ".gitignore"));
    write_files(root, { "src.txt": "s\n", ".air/local/sessions/x.db": "db", ".air/shared/project.json": "{}" });
    const { commit } = await snapshot_checkout(root);
    expect(files_of(root, commit)).toEqual([".air/shared/project.json", "src.txt"]);
  });
});

import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { project_layout } from "../project/layout.js";
import { git_ok, git_run, git_text, repo_info } from "./git.js";

export type Snapshot = { readonly commit: string; readonly tree: string };

/** True when `.air/.gitignore` (written by `air init`) keeps `.air/local` out of every `git add -A`. */
function local_is_ignored(root: string): boolean {
  try {
    return fs
      .readFileSync(path.join(project_layout(root).air, ".gitignore"), "utf8")
      .split("\n")
      .includes("/local/");
  } catch {
    return false;
  }
}

/**
 * The tree of what the working tree of `root` holds now: tracked files as they are on disk (staged or
 * not), untracked files that are not ignored, deletions. Built in a temporary index that starts as a copy of
 * the user's (its stat cache makes `git add -A` hash only what changed); the user's index is only read.
 */
async function working_tree(root: string): Promise<string> {
  const layout = project_layout(root);
  fs.mkdirSync(layout.tmp, { recursive: true });
  const index_file = path.join(layout.tmp, `snapshot-${process.pid}-${randomUUID()}.index`);
  try {
    const { git_dir } = await repo_info(root);
    try {
      fs.copyFileSync(path.join(git_dir, "index"), index_file);
    } catch (error) {
      // No index yet (a fresh repository): the temporary one starts empty.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await git_ok(root, ["add", "--all", "--", "."], { index_file });
    // A project without air's .gitignore must still never snapshot air's own runtime state (sessions, workspaces).
    if (!local_is_ignored(root)) await git_ok(root, ["rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", ".air/local"], { index_file });
    return await git_text(root, ["write-tree"], { index_file });
  } finally {
    fs.rmSync(index_file, { force: true });
    fs.rmSync(`${index_file}.lock`, { force: true });
  }
}

/**
 * A commit of the working tree of `root` as it is now, parented on `parent` (HEAD by default; no parent
 * when HEAD is unborn). Nothing of the user's changes: branch, index, HEAD, stash and files stay as they are.
 */
export async function snapshot_commit(root: string, parent = "HEAD"): Promise<Snapshot> {
  const tree = await working_tree(root);
  const message = "air: snapshot of the checkout";
  const made = await git_run(root, ["commit-tree", tree, "-p", parent, "-m", message]);
  if (made.code === 0) return { tree, commit: made.stdout.toString("utf8").trim() };
  const head = await git_run(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  // Only an unborn HEAD goes without a parent; any other failure is git's to report.
  if (parent !== "HEAD" || head.code === 0) await git_ok(root, ["commit-tree", tree, "-p", parent, "-m", message]);
  return { tree, commit: await git_text(root, ["commit-tree", tree, "-m", message]) };
}

/** The snapshot of seeds 000 §7.5: what a wave's workspaces start from, uncommitted changes included. */
export async function snapshot_checkout(root: string): Promise<{ commit: string }> {
  const { commit } = await snapshot_commit(root);
  return { commit };
}

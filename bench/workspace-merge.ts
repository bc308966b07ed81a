import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DIST } from "./dist.js";
import { median, ratios } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * One task's workspace round trip through the built WorkspaceManager mechanisms — snapshot of the checkout,
 * `create_worktree`, the task's edit, `commit_work`, `merge_into_checkout` (verification a no-op) — beside
 * what a user would type for the same change: `git worktree add`, the edit, `git commit -a`, `git merge`.
 * Each round runs both on fresh copies of one project (FILES files, an uncommitted edit of the user's),
 * interleaved; both end with the same files in the checkout, which is checked.
 */
export type WorkspaceMergeBench = { readonly air_ms: number; readonly raw_ms: number; readonly ratio: number; readonly rounds: number; readonly files: number };

type Snapshot = typeof import("../src/workspaces/snapshot.js");
type Worktree = typeof import("../src/workspaces/worktree.js");
type Commit = typeof import("../src/workspaces/commit.js");
type Merge = typeof import("../src/workspaces/merge.js");

async function load<T>(module: string): Promise<T> {
  return (await import(new URL(module, DIST).href)) as T;
}

const ws = {
  snapshot: await load<Snapshot>("workspaces/snapshot.js"),
  worktree: await load<Worktree>("workspaces/worktree.js"),
  commit: await load<Commit>("workspaces/commit.js"),
  merge: await load<Merge>("workspaces/merge.js"),
};
const ids = await load<typeof import("../src/contracts/ids.js")>("contracts/ids.js");

const FILES = 1_000;
/** The task's change: three files in three folders. */
const EDITS: Record<string, string> = {
  "src/d1/f1.c": "int f1 = 1;\n",
  "src/d2/f2.c": "int f2 = 2;\n",
  "src/d3/f3.c": "int f3 = 3;\n",
};

function git(cwd: string, ...args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function write(root: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), content);
  }
}

function template(): string {
  const root = path.join(temp_dir("workspace-merge"), "project");
  fs.mkdirSync(root, { recursive: true });
  git(root, "init", "--quiet", "--initial-branch=main");
  git(root, "config", "user.name", "Bench");
  git(root, "config", "user.email", "bench@example.com");
  write(root, Object.fromEntries(Array.from({ length: FILES }, (_, n) => [`src/d${n % 20}/f${n}.c`, `int f${n};\n${"/* filler */\n".repeat(40)}`])));
  write(root, { ".air/.gitignore": "/local/\n", ".gitignore": ".air/\n" });
  git(root, "add", "-A");
  git(root, "commit", "--quiet", "-m", "base");
  // The user's uncommitted edit, in a file the task does not touch.
  write(root, { "src/d9/f9.c": "int f9 = 9; /* the user's */\n" });
  return root;
}

function copy(source: string): string {
  const target = path.join(temp_dir("workspace-merge-copy"), "project");
  fs.cpSync(source, target, { recursive: true, preserveTimestamps: true });
  // A copied index's stat cache does not match the copies' inodes: refresh it, as a user's checkout would be.
  git(target, "update-index", "-q", "--refresh");
  return target;
}

async function air_once(root: string): Promise<number> {
  const started = performance.now();
  const { commit: base_commit } = await ws.snapshot.snapshot_checkout(root);
  const workspace_id = ids.new_id("workspace");
  const task_id = ids.new_id("task");
  const { path: worktree } = await ws.worktree.create_worktree({ root, workspace_id, task_id, base_commit });
  write(worktree, EDITS);
  const { head } = await ws.commit.commit_work({ path: worktree, message: "the task" });
  const result = await ws.merge.merge_into_checkout({ root, task_commit: head, base_commit, verify: async () => ({ passed: true }) });
  const ms = performance.now() - started;
  if (result.kind !== "merged") throw new VerificationError(`the air merge ended ${result.kind}`);
  return ms;
}

function raw_once(root: string): number {
  const started = performance.now();
  const worktree = path.join(root, ".air", "local", "raw-worktree");
  git(root, "worktree", "add", "--quiet", "-b", "raw-task", worktree, "HEAD");
  write(worktree, EDITS);
  git(worktree, "commit", "--quiet", "-a", "-m", "the task");
  git(root, "merge", "--quiet", "--no-ff", "--no-edit", "raw-task");
  return performance.now() - started;
}

function check_same(air_root: string, raw_root: string): void {
  for (const file of [...Object.keys(EDITS), "src/d9/f9.c"]) {
    const ours = fs.readFileSync(path.join(air_root, file), "utf8");
    if (ours !== fs.readFileSync(path.join(raw_root, file), "utf8")) throw new VerificationError(`${file} differs between the air merge and git merge`);
  }
}

export async function bench_workspace_merge(rounds: number): Promise<WorkspaceMergeBench> {
  const source = template();
  const air: number[] = [];
  const raw: number[] = [];
  // One warm-up round of each, not counted: the page cache and git's first start.
  for (let round = -1; round < rounds; round += 1) {
    const air_root = copy(source);
    const raw_root = copy(source);
    const air_ms = await air_once(air_root);
    const raw_ms = raw_once(raw_root);
    check_same(air_root, raw_root);
    if (round >= 0) {
      air.push(air_ms);
      raw.push(raw_ms);
    }
    remove_dir(path.dirname(air_root));
    remove_dir(path.dirname(raw_root));
  }
  return { air_ms: median(air), raw_ms: median(raw), ratio: median(ratios(air, raw)), rounds, files: FILES };
}

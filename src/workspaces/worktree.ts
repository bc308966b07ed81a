import fs from "node:fs";
import path from "node:path";
import type { TaskId, WorkspaceId } from "../contracts/ids.js";
import { project_layout } from "../project/layout.js";
import { git_ok, git_run, nul_fields } from "./git.js";
import { process_alive } from "../project/process-alive.js";

/**
 * air's branches live under `air/<task id>/<workspace id>`: a task id and a workspace id are ULIDs with their
 * prefixes, so no user branch has that name by chance, and a repair attempt (a new workspace of the same task)
 * gets a branch of its own. Only a user branch named exactly `air` or `air/<task id>` could block one.
 */
export function workspace_branch(task_id: TaskId, workspace_id: WorkspaceId): string {
  return `air/${task_id}/${workspace_id}`;
}

export function workspace_path(root: string, workspace_id: WorkspaceId): string {
  return path.join(project_layout(root).workspaces, workspace_id);
}

/** The reason air's worktrees are locked with: the runtime owning them, so a later one knows a lock is stale. */
function lock_reason(pid: number = process.pid): string {
  return `air pid ${pid}`;
}

export type CreateWorktree = { root: string; workspace_id: WorkspaceId; task_id: TaskId; base_commit: string };

/**
 * A git worktree of the project at `base_commit` (a snapshot), on a new branch of air's, under
 * `.air/local/workspaces/<workspace id>`. Its build directory is its own `build/` folder: the worktree is a
 * separate folder, so `cmake -B build` in it never meets a sibling's or the main checkout's build tree.
 * Checkout hooks do not run (core.hooksPath=/dev/null); the worktree is locked in the name of this process.
 */
export async function create_worktree(input: CreateWorktree): Promise<{ path: string; branch: string }> {
  const target = workspace_path(input.root, input.workspace_id);
  const branch = workspace_branch(input.task_id, input.workspace_id);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  await git_ok(input.root, ["worktree", "add", "--quiet", "--lock", "--reason", lock_reason(), "-b", branch, target, input.base_commit]);
  return { path: target, branch };
}

export type AirWorktree = {
  readonly path: string;
  readonly head: string | undefined;
  /** The branch's short name (`air/…`); undefined for a detached worktree. */
  readonly branch: string | undefined;
  /** The lock's reason ("" for a lock without one); undefined when not locked. */
  readonly locked: string | undefined;
  readonly prunable: boolean;
};

function real(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** One record of `git worktree list --porcelain -z`: its "key value" fields. */
function parse_record(fields: readonly string[]): AirWorktree {
  const value = (key: string) => {
    const field = fields.find((line) => line === key || line.startsWith(`${key} `));
    return field === undefined ? undefined : field.slice(key.length + 1);
  };
  const branch = value("branch");
  return {
    path: value("worktree") ?? "",
    head: value("HEAD"),
    branch: branch?.replace(/^refs\/heads\//, ""),
    locked: value("locked"),
    prunable: value("prunable") !== undefined,
  };
}

/** The worktrees git knows of under `.air/local/workspaces` (a missing folder included, as prunable). */
export async function list_air_worktrees(root: string): Promise<AirWorktree[]> {
  const fields = nul_fields(await git_ok(root, ["worktree", "list", "--porcelain", "-z"]));
  const records: string[][] = [[]];
  for (const field of fields) {
    if (field === "") records.push([]);
    else records.at(-1)?.push(field);
  }
  const base = project_layout(root).workspaces;
  const inside = (file: string) => [base, real(base)].some((dir) => file.startsWith(`${dir}${path.sep}`));
  return records
    .filter((record) => record.length > 0)
    .map(parse_record)
    .filter((worktree) => inside(worktree.path));
}

/** A lock nobody holds: one of air's whose runtime is gone, or git's "initializing" left by an add cut off. */
function stale_lock(reason: string): boolean {
  if (reason === "initializing") return true;
  const owner = /^air pid (\d+)$/.exec(reason);
  return owner !== null && !process_alive(Number(owner[1]));
}

/**
 * Unlocks air's worktrees whose owner is gone, then `git worktree prune` (entries whose folder is missing).
 * Returns the paths it unlocked. Worktrees outside `.air/local/workspaces` are never touched.
 */
export async function prune_worktrees(root: string): Promise<string[]> {
  const unlocked: string[] = [];
  for (const worktree of await list_air_worktrees(root)) {
    if (worktree.locked === undefined || !stale_lock(worktree.locked)) continue;
    await git_ok(root, ["worktree", "unlock", worktree.path]);
    unlocked.push(worktree.path);
  }
  await git_ok(root, ["worktree", "prune"]);
  return unlocked;
}

/**
 * Removes a worktree (even a locked or modified one: its work is committed on its branch or abandoned by
 * the Scheduler's decision) and, when named, its branch. A folder already gone is pruned instead.
 */
export async function remove_worktree(input: { root: string; path: string; branch?: string }): Promise<void> {
  if (fs.existsSync(input.path)) await git_ok(input.root, ["worktree", "remove", "--force", "--force", input.path]);
  else {
    // prune keeps a locked entry even without its folder; one that is not locked answers non-zero, harmlessly.
    await git_run(input.root, ["worktree", "unlock", input.path]);
    await git_ok(input.root, ["worktree", "prune"]);
  }
  if (input.branch === undefined) return;
  const deleted = await git_run(input.root, ["branch", "-D", "--quiet", input.branch]);
  // A branch already deleted is what was asked for.
  if (deleted.code !== 0 && !/not found/.test(deleted.stderr)) await git_ok(input.root, ["branch", "-D", "--quiet", input.branch]);
}

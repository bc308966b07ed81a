import fs from "node:fs";
import path from "node:path";
import type { WorkspaceId } from "../contracts/ids.js";
import { workspace_path } from "./worktree.js";

/**
 * Top-level folders a copy leaves out: air's own state (which also holds the workspaces themselves) and
 * the usual build outputs, which the copy rebuilds in its own `build/`.
 */
const NOT_COPIED = [/^\.air$/, /^build$/, /^cmake-build-/, /^\.git$/];

/**
 * An isolated copy of a project that is not a git repository, for a worker of a parallel wave: every file
 * except air's state and build outputs, symlinks copied as symlinks (never followed out of the project),
 * modes and timestamps kept. Its build directory is its own `build/`.
 */
export function create_copy(input: { root: string; workspace_id: WorkspaceId }): { path: string } {
  const target = workspace_path(input.root, input.workspace_id);
  fs.mkdirSync(target, { recursive: true });
  // Entry by entry: the copy lives inside the project (under .air), which a copy of the whole root refuses.
  for (const entry of fs.readdirSync(input.root)) {
    if (NOT_COPIED.some((pattern) => pattern.test(entry))) continue;
    fs.cpSync(path.join(input.root, entry), path.join(target, entry), {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      errorOnExist: true,
      force: false,
    });
  }
  return { path: target };
}

/** Removes a copy (the Scheduler's decision: merged, abandoned past retention, or cancelled). */
export function remove_copy(copy_path: string): void {
  fs.rmSync(copy_path, { recursive: true, force: true });
}

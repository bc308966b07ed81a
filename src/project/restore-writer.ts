import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { blob_oid } from "../workspaces/git.js";
import { lstat_entry } from "./snapshot-paths.js";
import type { FileState } from "./snapshot-store.js";

/** One path and the state it is to have. */
export type Placement = { readonly path: string; readonly state: FileState };

/** A new entry written beside its target, waiting to be renamed over it. */
type Staged = { readonly file: string; readonly temp: string | undefined };

function temp_beside(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.air-restore.${process.pid}.${crypto.randomUUID()}`);
}

/** Permission bits for a restored file: an existing file keeps its own, only the executable bit follows git's mode. */
function mode_for(file: string, executable: boolean): number {
  const existing = lstat_entry(file);
  if (existing?.isFile() !== true) return executable ? 0o755 : 0o644;
  const kept = existing.mode & 0o7777;
  return executable ? kept | ((kept & 0o444) >> 2) | 0o100 : kept & ~0o111;
}

function stage_one(file: string, state: FileState, blobs: ReadonlyMap<string, Buffer>): Staged {
  if (state.kind === "absent" || state.kind === "repository") return { file, temp: undefined };
  const bytes = blobs.get(state.oid);
  if (bytes === undefined || blob_oid(bytes, "sha1") !== state.oid) {
    throw air_failure({
      kind: "system_error",
      message: `the snapshot's copy of ${file} does not match its id ${state.oid}`,
      retryability: "not_retryable",
      user_action: "Check the backups repository with `git fsck`; nothing was restored.",
    });
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = temp_beside(file);
  if (state.kind === "symlink") {
    fs.symlinkSync(bytes.toString("utf8"), temp);
    return { file, temp };
  }
  const mode = mode_for(file, state.mode === 0o755);
  const fd = fs.openSync(temp, "wx", mode);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { file, temp };
}

/** Removes the empty folders above `file` up to (never including) the root, as git does after a deletion. */
function prune_empty_parents(root: string, file: string): void {
  for (let dir = path.dirname(file); dir !== root && dir.startsWith(root + path.sep); dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      return;
    }
  }
}

function put_in_place(root: string, staged: Staged): void {
  if (staged.temp !== undefined) {
    fs.renameSync(staged.temp, staged.file);
    return;
  }
  const stat = lstat_entry(staged.file);
  if (stat === undefined || stat.isDirectory()) return;
  fs.unlinkSync(staged.file);
  prune_empty_parents(root, staged.file);
}

/**
 * Gives every path its state all at once, as far as a file system allows: each new entry is written and
 * synced beside its target first (nothing visible changes if that fails), then renamed over it; paths whose
 * state is absent are deleted. Each path it changed is appended to `done`, for a caller that must undo a
 * rename that failed midway.
 */
export function place_states(root: string, placements: readonly Placement[], blobs: ReadonlyMap<string, Buffer>, done: string[] = []): void {
  const staged: Staged[] = [];
  try {
    for (const placement of placements) staged.push(stage_one(path.join(root, placement.path), placement.state, blobs));
  } catch (error) {
    for (const { temp } of staged) if (temp !== undefined) fs.rmSync(temp, { force: true });
    throw error;
  }
  for (const [index, entry] of staged.entries()) {
    try {
      put_in_place(root, entry);
    } catch (error) {
      for (const { temp } of staged.slice(index)) if (temp !== undefined) fs.rmSync(temp, { force: true });
      throw error;
    }
    // biome-ignore lint/style/noNonNullAssertion: staged and placements have the same length
    done.push(placements[index]!.path);
  }
}

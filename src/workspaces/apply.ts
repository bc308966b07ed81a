import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { TreeChange } from "./blobs.js";
import { read_blobs } from "./blobs.js";
import type { MergeJournal, Touched } from "./journal.js";
import { ABSENT, applied, is_symlink_mode } from "./touch-plan.js";

function kind_at(file: string): "absent" | "dir" | "other" {
  try {
    return fs.lstatSync(file).isDirectory() ? "dir" : "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
}

/** Removes the file or symlink at `file` (a folder stays: it is emptied and removed as a folder). */
function remove_entry(file: string): void {
  if (kind_at(file) === "other") fs.unlinkSync(file);
}

/** Removes the empty folders above `relative`, up to (never including) the root, as git does after a deletion. */
function prune_empty_parents(root: string, relative: string): void {
  for (let dir = path.posix.dirname(relative); dir !== "."; dir = path.posix.dirname(dir)) {
    try {
      fs.rmdirSync(path.join(root, dir));
    } catch {
      return;
    }
  }
}

/**
 * Where a file's new bytes wait before they are renamed over it: inside `.git`, so a kill between the two
 * leaves at most a stray file there, never a truncated file in the checkout. None when `.git` is not a folder.
 */
function staging_dir(root: string): string | undefined {
  const git = path.join(root, ".git");
  if (kind_at(git) !== "dir") return undefined;
  const dir = path.join(git, "air", "staging");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** `bytes` at `file` in one rename (the bytes and mode written beside it first), or in place without staging. */
function put_bytes(file: string, bytes: Uint8Array, mode: number | undefined, staging: string | undefined): void {
  const target = staging === undefined ? file : path.join(staging, `${process.pid}-${crypto.randomUUID()}`);
  fs.writeFileSync(target, bytes, mode === undefined ? {} : { mode });
  if (target === file) return;
  try {
    fs.renameSync(target, file);
  } catch (error) {
    fs.rmSync(target, { force: true });
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    fs.writeFileSync(file, bytes, mode === undefined ? {} : { mode });
  }
}

/**
 * Writes a regular file. One that exists keeps its permission bits (only the executable bit follows git's
 * mode), as a user's checkout after `git merge` does; a new one gets git's 0644/0755 under the umask.
 */
function write_regular(file: string, bytes: Uint8Array, executable: boolean, staging: string | undefined): void {
  let existing: fs.Stats | undefined;
  try {
    existing = fs.lstatSync(file);
  } catch {
    existing = undefined;
  }
  if (existing?.isFile() !== true) {
    if (existing?.isDirectory() === true) fs.rmdirSync(file);
    else if (existing !== undefined) fs.unlinkSync(file);
    put_bytes(file, bytes, executable ? 0o755 : 0o644, staging);
    return;
  }
  const kept = existing.mode & 0o7777;
  const was_executable = (kept & 0o100) !== 0;
  const mode = was_executable === executable ? kept : executable ? kept | 0o111 : kept & ~0o111;
  put_bytes(file, bytes, mode, staging);
  // The umask trimmed the new inode's mode; the existing file's exact bits are the ones to keep.
  fs.chmodSync(file, mode);
}

function write_symlink(file: string, target: string): void {
  const kind = kind_at(file);
  if (kind === "dir") fs.rmdirSync(file);
  else if (kind === "other") fs.unlinkSync(file);
  fs.symlinkSync(target, file);
}

/**
 * Makes the working tree hold the merged entries: obstacles and deleted paths first (then the folders they
 * leave empty), then every added or modified path with its mode. Only the changed paths are touched.
 */
export async function apply_changes(root: string, changes: readonly TreeChange[], obstacles: readonly string[]): Promise<void> {
  const effective = changes.filter(applied);
  const blobs = await read_blobs(
    root,
    effective.filter((change) => change.new_mode !== ABSENT).map((change) => change.new_oid),
  );
  const staging = staging_dir(root);
  for (const relative of obstacles) remove_entry(path.join(root, relative));
  const deletions = effective.filter((change) => change.new_mode === ABSENT);
  for (const change of deletions) remove_entry(path.join(root, change.path));
  for (const change of deletions) prune_empty_parents(root, change.path);
  for (const change of effective) {
    if (change.new_mode === ABSENT) continue;
    const file = path.join(root, change.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const bytes = blobs.get(change.new_oid) ?? Buffer.alloc(0);
    if (is_symlink_mode(change.new_mode)) write_symlink(file, bytes.toString("utf8"));
    else write_regular(file, bytes, change.new_mode === "100755", staging);
  }
}

function restore_one(root: string, touched: Touched, blobs: ReadonlyMap<string, Buffer>): void {
  const { before } = touched;
  if (before.kind === "absent") return;
  const file = path.join(root, touched.path);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bytes = blobs.get(before.oid) ?? Buffer.alloc(0);
  if (before.kind === "symlink") {
    write_symlink(file, bytes.toString("utf8"));
    return;
  }
  const kind = kind_at(file);
  if (kind === "dir") fs.rmdirSync(file);
  else if (kind === "other") fs.unlinkSync(file);
  fs.writeFileSync(file, bytes, { mode: before.mode });
  // The umask trimmed the mode of the new file; the exact bits are the ones recorded.
  fs.chmodSync(file, before.mode);
}

/**
 * Puts every path the journal names back as it was before the merge, byte for byte and mode for mode, and
 * removes the folders the merge created. Idempotent: a restore cut off midway is finished by running it again.
 */
export async function restore_checkout(root: string, journal: MergeJournal): Promise<void> {
  const blobs = await read_blobs(
    root,
    journal.touched.flatMap((touched) => (touched.before.kind === "absent" ? [] : [touched.before.oid])),
  );
  for (const touched of journal.touched) remove_entry(path.join(root, touched.path));
  for (const dir of [...journal.created_dirs].reverse()) {
    try {
      fs.rmdirSync(path.join(root, dir));
    } catch (error) {
      // Already gone (an earlier restore), or holding something the merge did not write: left as it is.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "ENOTDIR") throw error;
    }
  }
  for (const touched of journal.touched) restore_one(root, touched, blobs);
}

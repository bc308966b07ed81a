import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { store_bytes, store_files, type TreeChange } from "./blobs.js";
import { blob_oid, type RepoInfo } from "./git.js";
import type { Before, Touched } from "./journal.js";

export const ABSENT = "000000";
const GITLINK = "160000";
const SYMLINK = "120000";

/** A change of the working tree the merge makes (submodules are git's business: their entries are left as they are). */
export function applied(change: TreeChange): boolean {
  return change.old_mode !== GITLINK && change.new_mode !== GITLINK;
}

export function is_symlink_mode(mode: string): boolean {
  return mode === SYMLINK;
}

/** Every merged path stays inside the checkout and out of git's and air's own folders, whatever a worker committed. */
function check_path(relative: string): void {
  const parts = relative.split("/");
  const bad =
    relative.startsWith("/") || parts.some((part) => part === "" || part === "." || part === ".." || part.toLowerCase() === ".git") || parts[0] === ".air";
  if (!bad) return;
  throw air_failure({
    kind: "merge_error",
    message: `the task's work writes ${JSON.stringify(relative)}, outside what a merge may change`,
    retryability: "not_retryable",
    user_action: "Look at the task's commit (`git show`); the checkout was not changed.",
  });
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Files below `dir` (relative to the root), recursively; folders themselves are not listed. */
function files_below(root: string, dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? files_below(root, `${dir}/${entry.name}`) : [`${dir}/${entry.name}`]));
}

function obstacle(relative: string, why: string): never {
  throw air_failure({
    kind: "merge_error",
    message: `the merge cannot write ${relative}: ${why}`,
    retryability: "retryable_after_change",
    user_action: `Move ${relative} out of the way (it is not part of the project's tracked or untracked files), then merge again.`,
  });
}

type Pending = { path: string; stat: fs.Stats; known_oid: string };

export type TouchPlan = { readonly touched: Touched[]; readonly created_dirs: string[] };

/** The folders above `relative` the merge creates; an ignored file in the way of one is recorded for removal. */
function plan_ancestors(root: string, relative: string, deleted: ReadonlySet<string>, created: Set<string>, obstacles: Set<string>): void {
  const parts = relative.split("/");
  for (let depth = 1; depth < parts.length; depth += 1) {
    const dir = parts.slice(0, depth).join("/");
    if (created.has(dir)) continue;
    const stat = lstat(path.join(root, dir));
    if (stat?.isDirectory() === true) continue;
    if (stat !== undefined && !deleted.has(dir)) {
      // Never write through a symlink or over a file the snapshot does not hold: it is backed up and replaced.
      if (!stat.isFile() && !stat.isSymbolicLink()) obstacle(dir, "something that is neither a file nor a folder is in the way");
      obstacles.add(dir);
    }
    created.add(dir);
  }
}

/**
 * What the merge will touch and how to put each path back: the current bytes of every changed path (and of
 * any ignored file in the way), read from disk and stored as blobs unless the snapshot already holds them.
 * Reads only; refuses before anything is touched when the merge cannot be undone exactly.
 */
export async function plan_touch(root: string, info: RepoInfo, changes: readonly TreeChange[]): Promise<TouchPlan> {
  const deleted = new Set(changes.filter((change) => change.new_mode === ABSENT).map((change) => change.path));
  const created = new Set<string>();
  const obstacles = new Set<string>();
  const known = new Map(changes.map((change) => [change.path, change.old_oid]));
  for (const change of changes) {
    check_path(change.path);
    if (change.new_mode !== ABSENT) plan_ancestors(root, change.path, deleted, created, obstacles);
  }
  const pending: Pending[] = [];
  const touched: Touched[] = [];
  for (const relative of [...changes.map((change) => change.path), ...obstacles]) {
    const stat = lstat(path.join(root, relative));
    if (stat === undefined) touched.push({ path: relative, before: { kind: "absent" } });
    else if (stat.isDirectory()) {
      // A folder where the merge writes a file: it must empty itself through the merge's own deletions.
      const kept = files_below(root, relative).filter((file) => !deleted.has(file));
      if (kept.length > 0) obstacle(relative, `the folder holds files the merge does not account for (${kept.slice(0, 3).join(", ")})`);
      touched.push({ path: relative, before: { kind: "absent" } });
    } else if (stat.isFile() || stat.isSymbolicLink()) pending.push({ path: relative, stat, known_oid: known.get(relative) ?? "" });
    else obstacle(relative, "something that is neither a file nor a folder is there");
  }
  touched.push(...(await backed_up(root, info, pending)));
  return { touched, created_dirs: [...created].sort((a, b) => a.split("/").length - b.split("/").length) };
}

/** Each pending path's current bytes as a blob: the snapshot's when they hash the same, else stored now. */
async function backed_up(root: string, info: RepoInfo, pending: readonly Pending[]): Promise<Touched[]> {
  const touched: Touched[] = [];
  const to_store: Pending[] = [];
  for (const item of pending) {
    const absolute = path.join(root, item.path);
    if (item.stat.isSymbolicLink()) {
      const target = fs.readlinkSync(absolute);
      const oid = blob_oid(Buffer.from(target, "utf8"), info.object_format);
      touched.push({ path: item.path, before: { kind: "symlink", oid: oid === item.known_oid ? oid : await store_bytes(root, target) } });
      continue;
    }
    const oid = blob_oid(fs.readFileSync(absolute), info.object_format);
    if (oid === item.known_oid) touched.push({ path: item.path, before: file_before(oid, item.stat) });
    else to_store.push(item);
  }
  const stored = await store_files(
    root,
    to_store.map((item) => item.path),
  );
  to_store.forEach((item, index) => {
    touched.push({ path: item.path, before: file_before(stored[index] ?? "", item.stat) });
  });
  return touched;
}

function file_before(oid: string, stat: fs.Stats): Before {
  return { kind: "file", oid, mode: stat.mode & 0o7777 };
}

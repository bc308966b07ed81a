import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import type { RestoreTarget } from "../contracts/events/restore.js";
import { Timestamp } from "../contracts/ids.js";
import { blob_oid } from "../workspaces/git.js";
import { place_states, type Placement } from "./restore-writer.js";
import type { SnapshotLinks, SnapshotRecord } from "./snapshot-manifest.js";
import { inside_root, lstat_entry, MAX_SNAPSHOT_FILE_BYTES } from "./snapshot-paths.js";
import type { FileState, SnapshotStore } from "./snapshot-store.js";

export type RestoreQuery = {
  /** The project's checkout. */
  readonly root: string;
  readonly target: RestoreTarget;
  /** Only these files (relative to the root, or absolute inside it); all of them when absent. */
  readonly paths?: readonly string[];
};

export type PlannedFile = {
  /** `/`-separated, relative to the root. */
  readonly path: string;
  /** What is there now. */
  readonly current: FileState;
  /** What the restore puts there: the state before air first touched it after the target's point. */
  readonly restored: FileState;
  /** The snapshot that state comes from. */
  readonly snapshot_id: string;
};

export type RestorePlan = {
  readonly root: string;
  readonly target: RestoreTarget;
  /** The files whose state the restore changes (files already in their restored state are left out). */
  readonly files: readonly PlannedFile[];
  /** Files air changed that the restore leaves alone, and why. */
  readonly unrestorable: readonly { readonly path: string; readonly reason: string }[];
};

export type AppliedRestore = {
  /** The snapshot of the files before the restore wrote them: `{ kind: "snapshot", snapshot_id: before.snapshot_id }` undoes it. */
  readonly before: SnapshotRecord;
  /** The snapshot after, whose `paths` are the files the restore changed. */
  readonly after: SnapshotRecord;
  readonly files: readonly PlannedFile[];
};

/** One change air made: the snapshot before it and every path it changed. */
type Change = { readonly before: SnapshotRecord; readonly paths: Set<string> };

function refuse(message: string, user_action: string): never {
  throw air_failure({ kind: "user_error", message, retryability: "not_retryable", user_action });
}

function start_index(records: readonly SnapshotRecord[], target: RestoreTarget): number {
  switch (target.kind) {
    case "session":
      return 0;
    case "time": {
      if (!v.is(Timestamp, target.at)) refuse(`${JSON.stringify(target.at)} is not an ISO-8601 time`, "Give a time such as 2026-12-03T18:00:00Z.");
      const at = Date.parse(target.at);
      const index = records.findIndex((record) => Date.parse(record.created_at) >= at);
      return index === -1 ? records.length : index;
    }
    case "run": {
      const index = records.findIndex((record) => record.tool_run_id === target.run_id || record.command_run_id === target.run_id);
      if (index === -1) refuse(`no snapshot is linked to the run ${target.run_id}`, "Pick a run that changed files (`air history` lists them).");
      return index;
    }
    case "snapshot": {
      const index = records.findIndex((record) => record.snapshot_id === target.snapshot_id);
      if (index === -1) refuse(`there is no snapshot ${target.snapshot_id} of this project`, "Pick a snapshot `air history` lists.");
      return index;
    }
  }
}

/** The changes from the start on, oldest first: a `before` snapshot and, for a command, its `after`'s paths. */
function changes_from(records: readonly SnapshotRecord[]): Change[] {
  const changes = new Map<string, Change>();
  for (const record of records) {
    if (record.phase === "before") changes.set(record.snapshot_id, { before: record, paths: new Set(record.paths) });
    else if (record.before_snapshot_id !== undefined) for (const changed of record.paths) changes.get(record.before_snapshot_id)?.paths.add(changed);
  }
  return [...changes.values()];
}

/** What is at `relative` now, as a snapshot would record it; undefined when it cannot be recorded (a folder, too large). */
function current_state(root: string, relative: string): FileState | { readonly kind: "unrecordable"; readonly reason: string } {
  const file = path.join(root, relative);
  const stat = lstat_entry(file);
  if (stat === undefined) return { kind: "absent" };
  if (stat.isSymbolicLink()) return { kind: "symlink", oid: blob_oid(Buffer.from(fs.readlinkSync(file, "buffer")), "sha1") };
  if (stat.isDirectory()) return { kind: "unrecordable", reason: "it is a folder now" };
  if (!stat.isFile()) return { kind: "unrecordable", reason: "it is not a regular file now" };
  if (stat.size > MAX_SNAPSHOT_FILE_BYTES)
    return { kind: "unrecordable", reason: `it is larger than ${MAX_SNAPSHOT_FILE_BYTES} bytes now, so the restore could not be undone` };
  return { kind: "file", oid: blob_oid(fs.readFileSync(file), "sha1"), mode: (stat.mode & 0o100) !== 0 ? 0o755 : 0o644 };
}

function same_state(a: FileState, b: FileState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.oid === b.oid && a.mode === b.mode;
  if (a.kind === "symlink" && b.kind === "symlink") return a.oid === b.oid;
  return true;
}

/** Which path each change touched first, and the paths it cannot restore. */
function first_touches(changes: readonly Change[], wanted: ReadonlySet<string> | undefined) {
  const first = new Map<string, Change>();
  const unrestorable: { path: string; reason: string }[] = [];
  for (const change of changes) {
    const skipped = new Set(change.before.skipped.map((file) => file.path));
    for (const changed of change.paths) {
      if (first.has(changed) || (wanted !== undefined && !wanted.has(changed))) continue;
      first.set(changed, change);
      if (skipped.has(changed)) unrestorable.push({ path: changed, reason: `it was larger than ${MAX_SNAPSHOT_FILE_BYTES} bytes, so no snapshot holds it` });
    }
  }
  return { first, unrestorable };
}

/** What restoring `query.target` would change, computed from the snapshots; the project is not touched. */
export async function plan_restore(store: SnapshotStore, query: RestoreQuery): Promise<RestorePlan> {
  const root = fs.realpathSync.native(query.root);
  const records = await store.list({ root, ...(query.target.kind === "session" ? { session_id: query.target.session_id } : {}) });
  const changes = changes_from(records.slice(start_index(records, query.target)));
  const wanted = query.paths === undefined ? undefined : new Set(query.paths.map((input) => inside_root(root, input)));
  const { first, unrestorable } = first_touches(changes, wanted);
  const refused = new Set(unrestorable.map((entry) => entry.path));
  const files: PlannedFile[] = [];
  for (const change of new Set(first.values())) {
    const paths = [...first].filter(([changed, by]) => by === change && !refused.has(changed)).map(([changed]) => changed);
    const restored = await store.states_at(change.before, paths);
    for (const [relative, state] of restored) {
      inside_root(root, relative);
      const current = current_state(root, relative);
      if (current.kind === "unrecordable") unrestorable.push({ path: relative, reason: current.reason });
      else if (state.kind === "repository") unrestorable.push({ path: relative, reason: "it was a nested repository, whose files snapshots do not hold" });
      else if (!same_state(current, state)) files.push({ path: relative, current, restored: state, snapshot_id: change.before.snapshot_id });
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { root, target: query.target, files, unrestorable };
}

/**
 * Applies a plan all or nothing: the files are snapshotted first (so the restore can be undone), every
 * restored file is written beside its target and renamed over it, files that did not exist are deleted; a
 * failure midway puts the files already replaced back from that snapshot. Refused when a file changed
 * since the plan was made. Files outside the plan are never touched.
 */
export async function apply_restore(
  store: SnapshotStore,
  plan: RestorePlan,
  by: { readonly session_id: string; readonly links?: SnapshotLinks },
): Promise<AppliedRestore> {
  const { root } = plan;
  if (plan.files.length === 0) refuse("there is nothing to restore: every file is already in that state", "Pick an earlier point.");
  for (const file of plan.files) {
    inside_root(root, file.path);
    const now = current_state(root, file.path);
    if (now.kind === "unrecordable" || !same_state(now, file.current)) {
      refuse(`${file.path} changed since the restore was planned; nothing was restored`, "Plan the restore again and review the new diff.");
    }
  }
  const paths = plan.files.map((file) => file.path);
  const snapshot = {
    root,
    session_id: by.session_id,
    cause: "restore" as const,
    paths,
    restored_to: plan.target,
    ...(by.links === undefined ? {} : { links: by.links }),
  };
  const before = await store.take({ ...snapshot, phase: "before" });
  const blobs = await store.read_blobs(
    plan.files.flatMap((file) => (file.restored.kind === "file" || file.restored.kind === "symlink" ? [file.restored.oid] : [])),
  );
  const done: string[] = [];
  try {
    place_states(
      root,
      plan.files.map((file): Placement => ({ path: file.path, state: file.restored })),
      blobs,
      done,
    );
  } catch (error) {
    await put_back(store, before, done);
    throw error;
  }
  const after = await store.take({ ...snapshot, phase: "after", before });
  return { before, after, files: plan.files };
}

/** Gives the paths a failed restore already replaced their state in `before` again. */
async function put_back(store: SnapshotStore, before: SnapshotRecord, done: readonly string[]): Promise<void> {
  if (done.length === 0) return;
  const states = await store.states_at(before, done);
  const blobs = await store.read_blobs([...states.values()].flatMap((state) => (state.kind === "file" || state.kind === "symlink" ? [state.oid] : [])));
  place_states(
    before.root,
    [...states].map(([relative, state]) => ({ path: relative, state })),
    blobs,
  );
}

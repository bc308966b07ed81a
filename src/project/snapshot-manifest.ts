import * as v from "valibot";
import { MAX_EVENT_PATHS, SnapshotCause, SnapshotPhase } from "../contracts/events/snapshot.js";
import type { PayloadInputOf } from "../contracts/events/registry.js";
import { RestoreTarget } from "../contracts/events/restore.js";
import { CommandRunId, SessionId, SnapshotId, TaskId, Timestamp, ToolRunId, WorkspaceId } from "../contracts/ids.js";

/**
 * A path inside the snapshotted root, `/`-separated as git stores it: never absolute, never `..`, never an
 * empty or `.` segment.
 */
const SnapshotPath = v.pipe(
  v.string(),
  v.minLength(1),
  v.check(
    (value) => !value.startsWith("/") && value.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."),
    "expected a relative path inside the root",
  ),
);

/** A file left out of a snapshot: larger than the cap (`MAX_SNAPSHOT_FILE_BYTES`). Restoring it is refused. */
export const SkippedFile = v.strictObject({ path: SnapshotPath, size_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)) });
export type SkippedFile = v.InferOutput<typeof SkippedFile>;

/** What a snapshot is linked to: the run, command, task or workspace whose change it precedes or follows. */
export const SnapshotLinks = v.strictObject({
  tool_run_id: v.optional(ToolRunId),
  command_run_id: v.optional(CommandRunId),
  task_id: v.optional(TaskId),
  workspace_id: v.optional(WorkspaceId),
});
export type SnapshotLinks = v.InferOutput<typeof SnapshotLinks>;

/** The manifest each snapshot commit carries after its subject line: the history is the index. */
const SnapshotManifest = v.strictObject({
  kind: v.literal("snapshot"),
  snapshot_id: SnapshotId,
  created_at: Timestamp,
  session_id: SessionId,
  cause: SnapshotCause,
  phase: SnapshotPhase,
  /**
   * What the tree holds. `root`: the whole root as a scan found it (a command's snapshot). `paths`: only the
   * named paths, each as it was (one absent from the tree did not exist) — a file tool's snapshot, cheap.
   */
  holds: v.picklist(["root", "paths"]),
  /** The real path of the snapshotted folder (the project's checkout). */
  root: v.pipe(v.string(), v.minLength(1)),
  ...SnapshotLinks.entries,
  /** On an `after` snapshot: the `before` snapshot of the same change. */
  before_snapshot_id: v.optional(SnapshotId),
  /** On a restore's snapshots: the point it went back to, so the backups repository's history says what each restore did. */
  restored_to: v.optional(RestoreTarget),
  /**
   * `before`: the paths the change will write when they are known (a file tool's); empty when the whole root
   * was scanned (a command's). `after`: the paths whose state differs from the `before` snapshot.
   */
  paths: v.array(SnapshotPath),
  skipped: v.array(SkippedFile),
});
type SnapshotManifest = v.InferOutput<typeof SnapshotManifest>;

/** A snapshot as the store lists it: its manifest, its commit, and the tree that holds the root's state. */
export type SnapshotRecord = Omit<SnapshotManifest, "kind"> & { readonly commit: string; readonly tree: string };

/** `restore to time 2026-12-03T19:40:00.000Z`, `restore to run tlr_…`: a restore commit's subject names where it went. */
function restore_subject(target: RestoreTarget | undefined): string | undefined {
  if (target === undefined) return undefined;
  const { kind, ...rest } = target;
  return `restore to ${kind} ${Object.values(rest).join(" ")}`;
}

export function snapshot_message(record: Omit<SnapshotRecord, "commit" | "tree">): string {
  const manifest: SnapshotManifest = { kind: "snapshot", ...record };
  const linked = record.command_run_id ?? record.tool_run_id ?? record.workspace_id ?? restore_subject(record.restored_to) ?? record.cause;
  return `air snapshot ${record.snapshot_id} ${record.phase} ${linked}\n\n${JSON.stringify(manifest)}\n`;
}

/** Parses `git log --format=%H%x00%T%x00%B%x1e`; commits whose message is not a snapshot manifest are skipped. */
export function parse_snapshot_log(output: string): SnapshotRecord[] {
  const records: SnapshotRecord[] = [];
  for (const entry of output.split("\x1e")) {
    const [commit, tree, body] = entry.replace(/^\n/, "").split("\x00");
    if (commit === undefined || tree === undefined || body === undefined) continue;
    const json = body.slice(body.indexOf("\n\n") + 2);
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      continue;
    }
    const parsed = v.safeParse(SnapshotManifest, value);
    if (!parsed.success) continue;
    const { kind: _kind, ...manifest } = parsed.output;
    records.push({ ...manifest, commit, tree });
  }
  return records;
}

/** The `snapshot.taken` payload that links `record` to its run in the session's events. */
export function snapshot_taken_payload(record: SnapshotRecord): PayloadInputOf<"snapshot.taken"> {
  return {
    snapshot_id: record.snapshot_id,
    commit: record.commit,
    cause: record.cause,
    phase: record.phase,
    ...(record.before_snapshot_id === undefined ? {} : { before_snapshot_id: record.before_snapshot_id }),
    ...(record.tool_run_id === undefined ? {} : { tool_run_id: record.tool_run_id }),
    ...(record.command_run_id === undefined ? {} : { command_run_id: record.command_run_id }),
    ...(record.task_id === undefined ? {} : { task_id: record.task_id }),
    ...(record.workspace_id === undefined ? {} : { workspace_id: record.workspace_id }),
    paths: record.paths.slice(0, MAX_EVENT_PATHS),
    paths_total: record.paths.length,
    skipped: record.skipped.map((file) => file.path),
  };
}

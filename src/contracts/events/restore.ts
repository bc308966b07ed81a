import * as v from "valibot";
import { CommandRunId, SessionId, SnapshotId, Timestamp, ToolRunId } from "../ids.js";
import { Count, NonEmpty } from "./common.js";
import { durable } from "./define.js";
import { MAX_EVENT_PATHS } from "./snapshot.js";

/**
 * Where a restore goes back to. Every file air changed from that point on gets the state it had before air
 * first touched it after that point; nothing else is touched.
 * - `time`: every change of any session at or after `at`.
 * - `run`: every change from the first snapshot of a tool run or command run (`tlr_…`, `cmr_…`) on.
 * - `session`: the changes that session made.
 * - `snapshot`: every change from that snapshot on; a restore's own `before` snapshot undoes it.
 */
export const RestoreTarget = v.variant("kind", [
  v.strictObject({ kind: v.literal("time"), at: Timestamp }),
  v.strictObject({ kind: v.literal("run"), run_id: v.union([ToolRunId, CommandRunId]) }),
  v.strictObject({ kind: v.literal("session"), session_id: SessionId }),
  v.strictObject({ kind: v.literal("snapshot"), snapshot_id: SnapshotId }),
]);
export type RestoreTarget = v.InferOutput<typeof RestoreTarget>;

/** How a restore changed one file: written back, or deleted because it did not exist at that point. */
const RestoredFile = v.strictObject({ path: NonEmpty, action: v.picklist(["written", "deleted"]) });

/**
 * `restore.applied`: `air restore` put files back. The snapshots before and after it are commits in the
 * backups repository; restoring to `before_snapshot_id` undoes it. Appended, never projected.
 */
export const restore_events = {
  "restore.applied": durable(
    v.strictObject({
      target: RestoreTarget,
      /** The first `MAX_EVENT_PATHS` files; the after snapshot's manifest has them all. */
      files: v.pipe(v.array(RestoredFile), v.maxLength(MAX_EVENT_PATHS)),
      files_total: Count,
      before_snapshot_id: SnapshotId,
      after_snapshot_id: SnapshotId,
      /** The backups repository's commit of the after snapshot: the restore commit. */
      commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{40,64}$/, "expected a git commit id")),
    }),
    "Files air changed were restored to an earlier state; the before and after snapshots make it undoable.",
  ),
} as const;

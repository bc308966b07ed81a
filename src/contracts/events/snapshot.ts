import * as v from "valibot";
import { CommandRunId, SnapshotId, TaskId, ToolRunId, WorkspaceId } from "../ids.js";
import { Count, NonEmpty } from "./common.js";
import { durable } from "./define.js";

/** Whether a snapshot was taken before a change or after it (then it records what changed). */
export const SnapshotPhase = v.picklist(["before", "after"]);
export type SnapshotPhase = v.InferOutput<typeof SnapshotPhase>;

/** What made air change files: a file tool, a shell command, a workspace merge into the checkout, a restore. */
export const SnapshotCause = v.picklist(["tool", "command", "merge", "restore"]);
export type SnapshotCause = v.InferOutput<typeof SnapshotCause>;

/** Paths an event lists at most; the snapshot's manifest in the backups repository has them all. */
export const MAX_EVENT_PATHS = 200;

/**
 * `snapshot.taken` links a snapshot in `.air/local/backups/` (a commit on `refs/air/snapshots/<session>`) to
 * the tool run, command run, task or workspace whose change it precedes or follows (issue 17). The backups
 * repository holds the state; the event is the session's record of it: appended, never projected.
 */
export const snapshot_events = {
  "snapshot.taken": durable(
    v.strictObject({
      snapshot_id: SnapshotId,
      commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{40,64}$/, "expected a git commit id")),
      cause: SnapshotCause,
      phase: SnapshotPhase,
      before_snapshot_id: v.optional(SnapshotId),
      tool_run_id: v.optional(ToolRunId),
      command_run_id: v.optional(CommandRunId),
      task_id: v.optional(TaskId),
      workspace_id: v.optional(WorkspaceId),
      /** `before`: the paths the change writes, when known; `after`: the paths whose state changed (first `MAX_EVENT_PATHS`). */
      paths: v.pipe(v.array(NonEmpty), v.maxLength(MAX_EVENT_PATHS)),
      paths_total: Count,
      /** Files left out for their size (larger than the snapshot cap): a restore cannot bring them back. */
      skipped: v.array(NonEmpty),
    }),
    "The project's state before or after a change air makes was recorded in the backups repository.",
  ),
} as const;

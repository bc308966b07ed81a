import * as v from "valibot";
import { AgentId, TaskId, WorkspaceId } from "../ids.js";
import { durable } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

export const WorkspaceStrategy = v.picklist(["main", "worktree", "isolated_copy"]);
export type WorkspaceStrategy = v.InferOutput<typeof WorkspaceStrategy>;

const Subject = { workspace_id: WorkspaceId };

/**
 * Why a merge did not land: git found conflicting changes, or the task's verification failed on the merged
 * checkout (both leave the checkout as it was). Sessions recorded before the field had only conflicts.
 */
const MergeFailure = v.optional(v.picklist(["conflict", "verification_failed"]), "conflict");

export const workspace_events = {
  "workspace.created": durable(
    v.strictObject({
      ...Subject,
      strategy: WorkspaceStrategy,
      path: NonEmpty,
      base_ref: v.optional(NonEmpty),
      task_id: v.optional(TaskId),
      agent_id: v.optional(AgentId),
    }),
    "Inserts workspaces (active).",
  ),
  "workspace.merge.started": durable(v.strictObject(Subject), "Marks a merge in progress (metadata, not a status)."),
  "workspace.merge.completed": durable(v.strictObject({ ...Subject, merged_ref: v.optional(NonEmpty) }), "workspaces.status = merged."),
  "workspace.merge.conflicted": durable(
    v.strictObject({ ...Subject, cause: MergeFailure, conflicting_files: v.pipe(v.array(NonEmpty), v.minLength(1)), detail: v.optional(Reason) }),
    "workspaces.status = conflicted.",
  ),
  "workspace.abandoned": durable(
    v.strictObject({ ...Subject, reason: Reason }),
    "Not in the seeds' event list: workspaces.status = abandoned (seeds 000 §20.5 'abandon').",
  ),
  "workspace.reactivated": durable(
    v.strictObject({ ...Subject, decision: Reason }),
    "Not in the seeds' event list: a conflicted workspace is active again for a retry (seeds 000 §20.5).",
  ),
  "workspace.cleaned": durable(v.strictObject(Subject), "workspaces.status = cleaned; the row stays."),
} as const;

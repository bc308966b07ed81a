import type { WorkspaceStatus } from "../../contracts/status.js";
import { workspaces } from "../../db/schema.js";
import { insert_row, json, update_rows } from "../rows.js";
import { moved_status, type Projection, type ProjectionTarget } from "./projection.js";

export const workspace_created: Projection<"workspace.created"> = (event, target) => {
  const { workspace_id, ...workspace } = event.payload;
  insert_row(target.connection, workspaces, {
    ...workspace,
    id: workspace_id,
    session_id: event.session_id,
    status: moved_status<WorkspaceStatus>(target),
    created_at: event.timestamp,
    updated_at: event.timestamp,
  });
};

function move_workspace(target: ProjectionTarget, id: string, at: string, set: Partial<typeof workspaces.$inferInsert>) {
  update_rows(
    target.connection,
    workspaces,
    { id },
    {
      ...set,
      status: moved_status<WorkspaceStatus>(target),
      updated_at: at,
    },
  );
}

export const workspace_merge_started: Projection<"workspace.merge.started"> = (event, target) => {
  move_workspace(target, event.payload.workspace_id, event.timestamp, { merge_in_progress: 1, merge_started_at: event.timestamp });
};

export const workspace_merge_completed: Projection<"workspace.merge.completed"> = (event, target) => {
  move_workspace(target, event.payload.workspace_id, event.timestamp, {
    merge_in_progress: 0,
    merged_at: event.timestamp,
    merged_ref: event.payload.merged_ref,
  });
};

export const workspace_merge_conflicted: Projection<"workspace.merge.conflicted"> = (event, target) => {
  const { workspace_id, cause, conflicting_files, detail } = event.payload;
  move_workspace(target, workspace_id, event.timestamp, {
    merge_in_progress: 0,
    conflict_json: json({ cause, conflicting_files, detail }),
  });
};

export const workspace_abandoned: Projection<"workspace.abandoned"> = (event, target) => {
  move_workspace(target, event.payload.workspace_id, event.timestamp, { status_reason: event.payload.reason });
};

export const workspace_reactivated: Projection<"workspace.reactivated"> = (event, target) => {
  move_workspace(target, event.payload.workspace_id, event.timestamp, { status_reason: event.payload.decision });
};

export const workspace_cleaned: Projection<"workspace.cleaned"> = (event, target) => {
  move_workspace(target, event.payload.workspace_id, event.timestamp, { cleaned_at: event.timestamp });
};

import { air_failure } from "../contracts/errors.js";
import type { WorkspaceStatus } from "../contracts/status.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Seeds 003 §15: how long a workspace's files stay after it reached a status; absent = kept until decided. */
const RETENTION_MS: Partial<Record<WorkspaceStatus, number>> = { merged: 7 * DAY_MS, abandoned: 3 * DAY_MS };

/** The columns of a `workspaces` row the retention reads. */
export type RetentionRow = {
  readonly id: string;
  readonly status: WorkspaceStatus;
  readonly merged_at: string | null;
  /** When the row last changed status: for an abandoned workspace, when it was abandoned. */
  readonly updated_at: string;
};

/** A timestamp of the row; one that does not parse would keep the files forever without a word. */
function moment(row: RetentionRow, value: string): number {
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw air_failure({
      kind: "workspace_error",
      message: `workspace ${row.id} (${row.status}) has an unreadable timestamp ${JSON.stringify(value)}: its retention cannot be decided`,
      retryability: "not_retryable",
      user_action: "The session database is damaged: run air doctor, or remove the workspace's worktree and branch by hand.",
      metadata: { workspace_id: row.id, status: row.status },
    });
  }
  return at;
}

/** When the row's retention started, or undefined when its status keeps the files (active, conflicted, cleaned). */
function retained_since(row: RetentionRow): number | undefined {
  if (row.status === "merged") return moment(row, row.merged_at ?? row.updated_at);
  if (row.status === "abandoned") return moment(row, row.updated_at);
  return undefined;
}

/**
 * The workspaces whose files are due for removal at `now`: merged ones 7 days after the merge, abandoned ones
 * 3 days after. Active and conflicted workspaces wait for a decision; a cleaned one has nothing left (its
 * row stays, as every row does). The periods are 003 §15's, fixed: no setting changes them. A timestamp that
 * does not parse is a `workspace_error`.
 */
export function due_for_cleanup<Row extends RetentionRow>(rows: readonly Row[], now: Date): Row[] {
  return rows.filter((row) => {
    const since = retained_since(row);
    const keep = RETENTION_MS[row.status];
    return since !== undefined && keep !== undefined && now.getTime() - since >= keep;
  });
}

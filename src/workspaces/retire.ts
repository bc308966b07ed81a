import { ne } from "drizzle-orm";
import { air_failure } from "../contracts/errors.js";
import type { WorkspaceStatus } from "../contracts/status.js";
import { workspaces } from "../db/schema.js";
import type { Session } from "../project/session-manager.js";
import { WorkspaceManager, workspace_ref } from "./manager.js";

const UNDECIDED: readonly WorkspaceStatus[] = ["active", "conflicted"];

/**
 * Before a session is deleted: every workspace it still has loses its files and its branch (an undecided one
 * is abandoned first), each step recorded in the session, so a deleted session leaves no worktree or branch in
 * the project's repository and the workspace sweep never needs to open it again. A merge cut off midway is
 * refused: only resuming the session finishes or rolls it back in the checkout.
 */
export async function retire_session_workspaces(session: Session, reason: string): Promise<number> {
  const rows = session.connection.db.select().from(workspaces).where(ne(workspaces.status, "cleaned")).all();
  const merging = rows.find((row) => row.merge_in_progress === 1);
  if (merging !== undefined) {
    throw air_failure({
      kind: "user_error",
      message: `session ${session.id} stopped in the middle of merging workspace ${merging.id} into the checkout`,
      retryability: "retryable_after_change",
      user_action: `Resume it first (\`air resume --session ${session.id}\`), which finishes or rolls back the merge; then delete it.`,
      metadata: { session_id: session.id, workspace_id: merging.id },
    });
  }
  const manager = new WorkspaceManager(session);
  for (const row of rows) {
    const ref = workspace_ref(row);
    if (UNDECIDED.includes(row.status)) manager.abandon_workspace(ref, reason);
    await manager.cleanup_workspace(ref);
  }
  return rows.length;
}

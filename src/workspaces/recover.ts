import type { WorkspaceId } from "../contracts/ids.js";
import { restore_checkout } from "./apply.js";
import { clear_journal, read_journal } from "./journal.js";

export type Recovery =
  | { readonly kind: "none" }
  | { readonly kind: "rolled_back"; readonly workspace_id: WorkspaceId | undefined }
  | { readonly kind: "completed"; readonly workspace_id: WorkspaceId | undefined; readonly merged_commit: string };

/**
 * After a crash, makes a merge cut off midway all or nothing. The policy is to roll back: a merge whose
 * verification did not finish is not a verified merge, and finishing it would need the task's verification,
 * which only the Scheduler can run and judge; the task's commit is intact on its branch, so the Scheduler
 * merges it again. Only a journal in its `merged` phase (everything written, verification passed, the
 * journal's removal cut off) is completed, which is just removing the journal.
 */
export async function recover_merge(root: string): Promise<Recovery> {
  const journal = read_journal(root);
  if (journal === undefined) return { kind: "none" };
  if (journal.phase === "merged") {
    clear_journal(root);
    return { kind: "completed", workspace_id: journal.workspace_id, merged_commit: journal.merged_commit };
  }
  await restore_checkout(root, journal);
  clear_journal(root);
  return { kind: "rolled_back", workspace_id: journal.workspace_id };
}

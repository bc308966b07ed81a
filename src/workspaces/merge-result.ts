import * as v from "valibot";
import type { WorkspaceId } from "../contracts/ids.js";
import type { ConflictDetail } from "./conflicts.js";

/** What the task's verification said about the merged checkout; the Scheduler's verify() answers with it. */
export const VerifyOutcome = v.variant("passed", [
  v.strictObject({ passed: v.literal(true) }),
  v.strictObject({ passed: v.literal(false), reason: v.pipe(v.string(), v.minLength(1)), detail: v.optional(v.string()) }),
]);
export type VerifyOutcome = v.InferOutput<typeof VerifyOutcome>;
type VerifyFailure = Extract<VerifyOutcome, { passed: false }>;

/** How the detail of a merge rolled back for its verification starts (`workspace.merge.conflicted`, cause verification_failed). */
export const VERIFICATION_FAILED_DETAIL = "post-merge verification failed";

/**
 * The end of one merge of the queue. Only `merged` leaves the checkout changed; after the two others it is
 * byte for byte what it was before the merge.
 */
export type MergeResult =
  | {
      readonly kind: "merged";
      /** A commit of the merged tree (parents: the checkout's snapshot and the task's work), reachable by no branch. */
      readonly merged_commit: string;
      readonly ours_commit: string;
      /** Paths the merge changed in the checkout. */
      readonly changed_paths: string[];
    }
  | {
      readonly kind: "conflicted";
      /** The checkout's snapshot the task's work did not merge into: the base for a repair attempt. */
      readonly ours_commit: string;
      readonly files: string[];
      readonly conflicts: ConflictDetail[];
    }
  | { readonly kind: "verification_failed"; readonly ours_commit: string; readonly changed_paths: string[]; readonly outcome: VerifyFailure };

export type MergeInput = {
  readonly root: string;
  readonly task_commit: string;
  /** The commit the task's workspace started from (the wave's snapshot). */
  readonly base_commit: string;
  /** The task's verification, run on the merged checkout; a failure rolls the merge back. */
  readonly verify: () => Promise<VerifyOutcome>;
  /** Recorded in the journal so a recovery can name the workspace whose merge it finished or undid. */
  readonly workspace_id?: WorkspaceId;
  /**
   * Called with every path the merge will touch, just before it touches the first: a snapshot of them (issue 17).
   * A throw stops the merge with the checkout untouched.
   */
  readonly before_apply?: (paths: readonly string[]) => Promise<void>;
};

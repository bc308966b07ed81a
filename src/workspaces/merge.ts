import { air_failure } from "../contracts/errors.js";
import { apply_changes, restore_checkout } from "./apply.js";
import { tree_changes } from "./blobs.js";
import { conflict_details, parse_merge_tree } from "./conflicts.js";
import { git_failure } from "../tools/git/run-git.js";
import { git_run, git_text, repo_info } from "./git.js";
import { clear_journal, journal_path, read_journal, write_journal, type MergeJournal } from "./journal.js";
import type { MergeInput, MergeResult } from "./merge-result.js";
import { snapshot_commit } from "./snapshot.js";
import { plan_touch } from "./touch-plan.js";

function refuse_while_cut_off(root: string): void {
  if (read_journal(root) === undefined) return;
  throw air_failure({
    kind: "merge_error",
    message: `a merge into ${root} was cut off midway (${journal_path(root)} is still there)`,
    retryability: "retryable_after_change",
    user_action: "Recover it first (`recover_merge`, run by `air resume`); then merge again.",
  });
}

/**
 * The two sides of the merge as commits whose only parent is the base, so that `git merge-tree` (git 2.39 has
 * no `--merge-base`) finds exactly the base as their merge base, whatever the user committed meanwhile.
 */
async function sides(root: string, task_commit: string, base_commit: string): Promise<{ ours: { commit: string; tree: string }; theirs: string }> {
  const [ours, theirs] = await Promise.all([
    snapshot_commit(root, base_commit),
    git_text(root, ["commit-tree", `${task_commit}^{tree}`, "-p", base_commit, "-m", "air: the task's work"]),
  ]);
  return { ours, theirs };
}

/** Restores the checkout from the journal and removes it; on a failure the journal stays for `recover_merge`. */
async function roll_back(root: string, journal: MergeJournal): Promise<void> {
  await restore_checkout(root, journal);
  clear_journal(root);
}

/**
 * Merges the task's work (base_commit → task_commit) into the user's working tree as it is now, uncommitted
 * changes and earlier merges included, three-way. Commits nothing to the user's branch and leaves the index
 * alone: the merged changes show as unstaged (new files untracked), as after a single agent's run. All or
 * nothing: a conflict leaves the checkout untouched; a failed verification or any exception restores it byte
 * for byte; a SIGKILL midway leaves a journal that `recover_merge` acts on.
 */
export async function merge_into_checkout(input: MergeInput): Promise<MergeResult> {
  const { root, task_commit, base_commit } = input;
  refuse_while_cut_off(root);
  const info = await repo_info(root);
  const { ours, theirs } = await sides(root, task_commit, base_commit);
  const args = ["merge-tree", "--write-tree", "-z", "--name-only", ours.commit, theirs];
  const merged = await git_run(root, args);
  if (merged.code !== 0 && merged.code !== 1) throw git_failure(args, merged, "Check the task's commit and the repository; the checkout was not changed.");
  const outcome = parse_merge_tree(merged.stdout, merged.code);
  if (!outcome.clean) {
    return { kind: "conflicted", ours_commit: ours.commit, files: outcome.files, conflicts: await conflict_details(root, outcome) };
  }
  const [changes, merged_commit] = await Promise.all([
    tree_changes(root, ours.tree, outcome.tree),
    git_text(root, ["commit-tree", outcome.tree, "-p", ours.commit, "-p", theirs, "-m", "air: merge of the task's work into the checkout"]),
  ]);
  const plan = await plan_touch(root, info, changes);
  await input.before_apply?.(plan.touched.map((touched) => touched.path));
  const journal: MergeJournal = {
    version: 1,
    ...(input.workspace_id === undefined ? {} : { workspace_id: input.workspace_id }),
    base_commit,
    task_commit,
    ours_commit: ours.commit,
    merged_commit,
    phase: "applying",
    touched: plan.touched,
    created_dirs: plan.created_dirs,
  };
  write_journal(root, journal);
  const changed = new Set(changes.map((change) => change.path));
  const obstacles = plan.touched.filter((touched) => !changed.has(touched.path)).map((touched) => touched.path);
  let verified: Awaited<ReturnType<MergeInput["verify"]>>;
  try {
    await apply_changes(root, changes, obstacles);
    verified = await input.verify();
  } catch (error) {
    await roll_back(root, journal);
    throw error;
  }
  const changed_paths = [...changed];
  if (!verified.passed) {
    await roll_back(root, journal);
    return { kind: "verification_failed", ours_commit: ours.commit, changed_paths, outcome: verified };
  }
  write_journal(root, { ...journal, phase: "merged" });
  clear_journal(root);
  return { kind: "merged", merged_commit, ours_commit: ours.commit, changed_paths };
}

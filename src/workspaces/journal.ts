import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { WorkspaceId } from "../contracts/ids.js";
import { write_file_atomic } from "../project/atomic-write.js";
import { project_layout } from "../project/layout.js";

const Oid = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, "expected a git object id"));
/** A path relative to the project root as git writes it (posix separators). */
const RelativePath = v.pipe(v.string(), v.minLength(1));

/** What a path held before the merge touched it: enough to put back its exact bytes and permission bits. */
export const Before = v.variant("kind", [
  v.strictObject({ kind: v.literal("absent") }),
  v.strictObject({ kind: v.literal("file"), oid: Oid, mode: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0o7777)) }),
  v.strictObject({ kind: v.literal("symlink"), oid: Oid }),
]);
export type Before = v.InferOutput<typeof Before>;

export const Touched = v.strictObject({ path: RelativePath, before: Before });
export type Touched = v.InferOutput<typeof Touched>;

/**
 * A merge in progress, written before the working tree is touched. `applying`: the checkout may be partly
 * merged or under verification and is rolled back on recovery; `merged`: the merged tree is all written and
 * verification passed, only the journal's removal was left, so recovery completes it.
 */
export const MergeJournal = v.strictObject({
  version: v.literal(1),
  workspace_id: v.optional(WorkspaceId),
  base_commit: Oid,
  task_commit: Oid,
  ours_commit: Oid,
  merged_commit: Oid,
  phase: v.picklist(["applying", "merged"]),
  touched: v.array(Touched),
  /** Folders the merge creates (missing before, or a file that the merge replaces by a folder), deepest last. */
  created_dirs: v.array(RelativePath),
});
export type MergeJournal = v.InferOutput<typeof MergeJournal>;

export function journal_path(root: string): string {
  return path.join(project_layout(root).workspaces, "merge-journal.json");
}

export function write_journal(root: string, journal: MergeJournal): void {
  const file = journal_path(root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  write_file_atomic(file, `${JSON.stringify(journal)}\n`);
}

/** The journal of a merge cut off midway, if there is one. */
export function read_journal(root: string): MergeJournal | undefined {
  const file = journal_path(root);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const checked = v.safeParse(MergeJournal, parsed);
  if (checked.success) return checked.output;
  // Written atomically by air alone: a journal that does not parse was changed by something else.
  throw air_failure({
    kind: "merge_error",
    message: `the merge journal ${file} is not one air wrote (${checked.issues[0]?.message ?? "invalid"})`,
    retryability: "not_retryable",
    user_action: `Inspect the checkout with \`git status\`; once it is as it should be, delete ${file}.`,
  });
}

export function clear_journal(root: string): void {
  fs.rmSync(journal_path(root), { force: true });
}

import { git_ok, git_run, nul_fields } from "../workspaces/git.js";
import { parse_unified_diff, type TaskChange } from "./change.js";

/** air's own state is no part of a task's change (its plan is the designer's to update, through the tools). */
const outside_air = (file: string) => file !== ".air" && !file.startsWith(".air/");

/**
 * What the working tree of `root` changed against `base` (in `only` those files, when given): tracked files as
 * `git diff` shows them, and the new files git does not track yet, as additions. Read-only: neither the index
 * nor the checkout is touched. (Pathspecs are literal for air's git, so paths are named, never excluded.)
 */
export async function read_change(root: string, base: string, only?: readonly string[]): Promise<TaskChange> {
  const scope = only === undefined ? ["."] : only.filter(outside_air);
  if (scope.length === 0) return { files: [], diff: "" };
  const names = nul_fields(await git_ok(root, ["diff", "--name-only", "-z", "--no-renames", base, "--", ...scope])).filter(outside_air);
  const untracked = nul_fields(await git_ok(root, ["ls-files", "-z", "--others", "--exclude-standard", "--", ...scope])).filter(outside_air);
  const parts =
    names.length === 0 ? [] : [(await git_ok(root, ["diff", "--no-color", "--no-ext-diff", "--no-renames", base, "--", ...names])).toString("utf8")];
  for (const file of untracked) {
    // `--no-index` exits 1 when the files differ, which a new file always does.
    const shown = await git_run(root, ["diff", "--no-color", "--no-ext-diff", "--no-index", "--", "/dev/null", file]);
    parts.push(shown.stdout.toString("utf8"));
  }
  const diff = parts.filter((part) => part !== "").join("\n");
  return { files: parse_unified_diff(diff), diff };
}

/** When there is no git to ask (not a checkout, no commit yet): the files the worker said it changed, no lines. */
export function reported_change(changed_files: readonly string[]): TaskChange {
  const files = changed_files.map((file) => ({ path: file, status: "modified" as const, added: [], removed: [] }));
  return { files, diff: `(no diff: the project is not a git checkout with a commit; the worker reported changing ${changed_files.join(", ") || "no file"})` };
}

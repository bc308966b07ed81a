import { DIFF_HARDENING } from "../../tools/git/diff.js";
import type { TaskChange, ChangedFile } from "../../orchestration/review/change.js";
import { git_ok, git_run } from "../../workspaces/git.js";
import { snapshot_commit } from "../../workspaces/snapshot.js";

/** The longest diff a reviewer is handed inline; its files and line counts are always whole. */
const MAX_DIFF_CHARS = 60_000;

/** git's empty tree (sha1): the base of a main checkout with no commit yet. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** `git diff --numstat -z --no-renames`: `added\tdeleted\tpath\0`; a binary file counts one line. */
function parse_numstat(raw: string): ChangedFile[] {
  return raw
    .split("\0")
    .filter((record) => record !== "")
    .map((record) => {
      const [added = "", deleted = "", ...rest] = record.split("\t");
      const binary = added === "-";
      return { path: rest.join("\t"), added: binary ? 1 : Number(added), deleted: binary ? 0 : Number(deleted) };
    });
}

function clipped(diff: string): string {
  return diff.length <= MAX_DIFF_CHARS ? diff : `${diff.slice(0, MAX_DIFF_CHARS)}\n… [${diff.length - MAX_DIFF_CHARS} more characters of diff]`;
}

/**
 * What the work tree of `root` holds against `base` (untracked files included, through a snapshot commit
 * that leaves the user's index and branch alone), limited to `paths` when given. Undefined when `root` is
 * not a git checkout: then only the worker's own account of its changes is there.
 */
export async function task_change(root: string, base: string, paths?: readonly string[]): Promise<TaskChange | undefined> {
  const inside = await git_run(root, ["rev-parse", "--is-inside-work-tree"]);
  if (inside.code !== 0) return undefined;
  if (paths !== undefined && paths.length === 0) return { files: [], diff: "" };
  const { commit } = await snapshot_commit(root);
  const born = base !== "HEAD" || (await git_run(root, ["rev-parse", "--verify", "--quiet", "HEAD"])).code === 0;
  const revs = ["--no-renames", born ? base : EMPTY_TREE, commit, "--", ...(paths ?? ["."])];
  const stat = await git_ok(root, ["diff", ...DIFF_HARDENING, "--numstat", "-z", ...revs]);
  const patch = await git_ok(root, ["diff", ...DIFF_HARDENING, ...revs]);
  return { files: parse_numstat(stat.toString("utf8")), diff: clipped(patch.toString("utf8")) };
}

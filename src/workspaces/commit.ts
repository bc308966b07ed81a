import { git_failure } from "../tools/git/run-git.js";
import { git_ok, git_run, git_text } from "./git.js";

export type CommitWork = {
  /** The workspace's folder (a worktree of air's). */
  path: string;
  message: string;
  /** Paths relative to the workspace never committed (a build folder the project does not ignore, say). */
  exclude?: readonly string[];
};

/**
 * Commits everything in the workspace (changes, deletions, untracked files the project does not ignore) on
 * its branch, as "air <air@localhost>", with no hooks and no signing. `commit` is undefined when there was
 * nothing to commit; `head` is the branch's tip either way (a worker's own commits included): what to merge.
 */
export async function commit_work(input: CommitWork): Promise<{ commit: string | undefined; head: string }> {
  const cwd = input.path;
  await git_ok(cwd, ["add", "--all", "--", "."]);
  if (input.exclude !== undefined && input.exclude.length > 0) {
    await git_ok(cwd, ["rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", ...input.exclude]);
  }
  // --no-verify and the neutral core.hooksPath both keep hooks from running; --file=- keeps the message off argv.
  const args = ["commit", "--quiet", "--no-verify", "--no-gpg-sign", "--cleanup=whitespace", "--file=-"];
  const committed = await git_run(cwd, args, { stdin: input.message });
  const said = `${committed.stdout.toString("utf8")}\n${committed.stderr}`;
  const nothing = committed.code !== 0 && /nothing to commit|nothing added to commit|no changes added to commit/i.test(said);
  if (committed.code !== 0 && !nothing) throw git_failure(args, committed, "Check the workspace with `git status`; its files are as the task left them.");
  const head = await git_text(cwd, ["rev-parse", "--verify", "HEAD"]);
  return { commit: nothing ? undefined : head, head };
}

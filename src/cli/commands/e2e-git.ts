import { spawnSync } from "node:child_process";
import { air_failure } from "../../contracts/errors.js";

/** The fixture's git, as a user's own repository would be: no GIT_* variables of the caller, no hooks or signing. */
function git(root: string, args: readonly string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  const run = spawnSync("git", ["-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", ...args], { cwd: root, env, encoding: "utf8" });
  if (run.status !== 0) {
    throw air_failure({
      kind: "env_error",
      message: `git ${args.join(" ")} failed in the fixture project ${root}: ${run.stderr.trim() || `exit ${run.status}`}`,
      retryability: "not_retryable",
      user_action: "Check that git works on this machine (air doctor).",
    });
  }
  return run.stdout;
}

/** Makes the copied fixture project a repository with one commit on main, as the user's checkout a team run starts from. */
export function commit_fixture_project(root: string): void {
  git(root, ["init", "--quiet", "--initial-branch=main"]);
  git(root, ["add", "--all"]);
  git(root, ["-c", "user.name=air e2e", "-c", "user.email=e2e@air.invalid", "commit", "--quiet", "--no-verify", "-m", "The fixture project"]);
}

/** Commits the fixture's files copied back over the checkout, as the user's next commit would be. */
export function commit_fixture_changes(root: string): void {
  git(root, ["add", "--all"]);
  git(root, [
    "-c",
    "user.name=air e2e",
    "-c",
    "user.email=e2e@air.invalid",
    "commit",
    "--quiet",
    "--no-verify",
    "--allow-empty",
    "-m",
    "The fixture project, fresh",
  ]);
}

/** What a team run left in the fixture's repository besides its main checkout and branch, each a sentence. */
export function git_leftovers(root: string): string[] {
  const worktrees = git(root, ["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .slice(1);
  const branches = git(root, ["branch", "--list", "--format=%(refname:short)"])
    .split("\n")
    .filter((name) => name !== "" && name !== "main");
  return [...worktrees.map((line) => `a worktree is left: ${line.slice("worktree ".length)}`), ...branches.map((name) => `a branch is left: ${name}`)];
}

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import type { ToolExecution } from "../define.js";
import { locate, PathInput } from "../fs/common.js";
import { git_failure, run_git, type GitResult } from "./run-git.js";

/** The git repository a git tool works in: the project root's, seen from the project root. */
export type Repo = {
  /** Real path of the project root: git's working folder. */
  readonly cwd: string;
  readonly toplevel: string;
  /** The project root relative to the top of the work tree, `/`-terminated ("" when they are the same). */
  readonly prefix: string;
  /** Per-call configuration that switches off the repository's filter drivers. */
  readonly config: readonly (readonly [string, string])[];
  readonly signal: AbortSignal;
};

/**
 * A revision as the model may name one: a sha, branch, tag, `HEAD~2`, `main@{1}`, `a..b`. Never an option
 * (no leading `-`), no `:` (rev:path is built by the tools), no whitespace.
 */
export const RevInput = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(256),
  v.regex(/^[A-Za-z0-9_.@{}~^][A-Za-z0-9_.@{}~^/+-]*$/, "expected a revision such as HEAD, main, HEAD~2 or a sha (no leading '-', no ':' or spaces)"),
  v.description("A revision: a sha, branch, tag, HEAD~N …"),
);

export const PathsInput = v.pipe(v.array(PathInput), v.maxLength(1000), v.description("Paths inside the project (files or folders)."));

function not_a_repo(root: string) {
  return air_failure({
    kind: "project_error",
    message: `the project ${root} is not inside a git repository`,
    retryability: "retryable_after_change",
    user_action: "Run `git init` in the project (or work in a project that is a git repository); the git tools need one.",
    metadata: { project_root: root },
  });
}

/** Filter drivers (`filter.<name>.clean/smudge/process`) run programs on `git add`, `status`, `diff`: empty them all. */
function filter_overrides(listing: GitResult): [string, string][] {
  if (listing.code !== 0) return [];
  const names = new Set<string>();
  for (const key of listing.stdout.toString("utf8").split("\0")) {
    const name = key.trim().slice("filter.".length, key.trim().lastIndexOf("."));
    if (key.trim().startsWith("filter.") && name !== "") names.add(name);
  }
  return [...names].flatMap((name): [string, string][] => [
    [`filter.${name}.clean`, ""],
    [`filter.${name}.smudge`, ""],
    [`filter.${name}.process`, ""],
    [`filter.${name}.required`, "false"],
  ]);
}

/** The repository of the project: refuses a folder outside git and a work tree that does not hold the project. */
export async function open_repo(execution: ToolExecution): Promise<Repo> {
  const cwd = fs.realpathSync(execution.project_root);
  const { signal } = execution;
  const args = ["rev-parse", "--show-toplevel", "--show-prefix"];
  const located = await run_git({ cwd, args, signal });
  if (located.code !== 0) {
    if (/not a git repository/i.test(located.stderr)) throw not_a_repo(execution.project_root);
    throw git_failure(args, located, "Check that the project's git repository is readable (`git status` in the project).");
  }
  const [toplevel_line = "", prefix = ""] = located.stdout.toString("utf8").split("\n");
  const toplevel = fs.realpathSync(toplevel_line);
  if (toplevel !== cwd && !cwd.startsWith(toplevel + path.sep)) {
    throw air_failure({
      kind: "project_error",
      message: `the git work tree ${toplevel} does not contain the project ${cwd} (core.worktree points elsewhere)`,
      retryability: "retryable_after_change",
      user_action: "Fix the repository's core.worktree setting; air's git tools only work on the project's own tree.",
      metadata: { toplevel, project_root: cwd },
    });
  }
  const filters = await run_git({ cwd, args: ["config", "--null", "--name-only", "--get-regexp", "^filter\\."], signal });
  return { cwd, toplevel, prefix, config: filter_overrides(filters), signal };
}

/** Runs a git subcommand in the repository with its per-call configuration. */
export function git_in(repo: Repo, args: readonly string[], options: { stdin?: string; max_output_bytes?: number } = {}): Promise<GitResult> {
  return run_git({ cwd: repo.cwd, args, signal: repo.signal, config: repo.config, ...options });
}

/**
 * Pathspecs for the tool's paths: each relative to the project root (`.` for the root itself). A path
 * outside the project or inside git's internals is refused: git must not be pointed there.
 */
export function pathspecs(execution: ToolExecution, inputs: readonly string[]): string[] {
  return inputs.map((input) => {
    const located = locate(execution, input);
    if (!located.inside_project || located.relative === undefined) {
      throw air_failure({
        kind: "policy_error",
        message: `${input} is outside the project`,
        retryability: "retryable_after_change",
        user_action: "Name paths inside the project; the git tools work on the project only.",
        metadata: { path: input },
      });
    }
    if (located.category === "project_git_internal") {
      throw air_failure({
        kind: "policy_error",
        message: `${input} is inside git's internals`,
        retryability: "retryable_after_change",
        user_action: "Name files of the work tree, not of .git.",
        metadata: { path: input },
      });
    }
    return located.relative === "" ? "." : located.relative;
  });
}

/** A path git printed (relative to the top of the work tree) made relative to the project root. */
export function project_path(repo: Repo, repo_path: string): string {
  if (repo.prefix === "") return repo_path;
  return path.posix.relative(repo.prefix.replace(/\/$/, ""), repo_path);
}

import fs from "node:fs";
import path from "node:path";
import type { WorkspaceStrategy } from "../contracts/events/workspace.js";
import { git_run } from "./git.js";

/** Past this many files a copy per worker costs more than the parallelism gains: the wave runs serially. */
const MAX_COPY_FILES = 20_000;
const SKIPPED = new Set([".air", ".git", "build", "node_modules"]);

/** Files below `dir`, counted until `limit` is passed (then `limit + 1`). */
function count_files(dir: string, limit: number): number {
  let count = 0;
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined && count <= limit; next = pending.pop()) {
    for (const entry of fs.readdirSync(next, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) pending.push(path.join(next, entry.name));
      } else count += 1;
    }
  }
  return count;
}

export type StrategyAnswer = {
  readonly strategy: WorkspaceStrategy;
  readonly why: string;
  /** What the project is to git ("not a git repository", "git is not installed", …): the start of `why`. */
  readonly git: string;
};

/**
 * How workers of a parallel wave can be kept apart in this project; the Scheduler decides whether to use it
 * (a lone task stays in the main checkout). A git project whose root is its repository's top gets
 * worktrees; anything else a copy, unless the project is too large to copy, when work stays serial in `main`.
 */
export async function workspace_strategy_for(root: string): Promise<StrategyAnswer> {
  const top = await git_run(root, ["rev-parse", "--show-toplevel"]).catch(() => undefined);
  const toplevel = top?.code === 0 ? top.stdout.toString("utf8").trim() : undefined;
  if (toplevel !== undefined && fs.realpathSync(toplevel) === fs.realpathSync(root)) {
    return {
      strategy: "worktree",
      git: "a git repository",
      why: "a git repository: each worker gets a worktree on a branch of its own, merged back three-way",
    };
  }
  const files = count_files(root, MAX_COPY_FILES);
  const what =
    toplevel === undefined ? (top === undefined ? "git is not installed" : "not a git repository") : `a folder inside the git repository ${toplevel}`;
  if (files > MAX_COPY_FILES) {
    return {
      strategy: "main",
      git: what,
      why: `${what}, and over ${MAX_COPY_FILES.toLocaleString("en-US")} files to copy per worker: tasks run one at a time in the project`,
    };
  }
  return { strategy: "isolated_copy", git: what, why: `${what}: each worker gets a copy of the project (${files} files, without .air and build outputs)` };
}

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { LineChild, child_env } from "./child.js";
import { median } from "./stats.js";
import { VerificationError } from "./verify.js";

/**
 * The floor under the Scheduler's per-task overhead: what any runtime that gives a task a worktree, a worker
 * process and a merge must pay, done by hand in a copy of the same project — `git worktree add -b`, `git add`
 * + `git commit` of the task's file, `git merge --no-ff`, `git worktree remove` + `git branch -D`, and a bare
 * `node -e` child spawned until its first stdout line. Medians over the tasks, in ms.
 */
export type SchedulerFloor = {
  readonly worktree_ms: number;
  readonly commit_ms: number;
  readonly merge_ms: number;
  readonly remove_ms: number;
  readonly spawn_ms: number;
  readonly total_ms: number;
};

const LINE_TIMEOUT_MS = 15_000;

function git(cwd: string, ...args: string[]): void {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
}

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

async function bare_spawn(): Promise<number> {
  const child = new LineChild("node -e (one line)", process.execPath, ["-e", "process.stdout.write('ready\\n')"], child_env());
  try {
    const first = await child.next_line(LINE_TIMEOUT_MS);
    if (first.text !== "ready") throw new VerificationError(`node -e wrote ${first.text}`);
    return Number(first.at - child.spawned_at) / 1e6;
  } finally {
    await child.finish(LINE_TIMEOUT_MS);
  }
}

/** The floor for `keys.length` tasks, each writing `<key>/done.txt`, in `root` (a committed git checkout). */
export async function scheduler_floor(root: string, keys: readonly string[]): Promise<SchedulerFloor> {
  const parts = { worktree_ms: [] as number[], commit_ms: [] as number[], merge_ms: [] as number[], remove_ms: [] as number[], spawn_ms: [] as number[] };
  for (const key of keys) {
    const branch = `raw-${key}`;
    const worktree = path.join(root, ".air", "local", `raw-${key}`);
    parts.worktree_ms.push(timed(() => git(root, "worktree", "add", "--quiet", "-b", branch, worktree, "HEAD")));
    parts.spawn_ms.push(await bare_spawn());
    parts.commit_ms.push(
      timed(() => {
        fs.writeFileSync(path.join(worktree, key, "done.txt"), `done ${key}\n`);
        git(worktree, "add", "--all");
        git(worktree, "commit", "--quiet", "-m", `the task ${key}`);
      }),
    );
    parts.merge_ms.push(timed(() => git(root, "merge", "--quiet", "--no-ff", "--no-edit", branch)));
    parts.remove_ms.push(
      timed(() => {
        git(root, "worktree", "remove", worktree);
        git(root, "branch", "--quiet", "-D", branch);
      }),
    );
    if (!fs.existsSync(path.join(root, key, "done.txt"))) throw new VerificationError(`the raw merge of ${key} left no ${key}/done.txt`);
  }
  const floor = {
    worktree_ms: median(parts.worktree_ms),
    commit_ms: median(parts.commit_ms),
    merge_ms: median(parts.merge_ms),
    remove_ms: median(parts.remove_ms),
    spawn_ms: median(parts.spawn_ms),
  };
  return { ...floor, total_ms: Object.values(floor).reduce((total, value) => total + value, 0) };
}

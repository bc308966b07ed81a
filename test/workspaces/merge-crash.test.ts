/**
 * A merge SIGKILLed at random moments (seeds 000 §20.5, issue 12 "recovery mid-wave"): after `recover_merge`
 * the checkout is byte for byte what it was before the merge, or exactly the merged result — never half.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TaskId, WorkspaceId } from "../../src/contracts/ids.js";
import { new_id } from "../../src/contracts/ids.js";
import { commit_work } from "../../src/workspaces/commit.js";
import { journal_path } from "../../src/workspaces/journal.js";
import { recover_merge } from "../../src/workspaces/recover.js";
import { snapshot_checkout } from "../../src/workspaces/snapshot.js";
import { create_worktree, remove_worktree } from "../../src/workspaces/worktree.js";
import { checkout_state, init_air_repo, write_files, type Entry } from "../fixtures/checkout.js";
import { git } from "../fixtures/git-repo.js";
import { Child, TempDirs } from "../fixtures/processes.js";
import { seeded_random } from "../fixtures/prng.js";

const KILLS = 12;
const FILES = 300;
const dirs = new TempDirs();
const children: Child[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  dirs.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A project of FILES files with the user's edits, and a task that rewrites most of them, adds, deletes, chmods. */
async function template(): Promise<{ root: string; base_commit: string; task_commit: string }> {
  const root = path.join(dirs.make("air-merge-crash-"), "template");
  init_air_repo(root);
  const files = Object.fromEntries(Array.from({ length: FILES }, (_, n) => [`src/m${n % 10}/f${n}.c`, `int f${n};\nint g${n};\nint h${n};\n`]));
  write_files(root, { ...files, ".gitignore": "*.o\n" });
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  write_files(root, { "src/m0/f0.c": "int f0;\nint g0;\nint h0 = 0; /* user */\n", "user-notes.txt": "mine\n", "src/m1/f1.o": "ignored object\n" });
  const { commit: base_commit } = await snapshot_checkout(root);
  const task_id = new_id("task") as TaskId;
  const workspace_id = new_id("workspace") as WorkspaceId;
  const worktree = await create_worktree({ root, workspace_id, task_id, base_commit });
  const rewritten = Object.fromEntries(Array.from({ length: FILES - 40 }, (_, n) => [`src/m${n % 10}/f${n}.c`, `int f${n} = ${n};\nint g${n};\nint h${n};\n`]));
  const added = Object.fromEntries(Array.from({ length: 80 }, (_, n) => [`gen/d${n % 8}/new${n}.c`, `int new${n};\n`]));
  write_files(worktree.path, { ...rewritten, ...added, "src/m1/f1.o": "the task's object, committed\n", ".gitignore": "" });
  for (let n = FILES - 40; n < FILES - 20; n += 1) fs.rmSync(path.join(worktree.path, `src/m${n % 10}/f${n}.c`));
  for (let n = FILES - 20; n < FILES; n += 1) fs.chmodSync(path.join(worktree.path, `src/m${n % 10}/f${n}.c`), 0o755);
  const { head } = await commit_work({ path: worktree.path, message: "task" });
  await remove_worktree({ root, path: worktree.path });
  return { root, base_commit, task_commit: head };
}

function copy_of(source: string): string {
  const target = path.join(dirs.make("air-merge-crash-copy-"), "project");
  fs.cpSync(source, target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  return target;
}

async function run_to_end(root: string, base_commit: string, task_commit: string): Promise<{ ms: number }> {
  const child = new Child("merge-crasher.ts", [root, base_commit, task_commit]);
  children.push(child);
  await child.line((line) => line === "ready");
  const started = performance.now();
  await child.line((line) => line === "merged");
  const ms = performance.now() - started;
  await child.exit;
  return { ms };
}

describe("merge_into_checkout under SIGKILL", () => {
  it(`leaves the checkout before-or-merged, never half, across ${KILLS} kills and recover_merge`, async () => {
    const { root, base_commit, task_commit } = await template();
    const reference = copy_of(root);
    const before_reference = checkout_state(reference);
    const { ms: window } = await run_to_end(reference, base_commit, task_commit);
    const merged: Record<string, Entry> = checkout_state(reference);
    expect(merged).not.toEqual(before_reference);

    const seed = Date.now() % 2 ** 31;
    const random = seeded_random(seed);
    const outcomes: Record<string, number> = {};
    for (let kill = 0; kill < KILLS; kill += 1) {
      const context = `kill ${kill + 1}/${KILLS}, seed ${seed}`;
      const project = copy_of(root);
      const before = checkout_state(project);
      const child = new Child("merge-crasher.ts", [project, base_commit, task_commit]);
      children.push(child);
      await child.line((line) => line === "ready");
      // Spread over the merge's whole run (snapshot, merge-tree, writing, verification) and a little past it.
      await sleep(((kill + random()) / KILLS) * window * 1.2);
      child.kill("SIGKILL");
      await child.exit;
      const journal_left = fs.existsSync(journal_path(project));
      const recovery = await recover_merge(project);
      const key = `${journal_left ? "journal" : "no journal"} → ${recovery.kind}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      const after = checkout_state(project);
      expect(fs.existsSync(journal_path(project)), context).toBe(false);
      if (recovery.kind === "rolled_back") expect(after, context).toEqual(before);
      else expect([before, merged], `${context}: ${recovery.kind}`).toContainEqual(after);
    }
    console.log(`merge-crash: ${KILLS} kills over a ${window.toFixed(0)} ms merge (seed ${seed}): ${JSON.stringify(outcomes)}`);
    expect(outcomes["journal → rolled_back"] ?? 0, "at least one kill must land mid-merge").toBeGreaterThan(0);
  }, 180_000);
});

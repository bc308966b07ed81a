import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DIST } from "./dist.js";
import { median, ratios } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * Snapshot cost per edit (issue 17) on a project of FILES files: before each edit, the snapshot a file tool
 * takes of the path it writes (the built `SnapshotStore.take`), beside a plain `fs.copyFileSync` of the same
 * file measured in the same round. Also the whole-checkout snapshot a writing command takes before and after
 * it, and the first snapshot of the project (every file hashed once), as information.
 */
export type SnapshotBench = {
  readonly edit_ms: number;
  readonly copy_ms: number;
  /** Median of edit / copy, paired per edit. */
  readonly ratio: number;
  readonly scan_ms: number;
  readonly first_ms: number;
  readonly edits: number;
  readonly files: number;
};

type Store = typeof import("../src/project/snapshot-store.js");
type Ids = typeof import("../src/contracts/ids.js");

async function load<T>(module: string): Promise<T> {
  return (await import(new URL(module, DIST).href)) as T;
}

const { SnapshotStore } = await load<Store>("project/snapshot-store.js");
const ids = await load<Ids>("contracts/ids.js");

const FILES = 5_000;

function project(): string {
  const root = path.join(temp_dir("snapshot"), "project");
  for (let n = 0; n < FILES; n += 1) {
    const file = path.join(root, `src/d${n % 50}/f${n}.c`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `int f${n}(void) { return ${n}; }\n${"/* filler line of a source file */\n".repeat(30)}`);
  }
  return root;
}

function blob_of(git_dir: string, commit: string, relative: string): string {
  return execFileSync("git", [`--git-dir=${git_dir}`, "cat-file", "blob", `${commit}:${relative}`], {
    env: { PATH: process.env.PATH ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
}

export async function bench_snapshot(edits: number): Promise<SnapshotBench> {
  const root = project();
  const work = path.dirname(root);
  const store = new SnapshotStore(path.join(work, "backups"), path.join(work, "locks", "backups.lock"));
  const copies = path.join(work, "copies");
  fs.mkdirSync(copies);
  const session_id = ids.new_id("session");

  let started = performance.now();
  await store.take({ root, session_id, cause: "command", phase: "before" });
  const first_ms = performance.now() - started;

  const edit: number[] = [];
  const copy: number[] = [];
  for (let round = -5; round < edits; round += 1) {
    const relative = `src/d${(round * 37 + 500) % 50}/f${(round * 37 + 500) % FILES}.c`;
    const file = path.join(root, relative);
    started = performance.now();
    const record = await store.take({ root, session_id, cause: "tool", phase: "before", paths: [relative] });
    const edit_ms = performance.now() - started;
    started = performance.now();
    fs.copyFileSync(file, path.join(copies, `${round}.c`));
    const copy_ms = performance.now() - started;
    const before = fs.readFileSync(file, "utf8");
    if (blob_of(path.join(work, "backups", ".git"), record.commit, relative) !== before)
      throw new VerificationError(`the snapshot of ${relative} does not hold its bytes`);
    fs.writeFileSync(file, `${before}/* edit ${round} ${crypto.randomUUID()} */\n`);
    // The first rounds warm the page cache and git's start; they are not counted.
    if (round >= 0) {
      edit.push(edit_ms);
      copy.push(copy_ms);
    }
  }

  const scans: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    started = performance.now();
    const before = await store.take({ root, session_id, cause: "command", phase: "before" });
    fs.writeFileSync(path.join(root, `generated-${round}.h`), `#define ROUND ${round}\n`);
    const after = await store.take({ root, session_id, cause: "command", phase: "after", before });
    scans.push(performance.now() - started);
    if (!after.paths.includes(`generated-${round}.h`)) throw new VerificationError("the command's after snapshot missed the file it created");
  }
  remove_dir(work);
  return { edit_ms: median(edit), copy_ms: median(copy), ratio: median(ratios(edit, copy)), scan_ms: median(scans), first_ms, edits, files: FILES };
}

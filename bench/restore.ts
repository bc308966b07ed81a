import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { run_air } from "./child.js";
import { DIST } from "./dist.js";
import { median, ratios } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * `air restore time T --yes` (the built CLI, process start to exit) putting back CHANGED files air changed
 * after T, beside `git checkout -- .` putting the same files back from HEAD, on fresh copies of one project
 * of FILES files, interleaved. Both end with the same bytes in the changed files, which is checked. A bare
 * `node -e 0` is measured too: the share of the CLI's figure that is only starting Node.
 */
export type RestoreBench = {
  readonly air_ms: number;
  readonly git_ms: number;
  readonly node_ms: number;
  readonly ratio: number;
  readonly rounds: number;
  readonly files: number;
  readonly changed: number;
};

type Store = typeof import("../src/project/snapshot-store.js");
type Layout = typeof import("../src/project/layout.js");
type Ids = typeof import("../src/contracts/ids.js");

async function load<T>(module: string): Promise<T> {
  return (await import(new URL(module, DIST).href)) as T;
}

const { SnapshotStore } = await load<Store>("project/snapshot-store.js");
const { project_layout } = await load<Layout>("project/layout.js");
const { new_id } = await load<Ids>("contracts/ids.js");

const FILES = 1_000;
const CHANGED = 100;
const file_path = (n: number) => `src/d${n % 20}/f${n}.c`;
const CHANGED_PATHS = Array.from({ length: CHANGED }, (_, n) => file_path(n * (FILES / CHANGED)));

function env_for(root: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_") && !/^ANTHROPIC_/i.test(name)));
  return { ...env, AIR_HOME: path.join(path.dirname(root), "air-home") };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: env_for(cwd), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function original(relative: string): string {
  return `int ${path.basename(relative, ".c")};\n${"/* filler */\n".repeat(40)}`;
}

async function template(): Promise<string> {
  const root = path.join(temp_dir("restore"), "project");
  for (let n = 0; n < FILES; n += 1) {
    const relative = file_path(n);
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), original(relative));
  }
  git(root, "init", "--quiet", "--initial-branch=main");
  git(root, "config", "user.name", "Bench");
  git(root, "config", "user.email", "bench@example.com");
  const init = await run_air(["init", "--yes"], root, env_for(root), 60_000);
  if (init.code !== 0) throw new VerificationError(`air init failed: ${init.output}`);
  git(root, "add", "-A");
  git(root, "commit", "--quiet", "-m", "base");
  return root;
}

function copy(source: string): string {
  const target = path.join(temp_dir("restore-copy"), "project");
  fs.cpSync(source, target, { recursive: true, preserveTimestamps: true });
  git(target, "update-index", "-q", "--refresh");
  return target;
}

function change_files(root: string): void {
  for (const relative of CHANGED_PATHS) fs.writeFileSync(path.join(root, relative), `int changed; /* ${relative} */\n`);
}

/** air's change, as a file tool makes it: a snapshot of the paths, then the writes; returns a time just before. */
async function air_changes(root: string): Promise<string> {
  const before = new Date(Date.now() - 1).toISOString();
  await SnapshotStore.for_project(project_layout(root)).take({ root, session_id: new_id("session"), cause: "tool", phase: "before", paths: CHANGED_PATHS });
  change_files(root);
  return before;
}

function check_restored(root: string, who: string): void {
  for (const relative of CHANGED_PATHS) {
    if (fs.readFileSync(path.join(root, relative), "utf8") !== original(relative)) throw new VerificationError(`${who} left ${relative} changed`);
  }
}

async function air_once(root: string): Promise<number> {
  const at = await air_changes(root);
  const started = performance.now();
  const run = await run_air(["restore", "time", at, "--yes"], root, env_for(root), 120_000);
  const ms = performance.now() - started;
  if (run.code !== 0) throw new VerificationError(`air restore time failed: ${run.output}`);
  check_restored(root, "air restore");
  return ms;
}

function git_once(root: string): number {
  change_files(root);
  const started = performance.now();
  git(root, "checkout", "--", ".");
  const ms = performance.now() - started;
  check_restored(root, "git checkout");
  return ms;
}

function node_once(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", "0"]);
  return performance.now() - started;
}

export async function bench_restore(rounds: number): Promise<RestoreBench> {
  const source = await template();
  const air: number[] = [];
  const raw: number[] = [];
  const node: number[] = [];
  // One warm-up round of each, not counted: the page cache and git's first start.
  for (let round = -1; round < rounds; round += 1) {
    const air_root = copy(source);
    const git_root = copy(source);
    const air_ms = await air_once(air_root);
    const git_ms = git_once(git_root);
    const node_ms = node_once();
    if (round >= 0) {
      air.push(air_ms);
      raw.push(git_ms);
      node.push(node_ms);
    }
    remove_dir(path.dirname(air_root));
    remove_dir(path.dirname(git_root));
  }
  return { air_ms: median(air), git_ms: median(raw), node_ms: median(node), ratio: median(ratios(air, raw)), rounds, files: FILES, changed: CHANGED };
}

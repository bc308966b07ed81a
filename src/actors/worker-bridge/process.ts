import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { is_credential_variable } from "../../permissions/credentials.js";
import { LineSplitter, type LineSink } from "../../workers/protocol.js";
import type { WorkerEntry } from "./services.js";

export type WorkerProcess = ChildProcessWithoutNullStreams;

const STDERR_TAIL_CHARS = 4_000;

/** `base` without credentials: a worker holds none (DESIGN.md §5). */
export function worker_environment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(base).filter(([name, value]) => value !== undefined && !is_credential_variable(name)));
}

/**
 * `node <dist>/workers/main.js` from the build; from the sources (vitest, tsx) `node --import tsx
 * src/workers/main.ts`. Found relative to this module, so it works from any cwd.
 */
export function default_worker_entry(): WorkerEntry {
  if (import.meta.url.endsWith(".ts")) {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    return { command: process.execPath, args: ["--import", loader, fileURLToPath(new URL("../../workers/main.ts", import.meta.url))] };
  }
  return { command: process.execPath, args: [fileURLToPath(new URL("../../workers/main.js", import.meta.url))] };
}

/**
 * Starts `entry` with piped stdio in `base` without credentials, as the leader of its own process group, so
 * that ending it ends whatever it left running too. A spawn that fails at once throws.
 */
export function spawn_worker(entry: WorkerEntry, base: NodeJS.ProcessEnv): WorkerProcess {
  return spawn(entry.command, [...entry.args], { stdio: ["pipe", "pipe", "pipe"], env: worker_environment(base), detached: true });
}

/** The last characters a worker wrote to stderr: the detail of its errors. */
export class StderrTail {
  #text = "";

  get text(): string {
    return this.#text;
  }

  push(chunk: string): void {
    this.#text = (this.#text + chunk).slice(-STDERR_TAIL_CHARS);
  }
}

/** Wires the worker's pipes: stdout into NDJSON lines for `sink`, stderr into `stderr`, stdin errors ignored. */
export function wire_worker_pipes(child: WorkerProcess, sink: LineSink, stderr: StderrTail): void {
  const splitter = new LineSplitter(sink);
  child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stdout.on("end", () => splitter.end());
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr.push(chunk));
  // A worker that already exited closes its stdin; writing to it must not crash the parent.
  child.stdin.on("error", () => undefined);
}

/**
 * Sends `signal` to the worker's process group (it leads one, see `spawn_worker`): the worker and anything
 * still in its group, even once the worker itself has exited. A group that is gone is not an error.
 */
export function kill_worker(child: WorkerProcess | undefined, signal: NodeJS.Signals): void {
  if (child?.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: nothing is left in the group
  }
}

/**
 * Whether `child` still runs (or is stopped): not exited, not a zombie. A process that exited while something
 * else holds its pipes open has no "close" yet, and is gone all the same.
 */
export function worker_alive(child: WorkerProcess): boolean {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return false;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8");
  } catch {
    // No /proc (or the process is gone): ask the kernel directly.
    try {
      process.kill(child.pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  // "pid (comm) S …": the state letter follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

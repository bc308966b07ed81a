import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { VerificationError } from "./verify.js";

/**
 * Child processes for the worker benches: a clean environment, NDJSON lines read off stdout, and every
 * wait bounded, so a stuck or broken child fails the bench instead of hanging it or printing a figure.
 */

/** The bench's environment for children: no NODE_OPTIONS (a loader there would time the loader). */
export function child_env(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.NODE_OPTIONS;
  return env;
}

/** One stdout line and when it arrived (`process.hrtime.bigint()`). */
export type Line = { readonly text: string; readonly at: bigint };

export type Ended = { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stderr: string };

/** A spawned child whose stdout is read line by line. */
export class LineChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly spawned_at: bigint;
  readonly #label: string;
  readonly #lines: Line[] = [];
  #waiting: ((line: Line) => void) | undefined;
  #partial = "";
  #stderr = "";
  readonly #ended: Promise<Ended>;
  #exited = false;

  constructor(label: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
    this.#label = label;
    this.spawned_at = process.hrtime.bigint();
    this.child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"], env });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const at = process.hrtime.bigint();
      this.#partial += chunk;
      let newline: number;
      while ((newline = this.#partial.indexOf("\n")) >= 0) {
        const line: Line = { text: this.#partial.slice(0, newline), at };
        this.#partial = this.#partial.slice(newline + 1);
        const waiting = this.#waiting;
        if (waiting !== undefined) {
          this.#waiting = undefined;
          waiting(line);
        } else {
          this.#lines.push(line);
        }
      }
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4_000);
    });
    this.child.stdin.on("error", () => undefined);
    this.#ended = new Promise((resolve, reject) => {
      this.child.on("error", (error) => {
        this.#exited = true;
        reject(new VerificationError(`${label}: could not start: ${error.message}`));
      });
      this.child.on("close", (code, signal) => {
        this.#exited = true;
        resolve({ code, signal, stderr: this.#stderr });
      });
    });
    this.#ended.catch(() => undefined);
  }

  write(line: string): void {
    this.child.stdin.write(line.endsWith("\n") ? line : `${line}\n`);
  }

  /** The next stdout line, within `timeout_ms`. */
  next_line(timeout_ms: number): Promise<Line> {
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting = undefined;
        this.kill();
        reject(new VerificationError(`${this.#label}: no line on stdout within ${timeout_ms} ms; stderr: ${this.#stderr.trim() || "(empty)"}`));
      }, timeout_ms);
      this.#waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.#ended.then(
        () => {
          if (this.#waiting === undefined) return;
          this.#waiting = undefined;
          clearTimeout(timer);
          reject(new VerificationError(`${this.#label}: exited before writing a line; stderr: ${this.#stderr.trim() || "(empty)"}`));
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** Closes stdin and waits for the process to end, within `timeout_ms` (then SIGKILL and fail). */
  async finish(timeout_ms: number): Promise<Ended> {
    this.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill();
        reject(new VerificationError(`${this.#label}: still running ${timeout_ms} ms after its stdin closed`));
      }, timeout_ms);
    });
    try {
      return await Promise.race([this.#ended, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (!this.#exited) this.child.kill("SIGKILL");
  }
}

/** Rejects with a VerificationError when `promise` takes longer than `timeout_ms`. */
export async function within<T>(label: string, timeout_ms: number, promise: Promise<T>, on_timeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      on_timeout?.();
      reject(new VerificationError(`${label}: not done within ${timeout_ms} ms`));
    }, timeout_ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const AIR_BIN = fileURLToPath(new URL("../bin/air.js", import.meta.url));

/** One run of the built CLI to its end, stdout and stderr together; killed (code null) past `timeout_ms`. */
export function run_air(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeout_ms: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [AIR_BIN, ...args], { cwd, env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout_ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

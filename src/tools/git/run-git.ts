import { spawn } from "node:child_process";
import { air_failure, type AirFailure } from "../../contracts/errors.js";
import { scrub_env } from "../shell/env.js";
import { neutral_git_env } from "./neutral-config.js";

const GIT_TIMEOUT_MS = 60_000;
/** Bytes of stdout kept; past it git is stopped and the result marked truncated. */
const GIT_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
const STDERR_MAX_BYTES = 64 * 1024;

/**
 * Options every air git takes, before the subcommand: no pager, no optional index writes from read
 * commands, paths taken literally (no `:(glob)` magic), file names unquoted.
 */
const GLOBAL_ARGS = ["--no-pager", "--no-optional-locks", "--literal-pathspecs", "-c", "core.quotepath=off"];

export type GitRun = {
  /** Folder git runs in: the project root (real path) or a folder inside it. */
  cwd: string;
  /** Subcommand and its arguments; never passed through a shell. */
  args: readonly string[];
  signal: AbortSignal;
  /** Configuration added at command-line precedence (after the neutral configuration). */
  config?: readonly (readonly [key: string, value: string])[];
  stdin?: string;
  /** `GIT_INDEX_FILE`: an index of air's own (a snapshot's), so the user's index is never read for writing. */
  index_file?: string;
  timeout_ms?: number;
  max_output_bytes?: number;
};

export type GitResult = {
  code: number;
  stdout: Buffer;
  stderr: string;
  /** Stdout passed `max_output_bytes`: git was stopped and `stdout` holds the first bytes only. */
  truncated: boolean;
};

/** The environment of an air git: scrubbed, neutral configuration, plus `config` appended to it. */
function git_env(config: readonly (readonly [string, string])[] = [], index_file?: string): Record<string, string> {
  const env: Record<string, string> = { ...scrub_env(process.env), ...neutral_git_env(), LC_ALL: "C" };
  if (index_file !== undefined) env.GIT_INDEX_FILE = index_file;
  let count = Number(env.GIT_CONFIG_COUNT);
  for (const [key, value] of config) {
    env[`GIT_CONFIG_KEY_${count}`] = key;
    env[`GIT_CONFIG_VALUE_${count}`] = value;
    count += 1;
  }
  env.GIT_CONFIG_COUNT = String(count);
  return env;
}

function spawn_failure(error: NodeJS.ErrnoException): AirFailure {
  if (error.code === "ENOENT") {
    return air_failure(
      {
        kind: "env_error",
        message: "git is not installed (no `git` on PATH)",
        retryability: "retryable_after_change",
        user_action: "Install git (e.g. `apt-get install git`) and make sure it is on PATH.",
      },
      error,
    );
  }
  return air_failure(
    {
      kind: "env_error",
      message: `git could not be started: ${error.message}`,
      retryability: "unknown",
      user_action: "Check that git is installed and the project folder exists.",
    },
    error,
  );
}

/** git with its output piped and, when the run has input, its stdin piped too: fed the input, then closed. */
function spawn_git(run: GitRun) {
  const args = [...GLOBAL_ARGS, ...run.args];
  const options = { cwd: run.cwd, env: git_env(run.config, run.index_file) };
  if (run.stdin === undefined) return spawn("git", args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const child = spawn("git", args, { ...options, stdio: "pipe" });
  // git may exit before reading its input (a bad argument): the broken pipe is not the failure to report.
  child.stdin.on("error", () => undefined);
  child.stdin.end(run.stdin);
  return child;
}

function stopped_failure(reason: "timed_out" | "cancelled", args: readonly string[], timeout_ms: number): AirFailure {
  const command = `git ${args[0] ?? ""}`;
  if (reason === "cancelled") {
    return air_failure({
      kind: "tool_error",
      severity: "warning",
      message: `${command} was cancelled`,
      retryability: "retryable",
      user_action: "Run it again if it is still needed.",
      metadata: { cancelled: true },
    });
  }
  return air_failure({
    kind: "tool_error",
    message: `${command} timed out after ${timeout_ms} ms and was killed`,
    retryability: "retryable_after_change",
    user_action: "Narrow the request (fewer paths, a smaller range) or check for a very large repository.",
    metadata: { timeout_ms },
  });
}

/**
 * Runs git with an argument array (no shell), the scrubbed + neutral environment and the global hardening
 * options. Resolves with the exit code whatever it is; rejects only when git cannot start, times out or
 * is cancelled.
 */
export function run_git(run: GitRun): Promise<GitResult> {
  const timeout_ms = run.timeout_ms ?? GIT_TIMEOUT_MS;
  const max_output = run.max_output_bytes ?? GIT_MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    if (run.signal.aborted) {
      reject(stopped_failure("cancelled", run.args, timeout_ms));
      return;
    }
    const child = spawn_git(run);
    const stdout: Buffer[] = [];
    let stdout_bytes = 0;
    let stderr = "";
    let truncated = false;
    let stopped: "timed_out" | "cancelled" | undefined;
    const kill = () => child.kill("SIGKILL");
    const stop = (reason: "timed_out" | "cancelled") => {
      stopped ??= reason;
      kill();
    };
    const on_abort = () => stop("cancelled");
    const timer = setTimeout(() => stop("timed_out"), timeout_ms);
    run.signal.addEventListener("abort", on_abort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      run.signal.removeEventListener("abort", on_abort);
    };

    child.stdout.on("data", (chunk: Buffer) => {
      if (truncated) return;
      const room = max_output - stdout_bytes;
      stdout.push(chunk.byteLength <= room ? chunk : chunk.subarray(0, room));
      stdout_bytes += Math.min(chunk.byteLength, room);
      if (chunk.byteLength > room) {
        truncated = true;
        kill();
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < STDERR_MAX_BYTES) stderr += chunk.toString("utf8");
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(spawn_failure(error));
    });
    child.on("close", (code) => {
      cleanup();
      if (stopped !== undefined) reject(stopped_failure(stopped, run.args, timeout_ms));
      // Killed by us for its size, git did not fail: the head of its output is valid.
      else resolve({ code: code ?? (truncated ? 0 : 1), stdout: Buffer.concat(stdout), stderr: stderr.slice(0, STDERR_MAX_BYTES), truncated });
    });
  });
}

/** A git that exited non-zero, as a tool error carrying git's own message. */
export function git_failure(args: readonly string[], result: GitResult, user_action: string): AirFailure {
  const said = result.stderr.trim() || result.stdout.toString("utf8").trim() || `exit code ${result.code}`;
  const first = said.split("\n").find((line) => line.trim() !== "") ?? said;
  return air_failure({
    kind: "tool_error",
    message: `git ${args[0] ?? ""} failed: ${first.slice(0, 500)}`,
    detail: said.slice(0, 4000),
    retryability: "retryable_after_change",
    user_action,
    metadata: { exit_code: result.code },
  });
}

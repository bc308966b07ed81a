import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";
import * as v from "valibot";
import { air_failure, AirFailure, make_air_error, type AirError } from "../../contracts/errors.js";
import { ArtifactId, CommandRunId, new_id } from "../../contracts/ids.js";
import { define_tool, type ToolExecution } from "../define.js";
import { locate, PathInput } from "../fs/common.js";
import { scrub_env } from "./env.js";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 30 * 60_000;
/** Between SIGTERM and SIGKILL of the process group. */
export const KILL_GRACE_MS = 2_000;
/** Kept in memory (and in the artifact) per stream; beyond it the middle is dropped. */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Characters of each stream's end returned to the caller. */
export const TAIL_CHARS = 8_000;

export const ShellRunInput = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000), v.description("A bash command line, run with `bash --noprofile --norc -c`.")),
  cwd: v.optional(v.pipe(PathInput, v.description("Working folder inside the project (default: the project root).")), "."),
  timeout_ms: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT_MS), v.description(`Kill the command after this long (default ${DEFAULT_TIMEOUT_MS} ms).`)),
    DEFAULT_TIMEOUT_MS,
  ),
});

export const ShellRunOutput = v.strictObject({
  command_run_id: CommandRunId,
  exit_code: v.pipe(v.number(), v.integer()),
  stdout_tail: v.string(),
  stderr_tail: v.string(),
  stdout_truncated: v.boolean(),
  stderr_truncated: v.boolean(),
  stdout_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  stderr_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  stdout_artifact_id: ArtifactId,
  stderr_artifact_id: ArtifactId,
  duration_ms: v.pipe(v.number(), v.minValue(0)),
});

type StreamName = "stdout" | "stderr";

/** One output stream: every chunk up to the cap, plus a rolling tail so the end is never lost. */
class Capture {
  readonly #head: Buffer[] = [];
  #head_bytes = 0;
  #tail: Buffer[] = [];
  #tail_bytes = 0;
  total_bytes = 0;
  readonly #decoder = new StringDecoder("utf8");

  constructor(private readonly cap: number) {}

  /** Stores a chunk; returns its text for live deltas. */
  push(chunk: Buffer): string {
    this.total_bytes += chunk.byteLength;
    if (this.#head_bytes < this.cap) {
      const room = this.cap - this.#head_bytes;
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
      this.#head.push(part);
      this.#head_bytes += part.byteLength;
    }
    this.#tail.push(chunk);
    this.#tail_bytes += chunk.byteLength;
    while (this.#tail.length > 1 && this.#tail_bytes - this.#tail[0]!.byteLength >= this.cap / 4) {
      this.#tail_bytes -= this.#tail.shift()!.byteLength;
    }
    return this.#decoder.write(chunk);
  }

  flush(): string {
    return this.#decoder.end();
  }

  get overflowed(): boolean {
    return this.total_bytes > this.#head_bytes;
  }

  /** The full output, or (past the cap) its head and tail around a marker saying how much was dropped. */
  content(): Buffer {
    const head = Buffer.concat(this.#head);
    if (!this.overflowed) return head;
    const tail = Buffer.concat(this.#tail);
    const keep_tail = tail.subarray(Math.max(0, tail.byteLength - Math.floor(this.cap / 4)));
    const dropped = this.total_bytes - head.byteLength - keep_tail.byteLength;
    const marker = Buffer.from(`\n[air: ${dropped} bytes of output dropped here; ${this.total_bytes} bytes in all]\n`, "utf8");
    return Buffer.concat([head.subarray(0, head.byteLength - Math.floor(this.cap / 4)), marker, keep_tail]);
  }

  tail(chars: number): { text: string; truncated: boolean } {
    const source = this.overflowed ? Buffer.concat(this.#tail) : Buffer.concat(this.#head);
    const window = source.subarray(Math.max(0, source.byteLength - chars * 4));
    let text = window.toString("utf8");
    // A window that starts inside a multi-byte character decodes it as replacement characters.
    if (window.byteLength < source.byteLength) text = text.replace(/^\uFFFD+/, "");
    const sliced = text.length > chars;
    if (sliced) text = text.slice(text.length - chars);
    return { text, truncated: sliced || window.byteLength < this.total_bytes };
  }
}

type Ending =
  | { kind: "exited"; code: number }
  | { kind: "signalled"; signal: NodeJS.Signals; code: number | null }
  | { kind: "timed_out"; signal: NodeJS.Signals | null; code: number | null }
  | { kind: "cancelled"; signal: NodeJS.Signals | null; code: number | null }
  | { kind: "spawn_failed"; error: Error };

function kill_group(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Runs bash in its own process group, streaming both outputs, until it exits or is stopped. */
function run_bash(
  command: string,
  cwd: string,
  timeout_ms: number,
  signal: AbortSignal,
  on_chunk: (stream: StreamName, text: string) => void,
  captures: Record<StreamName, Capture>,
): Promise<Ending> {
  return new Promise((resolve) => {
    let stopping: "timed_out" | "cancelled" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    let child: ChildProcess;
    try {
      child = spawn("bash", ["--noprofile", "--norc", "-c", command], {
        cwd,
        env: scrub_env(process.env),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ kind: "spawn_failed", error: error as Error });
      return;
    }
    const finish = (ending: Ending) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      signal.removeEventListener("abort", on_abort);
      resolve(ending);
    };
    const stop = (reason: "timed_out" | "cancelled") => {
      if (stopping !== undefined || exit !== undefined) return;
      stopping = reason;
      kill_group(child, "SIGTERM");
      timers.push(setTimeout(() => kill_group(child, "SIGKILL"), KILL_GRACE_MS));
    };
    const on_abort = () => stop("cancelled");
    signal.addEventListener("abort", on_abort, { once: true });
    if (signal.aborted) stop("cancelled");
    timers.push(setTimeout(() => stop("timed_out"), timeout_ms));

    for (const name of ["stdout", "stderr"] as const) {
      const stream = child[name]!;
      stream.on("data", (chunk: Buffer) => {
        const text = captures[name].push(chunk);
        if (text !== "") on_chunk(name, text);
      });
    }
    child.on("error", (error) => {
      // Spawn failures (no bash, cwd vanished) arrive here; a kill failure would too, but kill_group catches it.
      if (child.pid === undefined) finish({ kind: "spawn_failed", error });
    });
    child.on("exit", (code, exit_signal) => {
      exit = { code, signal: exit_signal };
      // Whatever the command left running in its group (`cmd &`) would hold the pipes open: stop it.
      kill_group(child, "SIGTERM");
      timers.push(setTimeout(() => kill_group(child, "SIGKILL"), KILL_GRACE_MS));
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          conclude();
        }, KILL_GRACE_MS * 2),
      );
    });
    const conclude = () => {
      if (exit === undefined) return;
      for (const name of ["stdout", "stderr"] as const) {
        const rest = captures[name].flush();
        if (rest !== "") on_chunk(name, rest);
      }
      if (stopping === "timed_out") finish({ kind: "timed_out", signal: exit.signal, code: exit.code });
      else if (stopping === "cancelled") finish({ kind: "cancelled", signal: exit.signal, code: exit.code });
      else if (exit.code === null) finish({ kind: "signalled", signal: exit.signal ?? "SIGKILL", code: null });
      else finish({ kind: "exited", code: exit.code });
    };
    child.on("close", conclude);
  });
}

function ending_error(ending: Exclude<Ending, { kind: "exited" }>, command: string, timeout_ms: number): AirError {
  const metadata = { command };
  switch (ending.kind) {
    case "spawn_failed":
      return make_air_error({
        kind: "command_error",
        message: `the command could not be started: ${ending.error.message}`,
        retryability: "retryable_after_change",
        user_action: "Check that bash is installed and the working folder exists.",
        metadata,
      });
    case "timed_out":
      return make_air_error({
        kind: "command_error",
        message: `the command timed out after ${timeout_ms} ms and was killed`,
        retryability: "retryable_after_change",
        user_action: "Give it a longer timeout_ms, or make it finish sooner (a smaller test selection, no watch mode).",
        metadata: { ...metadata, timeout_ms },
      });
    case "cancelled":
      return make_air_error({
        kind: "command_error",
        severity: "warning",
        message: "the command was cancelled and killed",
        retryability: "retryable",
        user_action: "Run it again if it is still needed.",
        metadata,
      });
    case "signalled":
      return make_air_error({
        kind: "command_error",
        message: `the command was killed by ${ending.signal}`,
        retryability: "unknown",
        user_action: "Check whether something outside air stopped it (out of memory, another process).",
        metadata: { ...metadata, signal: ending.signal },
      });
  }
}

function describe_command(command: string): string {
  const line = command.split("\n")[0]!;
  return line.length > 200 || command.includes("\n") ? `${line.slice(0, 200)}…` : line;
}

export const shell_run = define_tool({
  name: "shell.run",
  version: 1,
  description:
    "Run a bash command in the project (`bash --noprofile --norc -c`, scrubbed environment, no credentials). " +
    "Returns the exit code and the end of stdout/stderr; the full output is saved as artifacts. Killed after timeout_ms.",
  category: "shell",
  input: ShellRunInput,
  output: ShellRunOutput,
  permissions: { executes: (input) => ({ command: input.command, cwd: input.cwd }) },
  async execute(input, execution) {
    const cwd = locate(execution, input.cwd);
    if (!fs.existsSync(cwd.real) || !fs.statSync(cwd.real).isDirectory()) {
      throw air_failure({
        kind: "tool_error",
        message: `the working folder ${cwd.display} does not exist`,
        retryability: "retryable_after_change",
        user_action: "Pass an existing folder of the project as cwd.",
        metadata: { cwd: cwd.display },
      });
    }
    return run_command(execution, input.command, cwd.real, input.timeout_ms);
  },
});

async function run_command(execution: ToolExecution, command: string, cwd: string, timeout_ms: number) {
  const command_run_id = new_id("command_run");
  const links = { task_id: execution.task_id, agent_id: execution.agent_id, origin_message_id: execution.origin_message_id };
  execution.emit("command.started", { command_run_id, command, cwd, tool_run_id: execution.tool_run_id, ...links });
  const started = performance.now();
  const captures = { stdout: new Capture(MAX_CAPTURE_BYTES), stderr: new Capture(MAX_CAPTURE_BYTES) };
  const ending = await run_bash(
    command,
    cwd,
    timeout_ms,
    execution.signal,
    (stream, chunk) => {
      try {
        execution.emit(stream === "stdout" ? "command.stdout.delta" : "command.stderr.delta", { command_run_id, chunk });
      } catch {
        // Live deltas are a convenience; the artifact keeps the output whatever happens to them.
      }
      execution.stream({ type: `command.${stream}`, command_run_id, chunk });
    },
    captures,
  );
  const duration_ms = Math.max(0, performance.now() - started);
  const artifact_of = (stream: StreamName) =>
    execution.artifact({
      type: "command_log",
      content: captures[stream].content(),
      original_name: `${stream}.log`,
      extension: ".log",
      mime_type: "text/plain",
      command_run_id,
    });
  const stdout_artifact = artifact_of("stdout");
  const stderr_artifact = artifact_of("stderr");
  const stdout = captures.stdout.tail(TAIL_CHARS);
  const stderr = captures.stderr.tail(TAIL_CHARS);
  const artifacts = { stdout_artifact_id: stdout_artifact.id, stderr_artifact_id: stderr_artifact.id };

  if (ending.kind !== "exited") {
    const error = ending_error(ending, describe_command(command), timeout_ms);
    const failed_error: AirError = {
      ...error,
      metadata: { ...error.metadata, command_run_id, ...artifacts, stdout_tail: stdout.text, stderr_tail: stderr.text },
    };
    const signal = ending.kind === "spawn_failed" ? undefined : ending.signal ?? undefined;
    const exit_code = ending.kind === "spawn_failed" ? undefined : ending.code ?? undefined;
    execution.emit("command.failed", {
      command_run_id,
      error,
      exit_code,
      signal,
      duration_ms,
      cancelled: ending.kind === "cancelled",
      ...artifacts,
    });
    throw new AirFailure(failed_error);
  }

  execution.emit("command.completed", { command_run_id, exit_code: ending.code, duration_ms, ...artifacts });
  execution.evidence({
    kind: "command_run",
    ref: command_run_id,
    claim: `\`${describe_command(command)}\` exited with code ${ending.code}`,
    command_run_id,
  });
  return {
    command_run_id,
    exit_code: ending.code,
    stdout_tail: stdout.text,
    stderr_tail: stderr.text,
    stdout_truncated: stdout.truncated,
    stderr_truncated: stderr.truncated,
    stdout_bytes: captures.stdout.total_bytes,
    stderr_bytes: captures.stderr.total_bytes,
    ...artifacts,
    duration_ms,
  };
}

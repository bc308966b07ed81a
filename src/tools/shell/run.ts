import fs from "node:fs";
import * as v from "valibot";
import { air_failure, make_air_error, type AirError } from "../../contracts/errors.js";
import { ArtifactId, CommandRunId, new_id } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool, ToolFailure, type ToolExecution } from "../define.js";
import { locate, PathInput } from "../fs/common.js";
import { Capture } from "./capture.js";
import { shell_env } from "./env.js";
import { run_process, type Ending, type Launch, type StreamName } from "./process.js";
import { bwrap_args, plan_sandbox } from "./sandbox-plan.js";
import { BWRAP_ACTION, require_sandbox, type SandboxMode } from "./sandbox.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 30 * 60_000;
/** Kept in memory (and in the artifact) per stream; beyond it the middle is dropped. */
const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Characters of each stream's end returned to the caller. */
const TAIL_CHARS = 8_000;

const ShellRunInput = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000), v.description("A bash command line, run with `bash --noprofile --norc -c`.")),
  cwd: v.optional(v.pipe(PathInput, v.description("Working folder inside the project (default: the project root).")), "."),
  timeout_ms: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_TIMEOUT_MS),
      v.description(`Kill the command after this long (default ${DEFAULT_TIMEOUT_MS} ms).`),
    ),
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
  sandbox: v.pipe(v.picklist(["bwrap", "none"]), v.description("bwrap: the command could write only the task's write area and build folders.")),
  effects: ToolEffects,
});

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
  const [line = ""] = command.split("\n");
  return line.length > 200 || command.includes("\n") ? `${line.slice(0, 200)}…` : line;
}

export const shell_run = define_tool({
  name: "shell.run",
  version: 1,
  description:
    "Run a bash command in the project (`bash --noprofile --norc -c`, scrubbed environment, no credentials). " +
    "Under the bwrap sandbox it can write only the project (or the task's write area) and its build folders, " +
    "not .git or .air, and has no network unless the command is a network command that was allowed. " +
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
    return run_command(execution, input.command, launch_of(execution, input.command, cwd.real), input.timeout_ms);
  },
});

/**
 * Whether the command keeps the network: the CommandRiskAnalyzer classified one of its commands as
 * network and the decision let it run (a prompt was answered yes, a rule or the mode allowed it).
 */
function allows_network(execution: ToolExecution): boolean {
  return execution.permission.analysis?.commands.some((command) => command.categories.includes("network")) ?? false;
}

/**
 * A confined task's command without bwrap: only the analyzer would stand between a program it cannot read
 * (a Makefile, a script) and the main checkout, so it does not run — unless the user chose AIR_SANDBOX=off.
 */
function unconfined_error(workspace_id: string, why: string) {
  return air_failure({
    kind: "env_error",
    message: `a command of the task in workspace ${workspace_id} must run in the sandbox, and ${why}`,
    retryability: "retryable_after_change",
    user_action: BWRAP_ACTION,
    metadata: { workspace_id },
  });
}

/** bash with the shell environment, inside bwrap when the sandbox is on (DESIGN §6). */
function launch_of(execution: ToolExecution, command: string, cwd: string): Launch & { mode: SandboxMode } {
  const argv = ["bash", "--noprofile", "--norc", "-c", command] as const;
  const env = shell_env(process.env);
  const choice = require_sandbox();
  if (choice.mode === "none" || choice.probe?.ok !== true) {
    if (execution.workspace !== undefined && choice.setting !== "off") throw unconfined_error(execution.workspace.workspace_id, choice.reason);
    return { argv, cwd, env, mode: "none" };
  }
  const plan = plan_sandbox({
    project_root: execution.project_root,
    cwd,
    scope: execution.scope,
    network: allows_network(execution),
    ...(execution.workspace === undefined ? {} : { workspace: execution.workspace }),
  });
  return {
    argv,
    bwrap: { path: choice.probe.path, args: bwrap_args(plan) },
    cwd,
    // /tmp is the sandbox's own; a TMPDIR elsewhere would be read-only.
    env: { ...env, TMPDIR: "/tmp" },
    mode: "bwrap",
  };
}

async function run_command(execution: ToolExecution, command: string, launch: Launch & { mode: SandboxMode }, timeout_ms: number) {
  const cwd = launch.cwd;
  const command_run_id = new_id("command_run");
  const links = { task_id: execution.task_id, agent_id: execution.agent_id, origin_message_id: execution.origin_message_id };
  execution.emit("command.started", { command_run_id, command, cwd, tool_run_id: execution.tool_run_id, ...links });
  const started = performance.now();
  const captures = { stdout: new Capture(MAX_CAPTURE_BYTES), stderr: new Capture(MAX_CAPTURE_BYTES) };
  const ending = await run_process(
    launch,
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
  const ran = (exit_code: number | null) => ({ command_runs: [{ command_run_id, command, exit_code, duration_ms, ...artifacts }] });

  if (ending.kind !== "exited") {
    const error = ending_error(ending, describe_command(command), timeout_ms);
    const failed_error: AirError = {
      ...error,
      metadata: { ...error.metadata, command_run_id, ...artifacts, stdout_tail: stdout.text, stderr_tail: stderr.text, sandbox: launch.mode },
    };
    const signal = ending.kind === "spawn_failed" ? undefined : (ending.signal ?? undefined);
    const exit_code = ending.kind === "spawn_failed" ? undefined : (ending.code ?? undefined);
    execution.emit("command.failed", {
      command_run_id,
      error,
      exit_code,
      signal,
      duration_ms,
      cancelled: ending.kind === "cancelled",
      ...artifacts,
    });
    throw new ToolFailure(failed_error, ran(null));
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
    sandbox: launch.mode,
    effects: ran(ending.code),
  };
}

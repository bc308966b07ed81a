import * as v from "valibot";
import { air_failure, make_air_error, type AirError } from "../../contracts/errors.js";
import { ArtifactId, CommandRunId, new_id } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { ToolFailure, type ToolExecution } from "../define.js";
import { Capture } from "./capture.js";
import { shell_env } from "./env.js";
import { run_process, type Ending, type Launch, type StreamName } from "./process.js";
import { bwrap_args, plan_sandbox } from "./sandbox-plan.js";
import { BWRAP_ACTION, require_sandbox, type SandboxMode } from "./sandbox.js";
import { snapshot_before_command } from "../snapshots.js";

/** Kept in memory (and in the artifact) per stream; beyond it the middle is dropped. */
const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Characters of each stream's end returned to the caller. */
const TAIL_CHARS = 8_000;

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
export type ShellRunOutput = v.InferInput<typeof ShellRunOutput>;

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
function launch_of(execution: ToolExecution, shell: ShellCommand): Launch & { mode: SandboxMode } {
  const { command, cwd } = shell;
  const argv = ["bash", "--noprofile", "--norc", "-c", command] as const;
  const env = { ...shell_env(process.env), ...(shell.env ?? {}) };
  if (shell.on_host === true && execution.workspace === undefined) return { argv, cwd, env, mode: "none" };
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

/** One command a tool runs: the bash command line the permission engine judged, in a folder it checked. */
export type ShellCommand = {
  readonly command: string;
  /** The real (resolved) working folder. */
  readonly cwd: string;
  readonly timeout_ms: number;
  /** Set on top of the scrubbed shell environment (a tool's deterministic locale, no colour). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Outside bwrap: only doctor's install commands, which write system folders and which the user confirmed
   * one by one; never a task's command in a workspace.
   */
  readonly on_host?: boolean;
};

/** What a command produced: the recorded output, and the captured streams whole for a tool that parses them. */
export type ShellCommandResult = { readonly output: ShellRunOutput; readonly stdout: Buffer; readonly stderr: Buffer };

/**
 * Runs a command as `shell.run` does — sandboxed, recorded as `command.*` events, its streams saved as artifacts,
 * its exit as `command_run` evidence — for every tool that runs commands (`shell.run`, `cpp.*`). A command that
 * could not finish throws a `ToolFailure` carrying its command run.
 */
export async function run_shell_command(execution: ToolExecution, shell: ShellCommand): Promise<ShellCommandResult> {
  const { command, cwd, timeout_ms } = shell;
  const launch = launch_of(execution, shell);
  const command_run_id = new_id("command_run");
  const snapshots = await snapshot_before_command(execution, command_run_id, shell.on_host === true);
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
  const not_recorded = await snapshots?.after();

  if (ending.kind !== "exited") {
    const error = ending_error(ending, describe_command(command), timeout_ms);
    const failed_error: AirError = {
      ...error,
      metadata: {
        ...error.metadata,
        command_run_id,
        ...artifacts,
        stdout_tail: stdout.text,
        stderr_tail: stderr.text,
        sandbox: launch.mode,
        ...(not_recorded === undefined ? {} : { snapshot_error: not_recorded.message }),
      },
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
  if (not_recorded !== undefined) throw new ToolFailure(not_recorded, ran(ending.code));
  execution.evidence({
    kind: "command_run",
    ref: command_run_id,
    claim: `\`${describe_command(command)}\` exited with code ${ending.code}`,
    command_run_id,
  });
  const output = {
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
  return { output, stdout: captures.stdout.content(), stderr: captures.stderr.content() };
}

import * as v from "valibot";
import { JsonObject } from "../entity.js";
import { AirError } from "../errors.js";
import { AgentId, ArtifactId, CommandRunId, EvidenceId, MessageId, TaskId, ToolRunId, DiagnosticId } from "../ids.js";
import { durable, ephemeral } from "./define.js";
import { Duration, ExitCode, NonEmpty, Reason } from "./common.js";

const origin = {
  task_id: v.optional(TaskId),
  agent_id: v.optional(AgentId),
  origin_message_id: v.optional(MessageId),
};

const OutputChunk = v.strictObject({ command_run_id: CommandRunId, chunk: v.string() });

export const tool_events = {
  "tool.started": durable(
    v.strictObject({
      tool_run_id: ToolRunId,
      tool_name: NonEmpty,
      tool_version: v.pipe(v.number(), v.integer(), v.minValue(1)),
      input: JsonObject,
      ...origin,
    }),
    "Inserts tool_runs (running) before the tool executes, so a crash mid-call is visible on recovery.",
  ),
  "tool.completed": durable(
    v.strictObject({
      tool_run_id: ToolRunId,
      output: v.unknown(),
      artifact_ids: v.optional(v.array(ArtifactId), []),
      evidence_ids: v.optional(v.array(EvidenceId), []),
      duration_ms: Duration,
    }),
    "tool_runs.status = ok with output, artifacts, evidence and duration.",
  ),
  "tool.failed": durable(v.strictObject({ tool_run_id: ToolRunId, error: AirError, duration_ms: v.optional(Duration) }), "tool_runs.status = error."),
  "tool.cancelled": durable(v.strictObject({ tool_run_id: ToolRunId, reason: Reason }), "tool_runs.status = cancelled."),
  "tool.progress": ephemeral(v.strictObject({ tool_run_id: ToolRunId, message: NonEmpty }), "Live progress of a long tool call.", {
    mode: "latest",
    key: "tool_run_id",
  }),
} as const;

export const command_events = {
  "command.started": durable(
    v.strictObject({
      command_run_id: CommandRunId,
      command: NonEmpty,
      cwd: NonEmpty,
      tool_run_id: v.optional(ToolRunId),
      ...origin,
    }),
    "Inserts command_runs; its derived status is running until completed_at is set.",
  ),
  "command.completed": durable(
    v.strictObject({
      command_run_id: CommandRunId,
      exit_code: ExitCode,
      duration_ms: Duration,
      stdout_artifact_id: v.optional(ArtifactId),
      stderr_artifact_id: v.optional(ArtifactId),
      diagnostic_ids: v.optional(v.array(DiagnosticId), []),
    }),
    "The command exited (any exit code): sets exit code, artifacts, diagnostics and duration.",
  ),
  "command.failed": durable(
    v.strictObject({
      command_run_id: CommandRunId,
      error: AirError,
      exit_code: v.optional(ExitCode),
      signal: v.optional(NonEmpty),
      duration_ms: v.optional(Duration),
      cancelled: v.optional(v.boolean(), false),
      stdout_artifact_id: v.optional(ArtifactId),
      stderr_artifact_id: v.optional(ArtifactId),
    }),
    "The command could not run to an exit (spawn error, timeout, signal, cancellation).",
  ),
  "command.stdout.delta": ephemeral(OutputChunk, "Live stdout of a command.", {
    mode: "append",
    key: "command_run_id",
    text: "chunk",
  }),
  "command.stderr.delta": ephemeral(OutputChunk, "Live stderr of a command.", {
    mode: "append",
    key: "command_run_id",
    text: "chunk",
  }),
  "stdout.delta": ephemeral(OutputChunk, "Seeds 001 D-040 name for command stdout deltas from a worker.", {
    mode: "append",
    key: "command_run_id",
    text: "chunk",
  }),
  "stderr.delta": ephemeral(OutputChunk, "Seeds 001 D-040 name for command stderr deltas from a worker.", {
    mode: "append",
    key: "command_run_id",
    text: "chunk",
  }),
} as const;

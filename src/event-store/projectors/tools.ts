import { command_runs, tool_runs } from "../../db/schema.js";
import { insert_row, json, update_rows } from "../rows.js";
import { expect_one, type Projection } from "./projection.js";

export const tool_started: Projection<"tool.started"> = (event, { connection }) => {
  const { tool_run_id, tool_name, tool_version, input, task_id, agent_id, origin_message_id } = event.payload;
  insert_row(connection, tool_runs, {
    id: tool_run_id,
    session_id: event.session_id,
    tool_name,
    tool_version,
    status: "running",
    input_json: JSON.stringify(input),
    task_id,
    agent_id,
    origin_message_id,
    started_at: event.timestamp,
  });
};

/** A tool run ends once: only a running row may take a terminal status. */
function end_tool_run(
  connection: Parameters<Projection<"tool.completed">>[1]["connection"],
  event: Parameters<Projection<"tool.completed" | "tool.failed" | "tool.cancelled">>[0],
  set: Omit<Partial<typeof tool_runs.$inferInsert>, "status"> & { status: "ok" | "error" | "cancelled" },
) {
  const changes = update_rows(
    connection,
    tool_runs,
    { id: event.payload.tool_run_id, status: "running" },
    {
      ...set,
      completed_at: event.timestamp,
    },
  );
  expect_one(changes, event, `tool run ${event.payload.tool_run_id} is not running`);
}

export const tool_completed: Projection<"tool.completed"> = (event, { connection }) => {
  const { output, artifact_ids, evidence_ids, duration_ms } = event.payload;
  end_tool_run(connection, event, {
    status: "ok",
    output_json: JSON.stringify(output ?? null),
    artifact_ids_json: JSON.stringify(artifact_ids),
    evidence_ids_json: JSON.stringify(evidence_ids),
    duration_ms: Math.round(duration_ms),
  });
};

export const tool_failed: Projection<"tool.failed"> = (event, { connection }) => {
  const { error, duration_ms } = event.payload;
  end_tool_run(connection, event, {
    status: "error",
    error_json: JSON.stringify(error),
    duration_ms: duration_ms === undefined ? undefined : Math.round(duration_ms),
  });
};

export const tool_cancelled: Projection<"tool.cancelled"> = (event, { connection }) => {
  end_tool_run(connection, event, { status: "cancelled", error_json: json({ reason: event.payload.reason }) });
};

export const command_started: Projection<"command.started"> = (event, { connection }) => {
  const { command_run_id, command, cwd, tool_run_id, task_id, agent_id, origin_message_id } = event.payload;
  insert_row(connection, command_runs, {
    id: command_run_id,
    session_id: event.session_id,
    command,
    cwd,
    tool_run_id,
    task_id,
    agent_id,
    origin_message_id,
    started_at: event.timestamp,
  });
};

function end_command_run(
  connection: Parameters<Projection<"command.completed">>[1]["connection"],
  event: Parameters<Projection<"command.completed" | "command.failed">>[0],
  set: Partial<typeof command_runs.$inferInsert>,
) {
  const changes = update_rows(
    connection,
    command_runs,
    { id: event.payload.command_run_id, completed_at: null },
    {
      ...set,
      completed_at: event.timestamp,
    },
  );
  expect_one(changes, event, `command run ${event.payload.command_run_id} is unknown or already ended`);
}

export const command_completed: Projection<"command.completed"> = (event, { connection }) => {
  const { exit_code, duration_ms, stdout_artifact_id, stderr_artifact_id, diagnostic_ids } = event.payload;
  end_command_run(connection, event, {
    exit_code,
    duration_ms: Math.round(duration_ms),
    stdout_artifact_id,
    stderr_artifact_id,
    diagnostic_ids_json: JSON.stringify(diagnostic_ids),
  });
};

export const command_failed: Projection<"command.failed"> = (event, { connection }) => {
  const { error, exit_code, signal, duration_ms, cancelled, stdout_artifact_id, stderr_artifact_id } = event.payload;
  end_command_run(connection, event, {
    exit_code,
    signal,
    duration_ms: duration_ms === undefined ? undefined : Math.round(duration_ms),
    error_json: JSON.stringify(error),
    cancelled_at: cancelled ? event.timestamp : undefined,
    cancel_reason: cancelled ? error.message : undefined,
    stdout_artifact_id,
    stderr_artifact_id,
  });
};

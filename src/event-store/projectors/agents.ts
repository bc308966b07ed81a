import type { AgentStatus } from "../../contracts/status.js";
import { agents } from "../../db/schema.js";
import { insert_row, json, update_rows } from "../rows.js";
import { moved_status, type Projection, type ProjectionTarget } from "./projection.js";

export const agent_started: Projection<"agent.started"> = (event, target) => {
  const { agent_id, agent_type, task_id, pid, model_id } = event.payload;
  const status = moved_status<AgentStatus>(target);
  const announced = update_rows(target.connection, agents, { id: agent_id }, { status, pid });
  if (announced === 1) return;
  insert_row(target.connection, agents, {
    id: agent_id,
    session_id: event.session_id,
    agent_type,
    task_id,
    status,
    pid,
    model_id,
    started_at: event.timestamp,
  });
};

function end_agent(target: ProjectionTarget, agent_id: string, at: string, details: { exit_code?: number; reason?: string; error?: unknown }) {
  update_rows(
    target.connection,
    agents,
    { id: agent_id },
    {
      status: moved_status<AgentStatus>(target),
      ended_at: at,
      exit_code: details.exit_code,
      status_reason: details.reason,
      error_json: json(details.error),
    },
  );
}

export const agent_completed: Projection<"agent.completed"> = (event, target) => {
  end_agent(target, event.payload.agent_id, event.timestamp, { exit_code: event.payload.exit_code });
};

export const agent_failed: Projection<"agent.failed"> = (event, target) => {
  const { agent_id, error, exit_code } = event.payload;
  end_agent(target, agent_id, event.timestamp, { exit_code, error, reason: error.message });
};

export const agent_lost: Projection<"agent.lost"> = (event, target) => {
  end_agent(target, event.payload.agent_id, event.timestamp, { reason: event.payload.reason });
};

export const agent_cancelled: Projection<"agent.cancelled"> = (event, target) => {
  end_agent(target, event.payload.agent_id, event.timestamp, { reason: event.payload.reason });
};

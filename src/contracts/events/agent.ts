import * as v from "valibot";
import { AirError } from "../errors.js";
import { AgentId, TaskId, Timestamp } from "../ids.js";
import { AgentType, WorkerResult } from "../worker-result.js";
import { durable, ephemeral } from "./define.js";
import { ExitCode, NonEmpty, Reason } from "./common.js";

export const agent_events = {
  "agent.started": durable(
    v.strictObject({
      agent_id: AgentId,
      agent_type: AgentType,
      status: v.picklist(["starting", "running"]),
      task_id: v.optional(TaskId),
      pid: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      model_id: v.optional(NonEmpty),
    }),
    "Inserts the agents row as starting (before the worker handshake) or running (after it); re-emitted with running to move a starting agent on.",
  ),
  "agent.completed": durable(
    // The worker's result is kept with its end: a task whose merge a crash cut off is merged on resume from it.
    v.strictObject({ agent_id: AgentId, exit_code: v.optional(ExitCode), worker_result: v.optional(WorkerResult) }),
    "agents.status = completed.",
  ),
  "agent.failed": durable(v.strictObject({ agent_id: AgentId, error: AirError, exit_code: v.optional(ExitCode) }), "agents.status = failed."),
  "agent.lost": durable(
    v.strictObject({ agent_id: AgentId, reason: Reason, last_heartbeat_at: v.optional(Timestamp) }),
    "The worker vanished without a result; agents.status = lost.",
  ),
  "agent.cancelled": durable(v.strictObject({ agent_id: AgentId, reason: Reason }), "agents.status = cancelled."),
  "agent.heartbeat": ephemeral(
    v.strictObject({ agent_id: AgentId, task_id: v.optional(TaskId) }),
    "Liveness ping; folded into agents.last_heartbeat_at by the monitor, never replayed.",
    { mode: "latest", key: "agent_id" },
  ),
} as const;

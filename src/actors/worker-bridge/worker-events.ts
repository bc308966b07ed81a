import type { AgentId } from "../../contracts/ids.js";
import { is_durable, type EventOrigin, type RuntimeEvent } from "../../contracts/events/registry.js";
import type { AgentType } from "../../contracts/worker-result.js";

/**
 * The envelope of a worker's events is stamped by the parent: the worker names only type and payload, so
 * it can speak for no one but itself.
 */
export function worker_event_origin(session_origin: EventOrigin, agent_id: AgentId, agent_type: AgentType): EventOrigin {
  return {
    ...session_origin,
    source: { kind: "agent", id: agent_id, agent_type },
    route: ["main", "scheduler", agent_id],
  };
}

/** A worker's own lifecycle is the parent's to record, and its heartbeats are about itself. */
export function refusal_of(event: RuntimeEvent, agent_id: AgentId): string | undefined {
  if (is_durable(event) && event.type.startsWith("agent.")) return `"${event.type}" is recorded by the parent, not by the worker`;
  if (event.type === "agent.heartbeat" && event.payload.agent_id !== agent_id) return `a heartbeat for another agent (${event.payload.agent_id})`;
  return undefined;
}

import * as v from "valibot";
import { AgentType } from "../worker-result.js";
import { EventId, ProjectId, SessionId, Timestamp } from "../ids.js";

export const EventSourceKind = v.picklist(["main", "architecture_designer", "scheduler", "agent", "tool", "system", "user"]);
export type EventSourceKind = v.InferOutput<typeof EventSourceKind>;

export const EventSource = v.strictObject({
  kind: EventSourceKind,
  id: v.optional(v.pipe(v.string(), v.minLength(1))),
  agent_type: v.optional(AgentType),
});
export type EventSource = v.InferOutput<typeof EventSource>;

const RouteSegment = v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.excludes("/", "a route segment cannot contain '/'"));

/**
 * The envelope of seeds 001 D-038. `payload` is checked separately against the registry entry named by
 * `type` + `version`, so that an unknown type is reported as such rather than as a payload mismatch.
 */
export const EventEnvelope = v.strictObject({
  id: EventId,
  type: v.pipe(v.string(), v.regex(/^[a-z_]+(\.[a-z_]+)+$/, "expected a dotted event type such as task.created")),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  timestamp: Timestamp,
  session_id: SessionId,
  project_id: v.optional(ProjectId),
  source: EventSource,
  route: v.pipe(v.array(RouteSegment), v.minLength(1, "route needs at least its producer")),
  payload: v.unknown(),
});
export type EventEnvelope = v.InferOutput<typeof EventEnvelope>;

import type { RuntimeEvent } from "../contracts/events/registry.js";
import type { events } from "./schema.js";

export type EventRow = typeof events.$inferSelect;

/**
 * Rebuilds an envelope from its `events` row, exactly as it was appended. Type-only imports, so readers
 * that skip drizzle (`air history`) can use it.
 */
export function event_from_row(row: Omit<EventRow, "seq">): RuntimeEvent {
  return {
    id: row.id,
    type: row.type,
    version: Number(row.version),
    timestamp: row.timestamp,
    session_id: row.session_id,
    ...(row.project_id === null ? {} : { project_id: row.project_id }),
    source: {
      kind: row.source_kind,
      ...(row.source_id === null ? {} : { id: row.source_id }),
      ...(row.source_agent_type === null ? {} : { agent_type: row.source_agent_type }),
    },
    route: JSON.parse(row.route_json) as string[],
    payload: JSON.parse(row.payload_json) as unknown,
  } as RuntimeEvent;
}

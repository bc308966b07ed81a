import type { RuntimeEvent } from "../contracts/events/registry.js";
import { field } from "../contracts/field.js";

/** The entities an event can belong to: the indexed columns of the `events` table and the bus's filter keys. */
export const REF_KEYS = ["task_id", "agent_id", "tool_run_id", "command_run_id"] as const;
export type RefKey = (typeof REF_KEYS)[number];

/**
 * Which task (agent, tool run, command run) an event belongs to: the id under `key` in its payload, except
 * for `task.created`, which carries its task's id inside the spec. The store indexes by it and the bus filters
 * by it, so a live subscriber and a query over the same filter see the same events.
 */
export function ref_of(event: RuntimeEvent, key: RefKey): string | undefined {
  const value = key === "task_id" && event.type === "task.created" ? event.payload.task.id : field(event.payload, key);
  return typeof value === "string" ? value : undefined;
}

import * as v from "valibot";
import { AgentId, CommandRunId, TaskId, ToolRunId } from "../ids.js";

/** What `EventStore.query` and `EventBus.subscribe` select on. Every field narrows; none means all. */
export const EventFilter = v.strictObject({
  types: v.optional(v.array(v.string())),
  task_id: v.optional(TaskId),
  agent_id: v.optional(AgentId),
  tool_run_id: v.optional(ToolRunId),
  command_run_id: v.optional(CommandRunId),
  /** Events whose route starts with these segments, e.g. ["main", "scheduler"]. */
  route_prefix: v.optional(v.array(v.string())),
  /** Only events committed after this sequence number (a cursor from a previous query). */
  after_seq: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000))),
  order: v.optional(v.picklist(["asc", "desc"])),
});
export type EventFilter = v.InferOutput<typeof EventFilter>;

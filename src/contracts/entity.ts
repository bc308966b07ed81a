import * as v from "valibot";

export const EntityType = v.picklist([
  "project",
  "session",
  "message",
  "event",
  "task",
  "attempt",
  "agent",
  "tool_run",
  "command_run",
  "artifact",
  "diagnostic",
  "evidence",
  "workspace",
  "summary",
  "capability",
  "permission",
  "debug_record",
  "memory",
  "file",
]);
export type EntityType = v.InferOutput<typeof EntityType>;

export const EntityRef = v.strictObject({ type: EntityType, id: v.pipe(v.string(), v.minLength(1)) });
export type EntityRef = v.InferOutput<typeof EntityRef>;

/** Free-form JSON objects (metadata, tool inputs); values must survive JSON round-trips. */
export const JsonObject = v.record(v.string(), v.unknown());
export type JsonObject = v.InferOutput<typeof JsonObject>;

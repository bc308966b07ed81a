import * as v from "valibot";
import { JsonObject } from "./entity.js";
import { AirError } from "./errors.js";
import { ToolRunId } from "./ids.js";

/** The internal tool through which every model call passes (DESIGN §5): workers and the parent name it alike. */
export const MODEL_COMPLETE_TOOL = "model.complete";

/** Tool categories of seeds 001 D-044. */
export const ToolCategory = v.picklist([
  "filesystem",
  "shell",
  "build",
  "test",
  "debug",
  "static_analysis",
  "gui",
  "network",
  "memory",
  "project",
  "internal",
]);
export type ToolCategory = v.InferOutput<typeof ToolCategory>;

const ToolName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, "expected a dotted tool name such as fs.read"));

/** A request to run a tool, as a worker sends it in `tool.call` and the parent's registry receives it. */
export const ToolCall = v.strictObject({ tool_name: ToolName, input: JsonObject });
export type ToolCall = v.InferOutput<typeof ToolCall>;

/** The answer to a `ToolCall`: the validated output, or why there is none. */
export const ToolOutcome = v.variant("ok", [
  v.strictObject({ ok: v.literal(true), tool_run_id: ToolRunId, output: v.unknown() }),
  v.strictObject({ ok: v.literal(false), tool_run_id: v.optional(ToolRunId), error: AirError }),
]);
export type ToolOutcome = v.InferOutput<typeof ToolOutcome>;

/** What the model sees of a tool: name, description and the JSON Schema of its input. */
export const ToolSchema = v.strictObject({
  name: v.string(),
  description: v.string(),
  input_schema: JsonObject,
});
export type ToolSchema = v.InferOutput<typeof ToolSchema>;

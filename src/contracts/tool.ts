import * as v from "valibot";
import { JsonObject } from "./entity.js";
import { AirError } from "./errors.js";
import { ArtifactId, CommandRunId, ToolRunId } from "./ids.js";

/** The internal tool through which every model call passes (DESIGN §5): workers and the parent name it alike. */
export const MODEL_COMPLETE_TOOL = "model.complete";

/** The internal tool a worker calls to have its conversation compacted (run by the parent, which holds the model). */
export const CONTEXT_COMPACT_TOOL = "context.compact";

/** Tool categories of seeds 001 D-044. */
export const ToolCategory = v.picklist(["filesystem", "shell", "build", "test", "debug", "static_analysis", "gui", "network", "memory", "project", "internal"]);
export type ToolCategory = v.InferOutput<typeof ToolCategory>;

export const ToolName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, "expected a dotted tool name such as fs.read"));

/** A request to run a tool, as a worker sends it in `tool.call` and the parent's registry receives it. */
export const ToolCall = v.strictObject({ tool_name: ToolName, input: JsonObject });
export type ToolCall = v.InferOutput<typeof ToolCall>;

/** A file a tool call changed: relative to the project root, `/`-separated (absolute only for a file outside the project). */
const ChangedFile = v.pipe(v.string(), v.minLength(1));

/** A command a tool call ran (it has its `command.*` events and `command_runs` row), and how it ended. */
export const CommandRunEffect = v.strictObject({
  command_run_id: CommandRunId,
  command: v.pipe(v.string(), v.minLength(1)),
  /** Null when the command did not exit by itself: timed out, cancelled, killed, or never started. */
  exit_code: v.nullable(v.pipe(v.number(), v.integer())),
  duration_ms: v.pipe(v.number(), v.minValue(0)),
  stdout_artifact_id: v.optional(ArtifactId),
  stderr_artifact_id: v.optional(ArtifactId),
});
export type CommandRunEffect = v.InferOutput<typeof CommandRunEffect>;

/**
 * What a tool call did to the project, in one shape for every tool that changes files or runs commands: the
 * `effects` field of their output schemas. The registry lifts it into the call's `ToolOutcome`, so callers read
 * what changed without knowing any tool's output. A tool leaves out what it did not do.
 */
export const ToolEffects = v.strictObject({
  changed_files: v.optional(v.array(ChangedFile), () => []),
  /** The `diff` artifacts that record those changes. */
  diff_artifact_ids: v.optional(v.array(ArtifactId), () => []),
  command_runs: v.optional(v.array(CommandRunEffect), () => []),
  /** Git commits the call created (full object names). */
  commits: v.optional(v.array(v.pipe(v.string(), v.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "expected a full git object name"))), () => []),
});
export type ToolEffects = v.InferOutput<typeof ToolEffects>;
export type ToolEffectsInput = v.InferInput<typeof ToolEffects>;

/**
 * The answer to a `ToolCall`: the validated output, or why there is none; and the call's effects when it had
 * any, moved out of the output by the registry (a failed call may have some too: a command that ran, then timed out).
 */
export const ToolOutcome = v.variant("ok", [
  v.strictObject({ ok: v.literal(true), tool_run_id: ToolRunId, output: v.unknown(), effects: v.optional(ToolEffects) }),
  v.strictObject({ ok: v.literal(false), tool_run_id: v.optional(ToolRunId), error: AirError, effects: v.optional(ToolEffects) }),
]);
export type ToolOutcome = v.InferOutput<typeof ToolOutcome>;

/** What a call did: its outcome's effects, or none (a tool that changes nothing, a refused call). */
export function effects_of(outcome: ToolOutcome): ToolEffects {
  return outcome.effects ?? { changed_files: [], diff_artifact_ids: [], command_runs: [], commits: [] };
}

/** What the model sees of a tool: name, description and the JSON Schema of its input. */
export const ToolSchema = v.strictObject({
  name: v.string(),
  description: v.string(),
  input_schema: JsonObject,
});
export type ToolSchema = v.InferOutput<typeof ToolSchema>;

/** An image in a tool result, as the Anthropic API takes it (the canonical message format inside air). */
const ImageBlock = v.strictObject({
  type: v.literal("image"),
  source: v.strictObject({
    type: v.literal("base64"),
    media_type: v.picklist(["image/png", "image/jpeg", "image/gif", "image/webp"]),
    data: v.string(),
  }),
});

/** One block of a tool result's content in the canonical message format: text or an image. */
export const ToolResultContentBlock = v.variant("type", [v.strictObject({ type: v.literal("text"), text: v.string() }), ImageBlock]);
export type ToolResultContentBlock = v.InferOutput<typeof ToolResultContentBlock>;

/**
 * The output of a tool whose result is content blocks rather than data (an MCP server's tool): the model is
 * answered with the blocks themselves, images included. `structured` is the tool's structured content when it
 * declares an output schema (already checked against it).
 */
export const ToolResultBlocks = v.strictObject({
  kind: v.literal("tool_result_blocks"),
  blocks: v.array(ToolResultContentBlock),
  structured: v.optional(JsonObject),
});
export type ToolResultBlocks = v.InferOutput<typeof ToolResultBlocks>;

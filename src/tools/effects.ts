/**
 * A tool's effects (changed files, diffs, command runs, commits) travel in its output as `effects: ToolEffects`;
 * the registry lifts them out, so every caller reads them typed from `ToolOutcome.effects`.
 */
import * as v from "valibot";
import { ToolEffects } from "../contracts/tool.js";

/** Whether an output schema has the `effects: ToolEffects` field. */
export function declares_effects(output: v.GenericSchema): boolean {
  if (!("entries" in output) || typeof output.entries !== "object" || output.entries === null) return false;
  return "effects" in output.entries && output.entries.effects === ToolEffects;
}

const WithEffects = v.looseObject({ effects: ToolEffects });

/** The effects of a tool's output, moved out of it: the model reads what the tool answered, the runtime what it did. */
export function lift_effects(output: unknown): { output: unknown; effects?: ToolEffects } {
  const parsed = v.safeParse(WithEffects, output);
  if (!parsed.success) return { output };
  const { effects, ...answer } = parsed.output;
  return { output: answer, effects };
}

import * as v from "valibot";
import { VerificationTool } from "../../contracts/task.js";
import { WriteArea } from "../../contracts/write-area.js";

const Line = v.pipe(v.string(), v.trim(), v.minLength(1));

/** The model's own name for a task of its plan ("lib-a"): only dependencies refer to it; ids come later. */
export const PlanKey = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, "a task key must not be empty"),
  v.maxLength(64, "a task key is at most 64 characters"),
  v.regex(/^[A-Za-z0-9._-]+$/, "a task key is letters, digits, '.', '_' or '-'"),
);
export type PlanKey = v.InferOutput<typeof PlanKey>;

const PlanDependencies = v.strictObject({
  /** Must complete before this task starts. */
  hard: v.optional(v.array(PlanKey), []),
  /** Only ordering: this task is picked after these when both could run. */
  soft: v.optional(v.array(PlanKey), []),
});

/** One task of a plan as the model writes it. */
export const PlannedTask = v.strictObject({
  key: PlanKey,
  title: v.pipe(Line, v.maxLength(200)),
  description: Line,
  acceptance_criteria: v.array(Line),
  verification_commands: v.array(Line),
  /** Tools that verify the task (`cpp.build`, `cpp.test`), run after the commands. */
  verification_tools: v.optional(v.array(VerificationTool), []),
  write_area: WriteArea,
  expected_files: v.optional(v.array(Line), []),
  depends_on: v.optional(PlanDependencies, { hard: [], soft: [] }),
});
export type PlannedTask = v.InferOutput<typeof PlannedTask>;

/** What the model answers through the classification tool when the request is work of one or more tasks. */
export const PlanReply = v.strictObject({
  intent: v.literal("plan"),
  tasks: v.pipe(v.array(PlannedTask), v.minLength(1, "a plan needs at least one task")),
  /** The work changes the project's design (interfaces, schemas, boundaries): the Architecture Designer sees it first. */
  touches_architecture: v.optional(v.boolean()),
});
export type PlanReply = v.InferOutput<typeof PlanReply>;

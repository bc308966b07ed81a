import * as v from "valibot";
import { TaskBudget } from "./budget.js";
import { JsonObject } from "./entity.js";
import { TaskId } from "./ids.js";
import { ToolName } from "./tool.js";
import { WriteArea } from "./write-area.js";

/** `docs` joins the seeds' five task types: documentation work is executed like code but verified differently. */
export const TaskType = v.picklist(["execute", "review", "debug", "compact", "mine_experience", "docs"]);
export type TaskType = v.InferOutput<typeof TaskType>;

/** Task types whose work changes the project: two at once need workspaces of their own; the others only read. */
const WRITES_CODE: Readonly<Record<TaskType, boolean>> = { execute: true, docs: true, debug: true, review: false, mine_experience: false, compact: false };
export const writes_code = (type: TaskType): boolean => WRITES_CODE[type];
export const CODE_TASK_TYPES: readonly TaskType[] = TaskType.options.filter(writes_code);

const OutputContract = v.picklist(["ExecutorResult", "ReviewerResult", "DebuggerResult", "CompactorResult", "ExperienceMinerResult"]);

/**
 * Dependency kinds of seeds 003 §10.10: `hard` must complete first, `soft` only orders by priority,
 * `conflict` and `serialization` forbid running concurrently (overlapping write areas).
 */
export const DependencyKind = v.picklist(["hard", "soft", "conflict", "serialization"]);
export type DependencyKind = v.InferOutput<typeof DependencyKind>;

const RelativePath = v.pipe(v.string(), v.minLength(1));
const Milliseconds = v.pipe(v.number(), v.integer(), v.minValue(1));

export const TaskScope = v.strictObject({
  write_area: v.optional(WriteArea),
  expected_files: v.optional(v.array(RelativePath)),
  allowed_paths: v.optional(v.array(RelativePath)),
  denied_paths: v.optional(v.array(RelativePath)),
});
export type TaskScope = v.InferOutput<typeof TaskScope>;

const TaskDependencies = v.strictObject({
  hard: v.array(TaskId),
  soft: v.array(TaskId),
  conflict: v.optional(v.array(TaskId), []),
  serialization: v.optional(v.array(TaskId), []),
});

/**
 * A tool call that verifies a task (`cpp.build`, `cpp.test`): it passes when the call succeeds. Such tools judge
 * their own output (a build with errors, a failing test is a failed call), which an exit code cannot say as well.
 */
export const VerificationTool = v.strictObject({ tool_name: ToolName, input: v.optional(JsonObject, {}) });
export type VerificationTool = v.InferOutput<typeof VerificationTool>;

/** How a verification tool call is named in results and summaries: the tool, and its input when it has one. */
export function verification_label(tool: VerificationTool): string {
  return Object.keys(tool.input).length === 0 ? tool.tool_name : `${tool.tool_name} ${JSON.stringify(tool.input)}`;
}

const VerificationPolicy = v.strictObject({
  commands: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  tools: v.optional(v.array(VerificationTool), []),
  required: v.boolean(),
  fallback_allowed: v.boolean(),
});

const TaskConstraints = v.pipe(
  v.strictObject({
    max_turns: v.pipe(v.number(), v.integer(), v.minValue(1)),
    soft_timeout_ms: Milliseconds,
    hard_timeout_ms: Milliseconds,
    retry_budget: v.pipe(v.number(), v.integer(), v.minValue(0)),
    model_policy: v.picklist(["scheduler_forced", "agent_select"]),
    model_id: v.optional(v.pipe(v.string(), v.minLength(1))),
    /** Limits of each worker run besides `max_turns`, enforced by the parent's `model.complete`. */
    budget: v.optional(TaskBudget),
  }),
  v.check((c) => c.soft_timeout_ms <= c.hard_timeout_ms, "soft_timeout_ms must not exceed hard_timeout_ms"),
  v.check((c) => c.model_policy !== "scheduler_forced" || c.model_id !== undefined, "scheduler_forced needs a model_id"),
);

const TaskContextRefs = v.strictObject({
  plan_ref: v.optional(v.string()),
  arc_ref: v.optional(v.string()),
  parent_task_results: v.optional(v.array(TaskId)),
  artifacts: v.optional(v.array(v.string())),
});

/** What a worker is asked to do (seeds 001 D-041). */
export const TaskSpec = v.strictObject({
  id: TaskId,
  type: TaskType,
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  description: v.string(),
  acceptance_criteria: v.array(v.string()),
  scope: TaskScope,
  dependencies: TaskDependencies,
  verification: VerificationPolicy,
  constraints: TaskConstraints,
  context_refs: TaskContextRefs,
  output_contract: OutputContract,
});
export type TaskSpec = v.InferOutput<typeof TaskSpec>;
export type TaskSpecInput = v.InferInput<typeof TaskSpec>;

import * as v from "valibot";
import type { TaskBudget } from "../../contracts/budget.js";
import type { TaskId } from "../../contracts/ids.js";
import { TaskSpec, type TaskScope, type VerificationTool } from "../../contracts/task.js";

/** The constraints every task of a request gets unless its spec says otherwise (`--max-turns`, config). */
export type TaskDefaults = { max_turns: number; soft_timeout_ms: number; hard_timeout_ms: number; retry_budget: number; budget?: TaskBudget };

/** What the Main Agent decides about a task; everything else of its TaskSpec follows from the defaults. */
export type ExecuteTaskFields = {
  readonly id: TaskId;
  readonly title: string;
  readonly description: string;
  readonly acceptance_criteria: readonly string[];
  readonly verification_commands: readonly string[];
  readonly verification_tools?: readonly VerificationTool[];
  readonly scope: TaskScope;
  readonly dependencies: { readonly hard: readonly TaskId[]; readonly soft: readonly TaskId[] };
};

/**
 * The TaskSpec of an `execute` task. Verification is required exactly when the task names commands or tools: a
 * task without any may be accepted on the worker's own evidence.
 */
export function execute_task_spec(fields: ExecuteTaskFields, defaults: TaskDefaults): TaskSpec {
  const commands = [...fields.verification_commands];
  const tools = [...(fields.verification_tools ?? [])];
  const verifies = commands.length + tools.length > 0;
  return v.parse(TaskSpec, {
    id: fields.id,
    type: "execute",
    title: fields.title,
    description: fields.description,
    acceptance_criteria: [...fields.acceptance_criteria],
    scope: fields.scope,
    dependencies: { hard: [...fields.dependencies.hard], soft: [...fields.dependencies.soft] },
    verification: { commands, tools, required: verifies, fallback_allowed: !verifies },
    constraints: { ...defaults, model_policy: "agent_select" },
    context_refs: {},
    output_contract: "ExecutorResult",
  });
}

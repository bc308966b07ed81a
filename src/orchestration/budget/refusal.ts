import * as v from "valibot";
import { BudgetRefusal } from "../../contracts/budget.js";
import { air_failure, type AirError, type AirFailure } from "../../contracts/errors.js";
import { describe_reading } from "./check.js";

/** "the task's turns budget is used up (5 of 5 turns)": the blocker a refused task ends with. */
export function refusal_text(refusal: BudgetRefusal): string {
  return `the ${refusal.budget === "task" ? "task's" : "run's"} ${refusal.limit} budget is used up (${describe_reading(refusal)})`;
}

/**
 * A model call refused by a budget: a `policy_error` (a refusal by policy, seeds 003 §11) that no retry
 * fixes, since a retry spends the same budget; the signature is the limit, so two refusals are one failure.
 */
export function budget_refusal_failure(refusal: BudgetRefusal): AirFailure {
  return air_failure({
    kind: "policy_error",
    message: `model call refused: ${refusal_text(refusal)}`,
    retryability: "not_retryable",
    semantic_signature: `policy_error:budget:${refusal.budget}:${refusal.limit}`,
    user_action:
      refusal.budget === "task"
        ? `Raise the task's ${refusal.limit} limit (TaskSpec constraints or the budget section of ~/.air/config.yaml), or split the task.`
        : "Raise the run's limit (--max-budget-usd, --max-tokens or the budget section of ~/.air/config.yaml).",
    metadata: { budget: refusal.budget, limit: refusal.limit, used: refusal.used, of: refusal.of },
  });
}

/** The refusal an error carries, when it is a budget refusal. */
export function budget_refusal_of(error: Pick<AirError, "kind" | "metadata">): BudgetRefusal | undefined {
  if (error.kind !== "policy_error") return undefined;
  const parsed = v.safeParse(BudgetRefusal, error.metadata);
  return parsed.success ? parsed.output : undefined;
}

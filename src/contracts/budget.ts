import * as v from "valibot";

const Count = v.pipe(v.number(), v.integer(), v.minValue(1));
const Dollars = v.pipe(v.number(), v.gtValue(0));

/** What a budget can limit: the names a refusal, a warning and a blocker give. */
export const BudgetLimit = v.picklist(["turns", "input_tokens", "output_tokens", "tokens", "cost_usd", "wall_ms", "tool_calls"]);
export type BudgetLimit = v.InferOutput<typeof BudgetLimit>;

/**
 * One worker run's limits besides its turns (`TaskConstraints.max_turns`). Input tokens count cache reads and
 * writes too: they are read like any other input. Cost applies only where the model's price is known.
 */
export const TaskBudget = v.strictObject({
  input_tokens: v.optional(Count),
  output_tokens: v.optional(Count),
  cost_usd: v.optional(Dollars),
  wall_ms: v.optional(Count),
  tool_calls: v.optional(Count),
});
export type TaskBudget = v.InferOutput<typeof TaskBudget>;

/** A whole run's limits (`--max-budget-usd`, `--max-tokens`): every model call of the session, all agents together. */
export const RunBudget = v.strictObject({
  cost_usd: v.optional(Dollars),
  tokens: v.optional(Count),
});
export type RunBudget = v.InferOutput<typeof RunBudget>;

/** The `budget:` section of the configuration: defaults for every task, and the run's limits. */
export const BudgetConfig = v.strictObject({
  task: v.optional(TaskBudget),
  run: v.optional(RunBudget),
});
export type BudgetConfig = v.InferOutput<typeof BudgetConfig>;

/** How far a limit is used: `used` of `of`. */
export const BudgetReading = v.strictObject({
  limit: BudgetLimit,
  used: v.pipe(v.number(), v.minValue(0)),
  of: v.pipe(v.number(), v.gtValue(0)),
});
export type BudgetReading = v.InferOutput<typeof BudgetReading>;

/** Whose budget: one worker run's (its task's limits) or the whole run's. */
export const BudgetScope = v.picklist(["task", "run"]);
export type BudgetScope = v.InferOutput<typeof BudgetScope>;

/** A reading of one budget: what a refusal carries as its metadata and what `budget.*` events record. */
export const BudgetRefusal = v.strictObject({ ...BudgetReading.entries, budget: BudgetScope });
export type BudgetRefusal = v.InferOutput<typeof BudgetRefusal>;

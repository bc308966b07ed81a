import { air_failure } from "../contracts/errors.js";
import type { RunBudget } from "../contracts/budget.js";

/** `--max-budget-usd` and `--max-tokens` of `air run`, as the flags were typed. */
export type RunBudgetFlags = { readonly max_budget_usd?: string; readonly max_tokens?: string };

function flag_failure(flag: string, raw: string, example: string) {
  return air_failure({
    kind: "user_error",
    message: `${flag} must be a positive ${flag === "--max-tokens" ? "integer" : "number"}, not "${raw}"`,
    retryability: "not_retryable",
    user_action: `Pass e.g. ${flag} ${example}.`,
  });
}

/** The run's limits the flags set, checked before anything runs; none when neither flag is given. */
export function parse_run_budget(flags: RunBudgetFlags): RunBudget | undefined {
  const budget: { cost_usd?: number; tokens?: number } = {};
  if (flags.max_budget_usd !== undefined) {
    const cost_usd = Number(flags.max_budget_usd);
    if (!Number.isFinite(cost_usd) || cost_usd <= 0) throw flag_failure("--max-budget-usd", flags.max_budget_usd, "5");
    budget.cost_usd = cost_usd;
  }
  if (flags.max_tokens !== undefined) {
    const tokens = Number(flags.max_tokens);
    if (!Number.isInteger(tokens) || tokens < 1) throw flag_failure("--max-tokens", flags.max_tokens, "2000000");
    budget.tokens = tokens;
  }
  return Object.keys(budget).length === 0 ? undefined : budget;
}

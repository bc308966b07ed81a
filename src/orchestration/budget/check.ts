/**
 * Whether one more model call (or one more dispatch) fits a budget. Pure: limits and usage in, a verdict out.
 * A call is refused once a limit is reached, never by guessing what the call will cost: the overshoot is at
 * most the one call that crossed the line, and the usage a refusal reports is what was really spent.
 */
import { BudgetLimit, type BudgetReading } from "../../contracts/budget.js";

/** The limits in force; a limit that is absent does not apply. */
export type BudgetLimits = Partial<Record<BudgetLimit, number>>;

/** What was used so far; `cost_usd` is null when a model's price is unknown, and then it cannot be limited. */
export type BudgetUsage = { readonly [K in BudgetLimit]: K extends "cost_usd" ? number | null : number };

/** What the call about to be made adds where that is known before it runs: a model call is one turn. */
export type BudgetCall = Partial<Record<BudgetLimit, number>>;

export const MODEL_CALL: BudgetCall = { turns: 1 };

/** A warning is due once a limit is this far used. */
const WARNING_RATIO = 0.8;

export type BudgetVerdict = { readonly kind: "allow" } | ({ readonly kind: "warn" } & BudgetReading) | ({ readonly kind: "refuse" } & BudgetReading);

export const NO_USAGE: BudgetUsage = { turns: 0, input_tokens: 0, output_tokens: 0, tokens: 0, cost_usd: 0, wall_ms: 0, tool_calls: 0 };

/**
 * Every limit the call reaches: refused when nothing is left (used ≥ of) or when what it is known to add does
 * not fit, else a warning when, with the call, the limit is at least 80 % used. `used` is what was spent
 * before the call for a refusal, and with it for a warning.
 */
export function budget_readings(limits: BudgetLimits, usage: BudgetUsage, call: BudgetCall): (BudgetVerdict & { kind: "warn" | "refuse" })[] {
  const readings: (BudgetVerdict & { kind: "warn" | "refuse" })[] = [];
  for (const limit of BudgetLimit.options) {
    const of = limits[limit];
    const used = usage[limit];
    if (of === undefined || used === null) continue;
    const after = used + (call[limit] ?? 0);
    if (used >= of || after > of) readings.push({ kind: "refuse", limit, used, of });
    else if (after >= of * WARNING_RATIO) readings.push({ kind: "warn", limit, used: after, of });
  }
  return readings;
}

/** The verdict on one call: the first refusal, else the first warning, else allow. */
export function check_budget(limits: BudgetLimits, usage: BudgetUsage, call: BudgetCall): BudgetVerdict {
  const readings = budget_readings(limits, usage, call);
  return readings.find((reading) => reading.kind === "refuse") ?? readings[0] ?? { kind: "allow" };
}

const UNITS: Record<BudgetLimit, string> = {
  turns: "turns",
  input_tokens: "input tokens",
  output_tokens: "output tokens",
  tokens: "tokens",
  cost_usd: "USD",
  wall_ms: "ms of wall time",
  tool_calls: "tool calls",
};

/** "12000 of 10000 input tokens": a reading as a person reads it. */
export function describe_reading(reading: BudgetReading): string {
  const shown = (value: number) => (reading.limit === "cost_usd" ? value.toFixed(4) : String(Math.round(value)));
  return `${shown(reading.used)} of ${shown(reading.of)} ${UNITS[reading.limit]}`;
}

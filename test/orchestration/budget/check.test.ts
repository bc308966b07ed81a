import { describe, expect, it } from "vitest";
import { budget_readings, check_budget, describe_reading, MODEL_CALL, NO_USAGE, type BudgetUsage } from "../../../src/orchestration/budget/check.js";

const used = (overrides: Partial<BudgetUsage>): BudgetUsage => ({ ...NO_USAGE, ...overrides });

describe("check_budget", () => {
  it("allows a call with no limits at all", () => {
    expect(check_budget({}, used({ turns: 1_000, tokens: 10_000_000 }), MODEL_CALL)).toEqual({ kind: "allow" });
  });

  it("allows the call that takes the turns to their limit and refuses the one after it", () => {
    expect(check_budget({ turns: 5 }, used({ turns: 2 }), MODEL_CALL)).toEqual({ kind: "allow" });
    expect(check_budget({ turns: 5 }, used({ turns: 4 }), MODEL_CALL)).toEqual({ kind: "warn", limit: "turns", used: 5, of: 5 });
    expect(check_budget({ turns: 5 }, used({ turns: 5 }), MODEL_CALL)).toEqual({ kind: "refuse", limit: "turns", used: 5, of: 5 });
  });

  it("refuses once tokens, cost, wall time or tool calls reached their limit, not before", () => {
    expect(check_budget({ input_tokens: 1000 }, used({ input_tokens: 999 }), MODEL_CALL).kind).toBe("warn");
    expect(check_budget({ input_tokens: 1000 }, used({ input_tokens: 1000 }), MODEL_CALL)).toMatchObject({ kind: "refuse", limit: "input_tokens" });
    expect(check_budget({ output_tokens: 10 }, used({ output_tokens: 25 }), MODEL_CALL)).toEqual({ kind: "refuse", limit: "output_tokens", used: 25, of: 10 });
    expect(check_budget({ cost_usd: 2 }, used({ cost_usd: 2.5 }), MODEL_CALL)).toMatchObject({ kind: "refuse", limit: "cost_usd" });
    expect(check_budget({ wall_ms: 60_000 }, used({ wall_ms: 61_000 }), MODEL_CALL)).toMatchObject({ kind: "refuse", limit: "wall_ms" });
    expect(check_budget({ tool_calls: 20 }, used({ tool_calls: 20 }), MODEL_CALL)).toMatchObject({ kind: "refuse", limit: "tool_calls" });
  });

  it("warns from 80 % on", () => {
    expect(check_budget({ tokens: 1000 }, used({ tokens: 799 }), {})).toEqual({ kind: "allow" });
    expect(check_budget({ tokens: 1000 }, used({ tokens: 800 }), {})).toEqual({ kind: "warn", limit: "tokens", used: 800, of: 1000 });
  });

  it("cannot limit a cost it does not know", () => {
    expect(check_budget({ cost_usd: 1 }, used({ cost_usd: null }), MODEL_CALL)).toEqual({ kind: "allow" });
  });

  it("prefers a refusal to a warning on another limit", () => {
    expect(check_budget({ turns: 10, output_tokens: 100 }, used({ turns: 9, output_tokens: 100 }), MODEL_CALL)).toMatchObject({
      kind: "refuse",
      limit: "output_tokens",
    });
  });

  it("refuses a dispatch (a check that adds nothing) only at the limit", () => {
    expect(check_budget({ cost_usd: 5 }, used({ cost_usd: 4.99 }), {}).kind).toBe("warn");
    expect(check_budget({ cost_usd: 5 }, used({ cost_usd: 5 }), {}).kind).toBe("refuse");
  });
});

describe("budget_readings", () => {
  it("lists every limit that warns or refuses, so each gets its own warning", () => {
    expect(budget_readings({ turns: 10, input_tokens: 100, tool_calls: 50 }, used({ turns: 8, input_tokens: 90, tool_calls: 1 }), MODEL_CALL)).toEqual([
      { kind: "warn", limit: "turns", used: 9, of: 10 },
      { kind: "warn", limit: "input_tokens", used: 90, of: 100 },
    ]);
  });
});

describe("describe_reading", () => {
  it("names the limit in words", () => {
    expect(describe_reading({ limit: "input_tokens", used: 12_000, of: 10_000 })).toBe("12000 of 10000 input tokens");
    expect(describe_reading({ limit: "cost_usd", used: 0.5, of: 0.25 })).toBe("0.5000 of 0.2500 USD");
  });
});

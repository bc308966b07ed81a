/** The HUD's running cost: list prices of known families, nothing invented for unknown models. */
import { describe, expect, it } from "vitest";
import { request_cost_usd } from "../../src/providers/pricing.js";

describe("request_cost_usd", () => {
  it("prices input, output and Anthropic cache writes and reads", () => {
    expect(request_cost_usd("claude-sonnet-4-5", { input_tokens: 1_000_000, output_tokens: 0 })).toBeCloseTo(3);
    expect(request_cost_usd("claude-sonnet-4-5", { input_tokens: 0, output_tokens: 1_000_000 })).toBeCloseTo(15);
    expect(
      request_cost_usd("claude-sonnet-4-5", { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 }),
    ).toBeCloseTo(3.75 + 0.3);
  });

  it("matches a family without its vendor prefix, the most specific first", () => {
    expect(request_cost_usd("anthropic/claude-opus-4.5", { input_tokens: 1_000_000, output_tokens: 0 })).toBeCloseTo(5);
    expect(request_cost_usd("claude-opus-4-1", { input_tokens: 1_000_000, output_tokens: 0 })).toBeCloseTo(15);
    expect(request_cost_usd("gpt-4o-mini", { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBeCloseTo(0.75);
  });

  it("has no price for an unknown or local model, and none without a model", () => {
    expect(request_cost_usd("qwen2.5-coder:32b", { input_tokens: 10, output_tokens: 10 })).toBeUndefined();
    expect(request_cost_usd(null, { input_tokens: 10, output_tokens: 10 })).toBeUndefined();
  });
});

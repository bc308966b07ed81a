import { describe, expect, it } from "vitest";
import { CompactionPolicy } from "../../src/context/compaction/policy.js";

const WINDOW = 10_000;

function policy(max_compactions = 3, min_turns_between = 4) {
  return new CompactionPolicy({ threshold_ratio: 0.8, circuit_breaker: { max_compactions, min_turns_between } });
}

describe("CompactionPolicy", () => {
  it("does not compact under the threshold ratio of the context window, and says how full it is", () => {
    const verdict = policy().should_compact({ token_estimate: 7_999, context_window: WINDOW, turn: 1 });
    expect(verdict).toEqual({ compact: false, reason: "under the threshold: 7999 of 10000 tokens (threshold 8000)" });
  });

  it("compacts at the threshold", () => {
    const verdict = policy().should_compact({ token_estimate: 8_000, context_window: WINDOW, turn: 1 });
    expect(verdict.compact).toBe(true);
    expect(verdict.reason).toBe("the conversation reached the compaction threshold: 8000 of 10000 tokens (threshold 8000)");
  });

  it("waits min_turns_between turns after a compaction before the next one", () => {
    const p = policy(3, 4);
    p.record({ turn: 10, context_window: WINDOW, token_estimate_after: 3_000 });
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 13 })).toEqual({
      compact: false,
      reason: "circuit breaker: the last compaction was at turn 10, fewer than 4 turns ago",
    });
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 14 }).compact).toBe(true);
  });

  it("allows at most max_compactions per agent, failed ones included", () => {
    const p = policy(2, 0);
    p.record({ turn: 1, context_window: WINDOW, token_estimate_after: 1_000 });
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 2 }).compact).toBe(true);
    p.record({ turn: 2, failed: true });
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 3 })).toEqual({
      compact: false,
      reason: "circuit breaker: 2 compaction(s) already, the most allowed per agent",
    });
  });

  it("counts a failed compaction for the turn spacing but does not open the breaker", () => {
    const p = policy(5, 2);
    p.record({ turn: 4, failed: true });
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 5 }).compact).toBe(false);
    expect(p.should_compact({ token_estimate: 9_000, context_window: WINDOW, turn: 6 }).compact).toBe(true);
  });

  it("opens the breaker for good when a compaction left the conversation at or over the threshold (no loop)", () => {
    const p = policy(10, 0);
    p.record({ turn: 3, context_window: WINDOW, token_estimate_after: 8_000 });
    const reason = "circuit breaker open: the compaction at turn 3 left 8000 tokens, not under the threshold of 8000";
    for (const turn of [4, 40, 400]) expect(p.should_compact({ token_estimate: 9_500, context_window: WINDOW, turn })).toEqual({ compact: false, reason });
  });

  it("still reports 'under the threshold' while the breaker is open and the conversation is small", () => {
    const p = policy(10, 0);
    p.record({ turn: 3, context_window: WINDOW, token_estimate_after: 9_000 });
    expect(p.should_compact({ token_estimate: 100, context_window: WINDOW, turn: 9 }).reason).toMatch(/^under the threshold/);
  });

  it("computes the threshold from the ratio, rounded down", () => {
    expect(policy().threshold_tokens(200_001)).toBe(160_000);
  });
});

import { describe, expect, it } from "vitest";
import type { ErrorKind, Retryability } from "../../src/contracts/errors.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { budget_refusal_failure } from "../../src/orchestration/budget/refusal.js";
import { decide_retry, RETRY_RULES, type AttemptRecord, type RetryError, type RetryInput } from "../../src/orchestration/retry-planner.js";

function failure(
  kind: ErrorKind,
  retryability: Retryability = "retryable_after_change",
  signature = `${kind}:one`,
  metadata?: RetryError["metadata"],
): RetryError {
  return { kind, retryability, semantic_signature: signature, ...(metadata === undefined ? {} : { metadata }) };
}

/** A task with a retry budget of 2 and no fallback, whose first attempt just failed with `error`. */
function input(error: RetryError, overrides: Partial<RetryInput> = {}): RetryInput {
  return { retry_budget: 2, fallback_allowed: false, earlier: [], latest: { error }, ...overrides };
}

const ended_with = (error: RetryError, change?: AttemptRecord["change"]): AttemptRecord => ({ error, ...(change === undefined ? {} : { change }) });

describe("decide_retry", () => {
  it("retries a retryable failure once with the failure in the worker's context", () => {
    expect(decide_retry(input(failure("test_error")))).toMatchObject({ action: "retry", change: "failure_in_context", rule: "retryable" });
  });

  it("retries a transient failure and one of unknown retryability the same way: the failure is the one change", () => {
    expect(decide_retry(input(failure("provider_error", "retryable")))).toMatchObject({ action: "retry", change: "failure_in_context" });
    expect(decide_retry(input(failure("unknown_error", "unknown")))).toMatchObject({ action: "retry", change: "failure_in_context" });
  });

  it("retries a timeout with a longer timeout", () => {
    const timeout = failure("agent_error", "retryable", "agent_error:timeout", { timeout: true });
    expect(decide_retry(input(timeout))).toMatchObject({ action: "retry", change: "longer_timeout", rule: "timeout" });
  });

  it("retries a merge conflict serially", () => {
    expect(decide_retry(input(failure("merge_error")))).toMatchObject({ action: "retry_serial", change: "serialize", rule: "merge_conflict" });
  });

  it("cancels a cancelled run, whatever else its error says", () => {
    const cancelled = failure("agent_error", "retryable", "agent_error:cancel", { cancelled: true, timeout: true });
    expect(decide_retry(input(cancelled))).toMatchObject({ action: "cancel", rule: "cancelled" });
  });

  it("blocks env_error and dependency_error instead of looping, even when they claim to be retryable", () => {
    for (const kind of ["env_error", "dependency_error"] as const) {
      expect(decide_retry(input(failure(kind, "retryable")))).toMatchObject({ action: "block", rule: "environment" });
    }
  });

  it("blocks an architecture mismatch (the Architecture Designer's to resolve)", () => {
    expect(decide_retry(input(failure("architecture_error")))).toMatchObject({ action: "block", rule: "architecture" });
  });

  it("blocks a not_retryable error", () => {
    expect(decide_retry(input(failure("permission_error", "not_retryable")))).toMatchObject({ action: "block", rule: "not_retryable" });
  });

  it("blocks a budget refusal and names the limit", () => {
    const { error } = budget_refusal_failure({ budget: "task", limit: "output_tokens", used: 9000, of: 8000 });
    const decision = decide_retry(input(error));
    expect(decision).toMatchObject({ action: "block", rule: "budget_exceeded" });
    expect(decision.reason).toContain("output_tokens");
  });

  it("treats a policy_error without a budget reading as any other not_retryable policy refusal", () => {
    expect(decide_retry(input(failure("policy_error", "not_retryable")))).toMatchObject({ action: "block", rule: "not_retryable" });
  });

  it("blocks once the retry budget is spent: attempt 1 is the first try, so a budget of 2 allows 3 attempts", () => {
    const earlier = [ended_with(failure("test_error", "retryable_after_change", "a")), ended_with(failure("test_error", "retryable_after_change", "b"))];
    expect(decide_retry(input(failure("test_error", "retryable_after_change", "c"), { earlier: earlier.slice(0, 1) }))).toMatchObject({ action: "retry" });
    expect(decide_retry(input(failure("test_error", "retryable_after_change", "c"), { earlier }))).toMatchObject({ action: "block", rule: "retries_spent" });
    expect(decide_retry(input(failure("test_error"), { retry_budget: 0 }))).toMatchObject({ action: "block", rule: "retries_spent" });
  });

  it("sends the same signature twice in a row to the Debugger", () => {
    const same = failure("build_error", "retryable_after_change", "build_error:abc");
    const decision = decide_retry(input(same, { earlier: [ended_with(same)], latest: { error: same, change: "failure_in_context" } }));
    expect(decision).toMatchObject({ action: "debug", rule: "repeated_to_debugger" });
    expect(decision.reason).toContain("build_error:abc");
  });

  it("escalates the same signature after the Debugger's attempt: blocked, naming the signature", () => {
    const same = failure("build_error", "retryable_after_change", "build_error:abc");
    const earlier = [ended_with(same), ended_with(same, "failure_in_context")];
    const decision = decide_retry(input(same, { retry_budget: 5, earlier, latest: { error: same, change: "debug" } }));
    expect(decision).toMatchObject({ action: "block", rule: "escalated" });
    expect(decision.reason).toContain("build_error:abc");
  });

  it("walks a failure through the whole table with the default budget of 2: retry, debug, escalate", () => {
    const same = failure("build_error", "retryable_after_change", "build_error:abc");
    const budget = { retry_budget: DEFAULT_TASK_DEFAULTS.retry_budget };
    const first = decide_retry(input(same, budget));
    const second = decide_retry(input(same, { ...budget, earlier: [ended_with(same)], latest: { error: same, change: "failure_in_context" } }));
    const earlier = [ended_with(same), ended_with(same, "failure_in_context")];
    const third = decide_retry(input(same, { ...budget, earlier, latest: { error: same, change: "debug" } }));
    expect([first, second, third].map((decision) => [decision.action, decision.rule])).toEqual([
      ["retry", "retryable"],
      ["debug", "repeated_to_debugger"],
      ["block", "escalated"],
    ]);
  });

  it("retries a new signature after the Debugger's attempt while the budget lasts, and blocks once it is spent", () => {
    const a = failure("build_error", "retryable_after_change", "build_error:a");
    const b = failure("build_error", "retryable_after_change", "build_error:b");
    const earlier = [ended_with(a), ended_with(a, "failure_in_context")];
    expect(decide_retry(input(b, { retry_budget: 5, earlier, latest: { error: b, change: "debug" } }))).toMatchObject({ action: "retry", rule: "retryable" });
    expect(decide_retry(input(b, { retry_budget: 2, earlier, latest: { error: b, change: "debug" } }))).toMatchObject({
      action: "block",
      rule: "retries_spent",
    });
  });

  it("does not send a repeated failure to the Debugger when the budget allows no further attempt", () => {
    const same = failure("build_error", "retryable_after_change", "build_error:abc");
    expect(decide_retry(input(same, { retry_budget: 1, earlier: [ended_with(same)] }))).toMatchObject({ action: "block", rule: "retries_spent" });
  });

  it("retries a signature that repeats only after another failure in between", () => {
    const a = failure("build_error", "retryable_after_change", "build_error:a");
    const b = failure("build_error", "retryable_after_change", "build_error:b");
    expect(decide_retry(input(a, { retry_budget: 5, earlier: [ended_with(a), ended_with(b, "failure_in_context")] }))).toMatchObject({ action: "retry" });
  });

  it("stops a repeated timeout even though a timeout is otherwise retried with more time", () => {
    const timeout = failure("agent_error", "retryable", "agent_error:timeout", { timeout: true });
    expect(decide_retry(input(timeout, { latest: { error: timeout, change: "longer_timeout" }, earlier: [ended_with(timeout)] }))).toMatchObject({
      action: "block",
      rule: "repeated_timeout",
    });
  });

  it("skips only with fallback_allowed, and only a verification failure that cannot be retried further", () => {
    const same = failure("test_error", "retryable_after_change", "test_error:abc");
    const debugged = { earlier: [ended_with(same), ended_with(same, "failure_in_context")], latest: { error: same, change: "debug" as const } };
    expect(decide_retry(input(same, { fallback_allowed: true, retry_budget: 5, ...debugged }))).toMatchObject({ action: "skip", rule: "debugged_fallback" });
    // The Debugger comes before the fallback: a repeated verification failure is diagnosed first.
    expect(decide_retry(input(same, { fallback_allowed: true, earlier: [ended_with(same)] }))).toMatchObject({ action: "debug" });
    expect(decide_retry(input(same, { fallback_allowed: true, retry_budget: 0 }))).toMatchObject({ action: "skip", rule: "retries_spent_fallback" });
    expect(decide_retry(input(same, { fallback_allowed: false, retry_budget: 0 })).action).toBe("block");
    // A fallback skips verification, never an environment that cannot run the task at all.
    expect(decide_retry(input(failure("env_error"), { fallback_allowed: true })).action).toBe("block");
    expect(decide_retry(input(failure("agent_error"), { fallback_allowed: true, retry_budget: 0 })).action).toBe("block");
  });

  it("decides every action only through a rule of its one table, which names that rule and why", () => {
    const rules = new Set(RETRY_RULES.map((rule) => rule.rule));
    const cases = [
      input(failure("test_error")),
      input(failure("env_error")),
      input(failure("merge_error")),
      input(failure("agent_error", "retryable", "t", { timeout: true })),
      input(failure("agent_error", "not_retryable", "c", { cancelled: true })),
      input(failure("build_error"), { earlier: [ended_with(failure("build_error"))] }),
      input(failure("build_error"), {
        earlier: [ended_with(failure("build_error")), ended_with(failure("build_error"))],
        latest: { error: failure("build_error"), change: "debug" },
      }),
      input(failure("dependency_error")),
    ];
    for (const decision of cases.map(decide_retry)) {
      expect(decision.reason.length).toBeGreaterThan(0);
      expect(rules.has(decision.rule) || decision.rule === "retryable").toBe(true);
    }
  });

  it("changes exactly one thing in every retry it decides", () => {
    const retried = [input(failure("test_error")), input(failure("merge_error")), input(failure("agent_error", "retryable", "t", { timeout: true }))].map(
      decide_retry,
    );
    for (const decision of retried) {
      expect(decision.action === "retry" || decision.action === "retry_serial").toBe(true);
      expect("change" in decision && typeof decision.change).toBe("string");
    }
  });
});

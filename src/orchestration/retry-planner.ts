/**
 * The RetryPlanner (seeds 000 §7.4): what the Scheduler does with a task whose attempt just failed. Pure: a
 * function of the task's retry policy, its attempts and the new error. The rules are one ordered table, the
 * first that applies decides, and the decision names it, so a reader sees why a task was retried or blocked.
 * Routing by signature: a new failure is retried once with itself in context, the same failure again goes to
 * the Debugger, and the same failure after the Debugger's attempt escalates to the user. That path takes three
 * attempts, so the default retry budget is 2 (`DEFAULT_TASK_DEFAULTS`).
 */
import type { AirError, ErrorKind } from "../contracts/errors.js";
import type { RetryChange } from "../contracts/retry-change.js";
import { budget_refusal_of } from "./budget/refusal.js";

/** What the planner reads of an error: its class, whether a retry can help, and what makes it the same failure. */
export type RetryError = Pick<AirError, "kind" | "retryability" | "semantic_signature" | "metadata">;

/** One finished attempt: the change it was made with (none for the first try) and the error it ended with. */
export type AttemptRecord = { readonly change?: RetryChange; readonly error?: RetryError };

export type RetryInput = {
  /** `TaskConstraints.retry_budget`: retries allowed after the first try. */
  readonly retry_budget: number;
  /** `VerificationPolicy.fallback_allowed`: the task may end without its verification passing. */
  readonly fallback_allowed: boolean;
  /** The attempts before the one that just ended, oldest first. */
  readonly earlier: readonly AttemptRecord[];
  /** The attempt that just ended and the error it ended with. */
  readonly latest: { readonly change?: RetryChange; readonly error: RetryError };
};

type RetryRule =
  | "cancelled"
  | "budget_exceeded"
  | "environment"
  | "architecture"
  | "not_retryable"
  | "retries_spent_fallback"
  | "debugged_fallback"
  | "escalated"
  | "retries_spent"
  | "review_findings"
  | "repeated_timeout"
  | "repeated_to_debugger"
  | "timeout"
  | "merge_conflict"
  | "retryable";

/** What to do; a retry names the one thing it changes. */
type Verdict =
  | { readonly action: "retry"; readonly change: "failure_in_context" | "longer_timeout" | "review_findings" }
  | { readonly action: "retry_serial"; readonly change: "serialize" }
  | { readonly action: "debug" | "skip" | "block" | "cancel" };

/** The verdict with its evidence: the rule that fired and why, in words a person reads. */
export type RetryDecision = Verdict & { readonly rule: RetryRule; readonly reason: string };

/** Failures of a task's verification: the only ones a fallback may skip (the work itself was done). */
const VERIFICATION_KINDS: readonly ErrorKind[] = ["test_error", "build_error", "static_analysis_error"];

/** What every rule reads, computed once. */
type Facts = {
  readonly input: RetryInput;
  readonly error: RetryError;
  readonly attempts: number;
  readonly repeated: boolean;
  /** The attempt that just ended was the Debugger's. */
  readonly debugged: boolean;
  readonly skippable: boolean;
};

function facts_of(input: RetryInput): Facts {
  const error = input.latest.error;
  const previous = input.earlier.at(-1)?.error;
  return {
    input,
    error,
    attempts: input.earlier.length + 1,
    repeated: previous !== undefined && previous.semantic_signature === error.semantic_signature,
    debugged: input.latest.change === "debug",
    skippable: input.fallback_allowed && VERIFICATION_KINDS.includes(error.kind),
  };
}

type Rule = {
  readonly rule: RetryRule;
  readonly applies: (facts: Facts) => boolean;
  readonly decide: Verdict;
  readonly reason: (facts: Facts) => string;
};

const flag = (error: RetryError, key: string): boolean => error.metadata?.[key] === true;

/**
 * The rules, first match wins. Stopping rules come before retrying ones: a cancelled, over-budget or
 * impossible task is never retried however retryable its error claims to be.
 */
export const RETRY_RULES: readonly Rule[] = [
  {
    rule: "cancelled",
    applies: ({ error }) => flag(error, "cancelled"),
    decide: { action: "cancel" },
    reason: () => "the run was cancelled",
  },
  {
    rule: "budget_exceeded",
    applies: ({ error }) => budget_refusal_of(error) !== undefined,
    decide: { action: "block" },
    reason: ({ error }) => `its ${budget_refusal_of(error)?.limit ?? "budget"} budget is used up; a retry would spend more of it`,
  },
  {
    rule: "environment",
    applies: ({ error }) => error.kind === "env_error" || error.kind === "dependency_error",
    decide: { action: "block" },
    reason: ({ error }) => `a ${error.kind} is not fixed by running the task again`,
  },
  {
    // Routed to the Architecture Designer once there is one; until then a person decides.
    rule: "architecture",
    applies: ({ error }) => error.kind === "architecture_error",
    decide: { action: "block" },
    reason: () => "the failure is an architecture or interface mismatch, which a retry of the task cannot resolve",
  },
  {
    rule: "not_retryable",
    applies: ({ error }) => error.retryability === "not_retryable",
    decide: { action: "block" },
    reason: () => "the error is not retryable",
  },
  {
    rule: "retries_spent_fallback",
    applies: (facts) => facts.attempts > facts.input.retry_budget && facts.skippable,
    decide: { action: "skip" },
    reason: (facts) => `its retry budget of ${facts.input.retry_budget} is spent and its verification policy allows the fallback`,
  },
  {
    rule: "debugged_fallback",
    applies: (facts) => facts.debugged && facts.repeated && facts.skippable,
    decide: { action: "skip" },
    reason: ({ error }) => `the Debugger did not fix the failure (${error.semantic_signature}) and the fallback is allowed`,
  },
  {
    // The third time: the failure went through a retry with itself in context and through the Debugger.
    rule: "escalated",
    applies: (facts) => facts.debugged && facts.repeated,
    decide: { action: "block" },
    reason: ({ error }) => `the same failure (${error.semantic_signature}) ended a retry and the Debugger's attempt; it needs you`,
  },
  {
    rule: "retries_spent",
    applies: (facts) => facts.attempts > facts.input.retry_budget,
    decide: { action: "block" },
    reason: (facts) => `its retry budget of ${facts.input.retry_budget} is spent after ${facts.attempts} attempt(s)`,
  },
  {
    // Each review is of new work, so the same request twice is not a blind retry: only the budget stops it.
    rule: "review_findings",
    applies: ({ error }) => flag(error, "review_findings"),
    decide: { action: "retry", change: "review_findings" },
    reason: () => "the reviewer requested changes; the repair attempt gets its findings",
  },
  {
    // Running out of time twice is not a bug to diagnose: a third run would time out as well.
    rule: "repeated_timeout",
    applies: (facts) => facts.repeated && flag(facts.error, "timeout"),
    decide: { action: "block" },
    reason: ({ error }) => `the same timeout (${error.semantic_signature}) ended two attempts in a row, the second with a longer timeout`,
  },
  {
    rule: "repeated_to_debugger",
    applies: (facts) => facts.repeated,
    decide: { action: "debug" },
    reason: ({ error }) => `the same failure (${error.semantic_signature}) ended two attempts in a row; the Debugger diagnoses it`,
  },
  {
    rule: "timeout",
    applies: ({ error }) => flag(error, "timeout"),
    decide: { action: "retry", change: "longer_timeout" },
    reason: () => "the attempt ran out of time; the retry gets a longer timeout",
  },
  {
    rule: "merge_conflict",
    applies: ({ error }) => error.kind === "merge_error",
    decide: { action: "retry_serial", change: "serialize" },
    reason: () => "its merge conflicted; the retry runs alone, on the merged state",
  },
];

/** When no rule stops or steers it, a failure is retried with itself in the worker's context. */
const OTHERWISE: Rule = {
  rule: "retryable",
  applies: () => true,
  decide: { action: "retry", change: "failure_in_context" },
  reason: ({ error }) => `a ${error.retryability} ${error.kind}; the retry sees the failure`,
};

export function decide_retry(input: RetryInput): RetryDecision {
  const facts = facts_of(input);
  const matched = RETRY_RULES.find((rule) => rule.applies(facts)) ?? OTHERWISE;
  return { ...matched.decide, rule: matched.rule, reason: matched.reason(facts) };
}

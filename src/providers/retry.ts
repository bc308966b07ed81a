import { setTimeout as wait } from "node:timers/promises";
import { air_failure, is_air_failure, type AirError, type AirFailure } from "../contracts/errors.js";
import { log_detail, log_error } from "../logs/log.js";

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * How hard to try a model request again. `sleep`, `random` and `now` are injectable so tests run the
 * real loop without waiting and with a predictable jitter.
 */
export type RetryPolicy = {
  /** Attempts in total, the first included. */
  readonly max_attempts: number;
  readonly base_delay_ms: number;
  readonly max_delay_ms: number;
  /** A server's `retry-after` is honoured up to this long; a longer one is cut to it. */
  readonly max_retry_after_ms: number;
  readonly sleep: Sleep;
  /** A number in [0, 1). */
  readonly random: () => number;
  /** Milliseconds since the epoch; used to read `retry-after` given as an HTTP date. */
  readonly now: () => number;
};

const real_sleep: Sleep = async (ms, signal) => {
  await wait(ms, undefined, signal === undefined ? undefined : { signal });
};

const DEFAULT_RETRY_POLICY: RetryPolicy = {
  max_attempts: 5,
  base_delay_ms: 1_000,
  max_delay_ms: 30_000,
  max_retry_after_ms: 60_000,
  sleep: real_sleep,
  random: Math.random,
  now: Date.now,
};

export function retry_policy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.max_attempts) || policy.max_attempts < 1) {
    throw new RangeError(`max_attempts must be a positive integer, got ${policy.max_attempts}`);
  }
  return policy;
}

/**
 * The wait before retry number `retry` (1 for the first retry). A server's `retry-after` wins: it knows
 * when capacity returns. Otherwise exponential backoff with "equal jitter" — half fixed, half random —
 * so that many clients failing together do not come back together.
 */
export function retry_delay_ms(policy: RetryPolicy, retry: number, retry_after_ms: number | undefined): number {
  if (retry_after_ms !== undefined) return Math.min(Math.max(0, retry_after_ms), policy.max_retry_after_ms);
  const ceiling = Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + policy.random() * (ceiling / 2));
}

export type RetryNotice = { readonly attempt: number; readonly delay_ms: number; readonly error: AirError };

export type RetryHooks = {
  readonly signal?: AbortSignal | undefined;
  /** Called before each wait; a retried stream starts over, so listeners drop what they received so far. */
  readonly on_retry?: ((notice: RetryNotice) => void) | undefined;
};

/** The wait for `retry-after` carried by a failure (see `anthropic-failure.ts`), if the server sent one. */
function retry_after_of(failure: AirFailure): number | undefined {
  const value = failure.error.metadata?.retry_after_ms;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function cancelled_failure(cause?: unknown): AirFailure {
  return air_failure(
    {
      kind: "provider_error",
      message: "the model request was cancelled",
      retryability: "not_retryable",
      metadata: { cancelled: true },
    },
    cause,
  );
}

/**
 * Runs `attempt` until it succeeds, fails with something not `retryable`, or `max_attempts` is used up.
 * Everything `attempt` throws must already be an AirFailure; anything else is a bug and is thrown as is.
 */
export async function with_retries<T>(policy: RetryPolicy, attempt: (number: number) => Promise<T>, hooks: RetryHooks = {}): Promise<T> {
  for (let number = 1; ; number++) {
    if (hooks.signal?.aborted) throw cancelled_failure(hooks.signal.reason);
    try {
      return await attempt(number);
    } catch (error) {
      if (!is_air_failure(error) || error.error.retryability !== "retryable") throw logged(error);
      if (number >= policy.max_attempts) throw logged(gave_up(error, number));
      const delay_ms = retry_delay_ms(policy, number, retry_after_of(error));
      log_detail("provider", `model request attempt ${number} failed; retrying in ${delay_ms} ms`, error);
      hooks.on_retry?.({ attempt: number, delay_ms, error: error.error });
      try {
        await policy.sleep(delay_ms, hooks.signal);
      } catch (sleep_error) {
        if (hooks.signal?.aborted) throw cancelled_failure(sleep_error);
        throw sleep_error;
      }
    }
  }
}

/** A request that failed for good goes to the logs; one the caller cancelled did not fail. */
function logged(error: unknown): unknown {
  if (!(is_air_failure(error) && error.error.metadata?.cancelled === true)) log_error("provider", "a model request failed", error);
  return error;
}

/** The last failure, saying how often it was tried; still `retryable` — a later call may well succeed. */
function gave_up(last: AirFailure, attempts: number): AirFailure {
  const { error } = last;
  return air_failure(
    {
      kind: error.kind,
      message: `${error.message} (gave up after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
      retryability: "retryable",
      semantic_signature: error.semantic_signature,
      detail: error.detail,
      user_action: error.user_action,
      metadata: { ...error.metadata, attempts },
    },
    last,
  );
}

/**
 * The retry loop on its own: how long it waits (backoff with jitter, or the server's retry-after), when
 * it stops, and how it reads retry-after in its three forms.
 */
import { describe, expect, it } from "vitest";
import { air_failure, type AirFailure } from "../../src/contracts/errors.js";
import { retry_after_ms } from "../../src/providers/anthropic-failure.js";
import { retry_delay_ms, retry_policy, with_retries } from "../../src/providers/retry.js";

const overloaded = (metadata: Record<string, unknown> = {}) =>
  air_failure({ kind: "provider_error", message: "overloaded", retryability: "retryable", metadata });

describe("retry_delay_ms", () => {
  const policy = retry_policy({ base_delay_ms: 1000, max_delay_ms: 8000, random: () => 0.999 });

  it("doubles each retry, up to the ceiling, with jitter in the upper half", () => {
    const low = retry_policy({ ...policy, random: () => 0 });
    expect([1, 2, 3, 4, 5].map((retry) => retry_delay_ms(low, retry, undefined))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5].map((retry) => retry_delay_ms(policy, retry, undefined))).toEqual([1000, 1999, 3998, 7996, 7996]);
  });

  it("waits as long as the server says, up to max_retry_after_ms", () => {
    expect(retry_delay_ms(policy, 1, 2500)).toBe(2500);
    expect(retry_delay_ms(policy, 1, 3_600_000)).toBe(60_000);
  });
});

describe("retry_after_ms", () => {
  const now = () => Date.parse("2025-01-01T00:00:00Z");

  it("reads seconds, milliseconds and HTTP dates", () => {
    expect(retry_after_ms(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(retry_after_ms(new Headers({ "retry-after-ms": "250", "retry-after": "3" }), now)).toBe(250);
    expect(retry_after_ms(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" }), now)).toBe(10_000);
    expect(retry_after_ms(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retry_after_ms(new Headers(), now)).toBeUndefined();
  });
});

describe("with_retries", () => {
  it("stops at the first failure that is not retryable", async () => {
    let attempts = 0;
    const refused = air_failure({ kind: "provider_error", message: "bad request", retryability: "not_retryable" });

    const error = await with_retries(retry_policy({ sleep: async () => undefined }), async () => {
      attempts += 1;
      throw refused;
    }).catch((thrown: unknown) => thrown);

    expect(error).toBe(refused);
    expect(attempts).toBe(1);
  });

  it("makes max_attempts attempts in all, then gives up, still retryable", async () => {
    const waits: number[] = [];
    let attempts = 0;

    const error = (await with_retries(retry_policy({ max_attempts: 4, sleep: async (ms) => void waits.push(ms), random: () => 0 }), async () => {
      attempts += 1;
      throw overloaded({ retry_after_ms: attempts === 2 ? 5000 : undefined });
    }).catch((thrown: unknown) => thrown)) as AirFailure;

    expect(attempts).toBe(4);
    expect(waits).toEqual([500, 5000, 2000]);
    expect(error.error.retryability).toBe("retryable");
    expect(error.message).toBe("overloaded (gave up after 4 attempts)");
    expect(error.error.metadata).toMatchObject({ attempts: 4 });
  });

  it("returns the first success", async () => {
    let attempts = 0;

    const result = await with_retries(retry_policy({ sleep: async () => undefined }), async (number) => {
      attempts = number;
      if (number < 3) throw overloaded();
      return "done";
    });

    expect(result).toBe("done");
    expect(attempts).toBe(3);
  });

  it("refuses a policy without attempts", () => {
    expect(() => retry_policy({ max_attempts: 0 })).toThrow(RangeError);
  });
});

import { describe, expect, it } from "vitest";
import { parse_restore_time } from "../../src/cli/restore-time.js";
import { is_air_failure } from "../../src/contracts/errors.js";

const NOW = new Date("2026-12-03T20:00:00.000Z");

function failure_of(input: string): { message: string; user_action?: string } {
  try {
    parse_restore_time(input, NOW);
  } catch (error) {
    if (is_air_failure(error)) return error.error;
    throw error;
  }
  throw new Error(`${input} was accepted`);
}

describe("parse_restore_time", () => {
  it("reads ISO-8601 with Z or an offset as that instant", () => {
    expect(parse_restore_time("2026-12-03T19:40:00Z", NOW)).toBe("2026-12-03T19:40:00.000Z");
    expect(parse_restore_time("2026-12-03T20:40:00+01:00", NOW)).toBe("2026-12-03T19:40:00.000Z");
    expect(parse_restore_time("2026-12-03T19:40:00.250Z", NOW)).toBe("2026-12-03T19:40:00.250Z");
  });

  it("reads a date and time without a zone as local time, as a user types it", () => {
    expect(parse_restore_time("2026-12-03 19:40", NOW)).toBe(new Date(2026, 11, 3, 19, 40).toISOString());
    expect(parse_restore_time("2026-12-02T08:05:30", NOW)).toBe(new Date(2026, 11, 2, 8, 5, 30).toISOString());
    expect(parse_restore_time("2026-12-01", NOW)).toBe(new Date(2026, 11, 1).toISOString());
  });

  it("reads a bare time as that time today", () => {
    const earlier = new Date(NOW.getTime() - 3_600_000);
    const typed = `${earlier.getHours()}:${String(earlier.getMinutes()).padStart(2, "0")}`;
    expect(parse_restore_time(typed, NOW)).toBe(
      new Date(earlier.getFullYear(), earlier.getMonth(), earlier.getDate(), earlier.getHours(), earlier.getMinutes()).toISOString(),
    );
  });

  it("reads spans back from now: 10m, 2h ago, 3 days ago, 90 seconds", () => {
    expect(parse_restore_time("10m", NOW)).toBe("2026-12-03T19:50:00.000Z");
    expect(parse_restore_time("2h ago", NOW)).toBe("2026-12-03T18:00:00.000Z");
    expect(parse_restore_time("3 days ago", NOW)).toBe("2026-11-30T20:00:00.000Z");
    expect(parse_restore_time("90 seconds", NOW)).toBe("2026-12-03T19:58:30.000Z");
    expect(parse_restore_time("1w", NOW)).toBe("2026-11-26T20:00:00.000Z");
  });

  it("refuses what it cannot read, with the forms it reads in the user action", () => {
    for (const input of ["", "yesterday-ish", "10 parsecs", "2026-13-01", "2026-02-30 10:00", "25:00", "19:40:61", "2026-12-0319:40"]) {
      const failure = failure_of(input);
      expect(failure.message).toContain("is not a time air can restore to");
      expect(failure.user_action).toContain("2h ago");
    }
  });

  it("refuses a time in the future", () => {
    expect(failure_of("2027-01-01T00:00:00Z").message).toContain("in the future");
  });
});

import { air_failure } from "../contracts/errors.js";

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `10m`, `2h ago`, `3 days ago`, `90 seconds`: a span back from now. */
const RELATIVE = /^(\d+)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)(?:\s+ago)?$/i;
/** A date, a time, or both, as a user types them: local time unless an offset or `Z` says otherwise. */
const ABSOLUTE = /^(?:(\d{4})-(\d{2})-(\d{2}))?(?:(?:^|[ T])(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function bad_time(input: string, why: string): never {
  throw air_failure({
    kind: "user_error",
    message: `${JSON.stringify(input)} is not a time air can restore to: ${why}`,
    retryability: "not_retryable",
    user_action:
      "Give an ISO-8601 time (2026-12-03T19:40:00Z), a local date and time (2026-12-03 19:40, or 19:40 for today), or a span back from now (10m, 2h ago, 3 days ago).",
  });
}

function relative_ms(match: RegExpExecArray): number {
  const unit = (match[2] ?? "").toLowerCase();
  const key = unit.startsWith("mi") || unit === "m" ? "m" : unit.charAt(0);
  return Number(match[1]) * (UNIT_MS[key] ?? 0);
}

function offset_minutes(zone: string): number {
  if (zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return zone.startsWith("-") ? -minutes : minutes;
}

/** The instant of a matched absolute form, or undefined when a field is out of range (Feb 30th, 25:00). */
function absolute_ms(match: RegExpExecArray, now: Date): number | undefined {
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const parts = {
    year: year === undefined ? now.getFullYear() : Number(year),
    month: month === undefined ? now.getMonth() : Number(month) - 1,
    day: day === undefined ? now.getDate() : Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
    ms: Number((fraction ?? "0").padEnd(3, "0")),
  };
  if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return undefined;
  const utc = Date.UTC(parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.ms);
  const check = new Date(utc);
  if (check.getUTCMonth() !== parts.month || check.getUTCDate() !== parts.day) return undefined;
  if (zone !== undefined) return utc - offset_minutes(zone) * 60_000;
  const local = new Date(parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.ms);
  return local.getTime();
}

/**
 * The instant `input` names, as an ISO-8601 UTC timestamp: ISO-8601 itself, a local `2026-12-03 19:40` (or
 * `19:40` today, or a bare date at midnight), or a span back from `now` (`10m`, `2h ago`). A time in the
 * future is refused: there is nothing to go back to there.
 */
export function parse_restore_time(input: string, now: Date = new Date()): string {
  const text = input.trim();
  if (text === "") bad_time(input, "it is empty");
  const relative = RELATIVE.exec(text);
  if (relative !== null) return checked(input, now.getTime() - relative_ms(relative), now);
  const absolute = ABSOLUTE.exec(text);
  if (absolute === null || (absolute[1] === undefined && absolute[4] === undefined)) bad_time(input, "the form is not one air reads");
  return checked(input, absolute_ms(absolute, now), now);
}

function checked(input: string, at: number | undefined, now: Date): string {
  if (at === undefined || Number.isNaN(at)) bad_time(input, "a field is out of range");
  if (at > now.getTime()) bad_time(input, `it is in the future (now is ${now.toISOString()})`);
  return new Date(at).toISOString();
}

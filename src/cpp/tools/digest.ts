import * as v from "valibot";
import { type Recorded, RecordedDiagnostic, is_error } from "./rows.js";

/** What the model reads of a run's diagnostics: at most this many bytes (issue 13). */
export const DIGEST_LIMIT_BYTES = 4096;
const NOTES_PER_RECORD = 2;
const NOTE_CHARS = 160;
const MESSAGE_CHARS = 400;
const OCCURRENCES_NAMED = 3;

export const SeverityCounts = v.strictObject({
  errors: v.pipe(v.number(), v.integer(), v.minValue(0)),
  warnings: v.pipe(v.number(), v.integer(), v.minValue(0)),
  notes: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type SeverityCounts = v.InferOutput<typeof SeverityCounts>;

/** One root cause: its semantic signature, the first record that has it, and how many times it was reported. */
export const ErrorGroup = v.strictObject({
  semantic_signature: v.string(),
  first: RecordedDiagnostic,
  occurrences: v.pipe(v.number(), v.integer(), v.minValue(1)),
});
export type ErrorGroup = v.InferOutput<typeof ErrorGroup>;

export function count_severities(recorded: readonly Recorded[]): SeverityCounts {
  const counts = { errors: 0, warnings: 0, notes: 0 };
  for (const { row } of recorded) {
    if (is_error(row.severity)) counts.errors += 1;
    else if (row.severity === "warning") counts.warnings += 1;
    else counts.notes += 1;
  }
  return counts;
}

function reports(recorded: Recorded): number {
  return Math.max(1, recorded.row.occurrences.length);
}

/** Errors grouped by semantic signature, in the parser's order (file, line): the first group is the first root cause. */
export function group_errors(recorded: readonly Recorded[]): ErrorGroup[] {
  const groups = new Map<string, ErrorGroup>();
  for (const entry of recorded) {
    if (!is_error(entry.row.severity)) continue;
    const group = groups.get(entry.row.semantic_signature);
    if (group === undefined)
      groups.set(entry.row.semantic_signature, { semantic_signature: entry.row.semantic_signature, first: entry.row, occurrences: reports(entry) });
    else group.occurrences += reports(entry);
  }
  return [...groups.values()];
}

function clip(text: string, chars: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}

function where(file: string | null, line: number | null, column: number | null): string {
  if (file === null) return "";
  return `${file}${line === null ? "" : `:${line}`}${column === null ? "" : `:${column}`}: `;
}

function entry_text({ row, diagnostic }: Recorded, occurrences: number): string {
  const code = row.code === null ? "" : ` [${row.code}]`;
  const scope = row.function === null ? "" : ` (in ${row.function})`;
  const named = row.occurrences.slice(0, OCCURRENCES_NAMED).join(", ");
  const more = row.occurrences.length > OCCURRENCES_NAMED ? ", …" : "";
  const seen = occurrences > 1 ? ` — reported ${occurrences} times: ${named}${more}` : "";
  const head = `${row.severity} ${where(row.file, row.line, row.column)}${clip(row.message, MESSAGE_CHARS)}${code}${scope}${seen}`;
  const notes = diagnostic.children
    .slice(0, NOTES_PER_RECORD)
    .map((note) => `  ${note.severity} ${where(note.file, note.line, note.column)}${clip(note.message, NOTE_CHARS)}`);
  return [head, ...notes].join("\n");
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The model's view of a run: a count line, then one entry per root cause (errors first, a root cause reported by
 * many translation units once), then the rest, cut to `limit` bytes with how many entries were left out.
 */
export function digest_of(recorded: readonly Recorded[], limit = DIGEST_LIMIT_BYTES): string {
  const counts = count_severities(recorded);
  const groups = group_errors(recorded);
  const header = `${counts.errors} errors (${groups.length} root causes), ${counts.warnings} warnings, ${counts.notes} notes`;
  const errors = groups.flatMap((group) => {
    const first = recorded.find((entry) => entry.row.diagnostic_id === group.first.diagnostic_id);
    return first === undefined ? [] : [entry_text(first, group.occurrences)];
  });
  const others = recorded.filter((entry) => !is_error(entry.row.severity)).map((entry) => entry_text(entry, reports(entry)));
  const entries = [...errors, ...others];
  const reserve = 80;
  const kept: string[] = [header];
  let used = bytes(header);
  for (const entry of entries) {
    const size = bytes(entry) + 1;
    if (used + size > limit - reserve) break;
    kept.push(entry);
    used += size;
  }
  const left_out = entries.length - (kept.length - 1);
  if (left_out > 0) kept.push(`… ${left_out} more entries left out (every diagnostic is in the diagnostics table)`);
  const text = kept.join("\n");
  return bytes(text) <= limit
    ? text
    : Buffer.from(text, "utf8")
        .subarray(0, limit)
        .toString("utf8")
        .replace(/\uFFFD$/, "");
}

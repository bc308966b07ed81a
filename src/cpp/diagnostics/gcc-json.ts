import * as v from "valibot";
import { parsed_diagnostic } from "./parsed.js";
import type { ChildDiagnostic, FixIt, ParsedDiagnostic, Severity } from "./record.js";

/**
 * GCC's `-fdiagnostics-format=json` (one JSON array per translation unit, on one line). GCC 12's JSON drops the
 * include chains, instantiation context and enclosing function the text has, so it only enriches text records
 * (option codes, fix-its); a log with JSON alone gets records from it.
 */

const Point = v.object({ file: v.string(), line: v.number(), column: v.number() });
const Location = v.object({ caret: Point, start: v.optional(Point), finish: v.optional(Point) });
const Fixit = v.object({ start: Point, next: Point, string: v.string() });

type JsonDiagnostic = {
  kind: string;
  message: string;
  option?: string | undefined;
  locations?: v.InferOutput<typeof Location>[] | undefined;
  fixits?: v.InferOutput<typeof Fixit>[] | undefined;
  children?: JsonDiagnostic[] | undefined;
};

const JsonDiagnostic: v.GenericSchema<JsonDiagnostic> = v.object({
  kind: v.string(),
  message: v.string(),
  option: v.optional(v.string()),
  locations: v.optional(v.array(Location)),
  fixits: v.optional(v.array(Fixit)),
  children: v.optional(v.array(v.lazy(() => JsonDiagnostic))),
});

const Report = v.array(JsonDiagnostic);

const SEVERITY: Readonly<Record<string, Severity>> = { error: "error", "fatal error": "fatal", warning: "warning", note: "note", ice: "fatal" };

/** The line GCC prints a translation unit's JSON on. */
export function is_gcc_json_line(line: string): boolean {
  return line.startsWith('[{"kind": ');
}

function located(diagnostic: JsonDiagnostic): { file: string | null; line: number | null; column: number | null } {
  const caret = diagnostic.locations?.[0]?.caret;
  return { file: caret?.file ?? null, line: caret?.line ?? null, column: caret?.column ?? null };
}

function fixit(fix: v.InferOutput<typeof Fixit>): FixIt {
  return {
    file: fix.start.file,
    start: { line: fix.start.line, column: fix.start.column },
    end: { line: fix.next.line, column: fix.next.column },
    replacement: fix.string,
  };
}

function child(diagnostic: JsonDiagnostic): ChildDiagnostic {
  return { severity: SEVERITY[diagnostic.kind] ?? "note", ...located(diagnostic), code: diagnostic.option ?? null, message: diagnostic.message };
}

function record(diagnostic: JsonDiagnostic): ParsedDiagnostic {
  const place = located(diagnostic);
  const parsed = parsed_diagnostic({
    source: "gcc",
    severity: SEVERITY[diagnostic.kind] ?? "error",
    code: diagnostic.option ?? null,
    message: diagnostic.message,
    ...place,
    children: (diagnostic.children ?? []).map(child),
    job: place.file,
  });
  return { ...parsed, fixits: (diagnostic.fixits ?? []).map(fixit) };
}

/** Every JSON line's records; a line cut short or not GCC's shape is skipped (the text says the same). */
export function gcc_json_records(lines: readonly string[]): ParsedDiagnostic[] {
  return lines.flatMap((line) => {
    let document: unknown;
    try {
      document = JSON.parse(line);
    } catch {
      return [];
    }
    const report = v.safeParse(Report, document);
    return report.success ? report.output.map(record) : [];
  });
}

function place_key(diagnostic: ParsedDiagnostic): string {
  return [diagnostic.file ?? "", diagnostic.line ?? 0, diagnostic.column ?? 0, diagnostic.severity].join("\u0000");
}

/**
 * Text records with what only the JSON says (the option code, fix-its) merged in wherever both name the same
 * place and severity — every such text record, so records of one header in many jobs still merge — and the
 * JSON records no text record matches, as they are.
 */
export function enrich_with_gcc_json(text: readonly ParsedDiagnostic[], json: readonly ParsedDiagnostic[]): ParsedDiagnostic[] {
  const by_place = new Map<string, ParsedDiagnostic>();
  for (const from_json of json) {
    const key = place_key(from_json);
    if (!by_place.has(key)) by_place.set(key, from_json);
  }
  const matched = new Set<string>();
  const enriched = text.map((record) => {
    const key = place_key(record);
    const from_json = record.source === "gcc" ? by_place.get(key) : undefined;
    if (from_json === undefined) return record;
    matched.add(key);
    return { ...record, code: record.code ?? from_json.code, fixits: record.fixits.length > 0 ? record.fixits : from_json.fixits };
  });
  return [...enriched, ...json.filter((record) => !matched.has(place_key(record)))];
}

import type { ChildDiagnostic, DiagnosticSource, Frame, ParsedDiagnostic, Severity } from "./record.js";

/** What an adapter knows about one diagnostic; everything else starts empty. */
export type ParsedFields = {
  source: DiagnosticSource;
  severity: Severity;
  message: string;
  code: string | null;
  file?: string | null;
  line?: number | null;
  column?: number | null;
  children?: ChildDiagnostic[];
  frames?: Frame[];
  function?: string | null;
  job?: string | null;
};

export function parsed_diagnostic(fields: ParsedFields): ParsedDiagnostic {
  return {
    severity: fields.severity,
    file: fields.file ?? null,
    line: fields.line ?? null,
    column: fields.column ?? null,
    code: fields.code,
    message: fields.message,
    source: fields.source,
    children: fields.children ?? [],
    context: { include_chain: [], instantiation: [], function: fields.function ?? null, target: null },
    fixits: [],
    frames: fields.frames ?? [],
    job: fields.job ?? null,
  };
}

/** A printed line number as the record's 1-based integer, or null when it is not one. */
export function line_number(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 ? value : null;
}

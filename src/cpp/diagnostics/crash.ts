import type { ParsedDiagnostic } from "./record.js";

/** Placeholders of zone "structured" so this branch type-checks; the merge takes that zone's file. */
export function parse_sanitizer(_text: string): ParsedDiagnostic[] {
  return [];
}

export function parse_gdb_backtrace(_text: string): ParsedDiagnostic[] {
  return [];
}

import type { ParsedDiagnostic } from "./record.js";

/** Placeholder of zone "text" so this branch type-checks; the merge takes that zone's file. */
export function parse_compiler_text(_text: string): ParsedDiagnostic[] {
  return [];
}

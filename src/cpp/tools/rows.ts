import * as v from "valibot";
import type { DiagnosticSeverity } from "../../contracts/events/artifact.js";
import { CommandRunId, DiagnosticId, new_id } from "../../contracts/ids.js";
import type { ToolExecution } from "../../tools/define.js";
import { type Diagnostic, Severity } from "../diagnostics/record.js";

/** A parsed diagnostic as a tool returns it: its row's id, where it is, what it says, and both signatures. */
export const RecordedDiagnostic = v.strictObject({
  diagnostic_id: DiagnosticId,
  severity: Severity,
  file: v.nullable(v.string()),
  line: v.nullable(v.number()),
  column: v.nullable(v.number()),
  code: v.nullable(v.string()),
  message: v.string(),
  /** The test, or the function the compiler named, when there is one. */
  function: v.nullable(v.string()),
  semantic_signature: v.string(),
  family_signature: v.string(),
  /** The translation units (or tests) that reported it: a header's error is one record with many. */
  occurrences: v.array(v.string()),
});
export type RecordedDiagnostic = v.InferOutput<typeof RecordedDiagnostic>;

/** A parsed record with the id of the row it became, and the record itself for the digest's notes. */
export type Recorded = { readonly row: RecordedDiagnostic; readonly diagnostic: Diagnostic };

/** The table keeps four severities; a fatal error is an error, a remark a note. */
const ROW_SEVERITY: Readonly<Record<Severity, DiagnosticSeverity>> = {
  fatal: "error",
  error: "error",
  warning: "warning",
  note: "note",
  remark: "note",
  info: "info",
};

export function is_error(severity: Severity): boolean {
  return ROW_SEVERITY[severity] === "error";
}

function place(diagnostic: Diagnostic): string {
  if (diagnostic.file === null) return "";
  const line = diagnostic.line === null ? "" : `:${diagnostic.line}`;
  return `${diagnostic.file}${line}: `;
}

/**
 * Every record as a `diagnostic.created` row linked to the command run that printed it, and an error's row as
 * `diagnostic` evidence: what backs "the build fails here".
 */
export function record_diagnostics(execution: ToolExecution, diagnostics: readonly Diagnostic[], run_id: string): Recorded[] {
  const command_run_id = v.parse(CommandRunId, run_id);
  return diagnostics.map((diagnostic) => {
    const diagnostic_id = new_id("diagnostic");
    const message = diagnostic.message.trim() === "" ? `${diagnostic.severity} without a message` : diagnostic.message;
    execution.emit("diagnostic.created", {
      diagnostic_id,
      severity: ROW_SEVERITY[diagnostic.severity],
      message,
      semantic_signature: diagnostic.semantic_signature,
      family_signature: diagnostic.family_signature,
      source_tool: execution.tool_name,
      file: diagnostic.file || undefined,
      line: diagnostic.line ?? undefined,
      column: diagnostic.column ?? undefined,
      code: diagnostic.code || undefined,
      task_id: execution.task_id,
      command_run_id,
    });
    if (is_error(diagnostic.severity)) {
      execution.evidence({ kind: "diagnostic", ref: diagnostic_id, claim: `${place(diagnostic)}${message}`, command_run_id, diagnostic_id });
    }
    const { severity, file, line, column, code, semantic_signature, family_signature, occurrences } = diagnostic;
    const row = {
      diagnostic_id,
      severity,
      file,
      line,
      column,
      code,
      message,
      function: diagnostic.context.function,
      semantic_signature,
      family_signature,
      occurrences,
    };
    return { row, diagnostic };
  });
}

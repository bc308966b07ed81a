import * as v from "valibot";

/**
 * One diagnostic as the DiagnosticParser emits it, whatever the tool that printed it (issue 13; the design in
 * shared/research/cpp-toolchain.md §8a): deterministic, no model. Every adapter — compiler text, linker,
 * CMake, make/ninja framing, CTest JUnit, GoogleTest JSON, cppcheck XML, sanitizer reports, gdb backtraces —
 * produces this record, so signatures, de-duplication and the model's digest work on one shape.
 */

export const Severity = v.picklist(["fatal", "error", "warning", "note", "remark", "info"]);
export type Severity = v.InferOutput<typeof Severity>;

/** Which grammar or adapter read the record. */
export const DiagnosticSource = v.picklist([
  "gcc",
  "clang",
  "ld",
  "cmake",
  "make",
  "ninja",
  "ctest-junit",
  "gtest-json",
  "gtest",
  "sanitizer",
  "gdb",
  "cppcheck-xml",
]);
export type DiagnosticSource = v.InferOutput<typeof DiagnosticSource>;

const Line = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * A place in the sources: `file` is repo-relative POSIX, or marked `<sys>/…` (toolchain and system headers,
 * version folders stripped) or `<build>/…` (the build folder); null where the tool named none.
 */
export const SourceLocation = v.strictObject({
  file: v.nullable(v.string()),
  line: v.nullable(Line),
  column: v.nullable(Line),
});
export type SourceLocation = v.InferOutput<typeof SourceLocation>;

/** A replacement the tool proposes (Clang's parseable fix-its, GCC JSON's fixits). */
export const FixIt = v.strictObject({
  file: v.string(),
  start: v.strictObject({ line: Line, column: Line }),
  end: v.strictObject({ line: Line, column: Line }),
  replacement: v.string(),
});
export type FixIt = v.InferOutput<typeof FixIt>;

/** One stack frame of a sanitizer report or a gdb backtrace. */
export const Frame = v.strictObject({
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  function: v.nullable(v.string()),
  ...SourceLocation.entries,
  /** A frame of the sanitizer runtime, libc or libstdc++, which a signature skips. */
  in_app: v.boolean(),
});
export type Frame = v.InferOutput<typeof Frame>;

/** What surrounded the diagnostic: how the file was reached, which instantiation, which function. */
export const DiagnosticContext = v.strictObject({
  include_chain: v.array(SourceLocation),
  instantiation: v.array(v.strictObject({ ...SourceLocation.entries, message: v.string() })),
  function: v.nullable(v.string()),
  /** The translation unit or build target the job that printed it compiled, when the framing says. */
  target: v.nullable(v.string()),
});
export type DiagnosticContext = v.InferOutput<typeof DiagnosticContext>;

const DiagnosticFields = {
  severity: Severity,
  ...SourceLocation.entries,
  /** The tool's own code (`-Wunused-variable`, a cppcheck id, an ASan bug type, `ld.undefined-reference`), or null. */
  code: v.nullable(v.string()),
  message: v.string(),
};

/** A note or other child line attached to a primary diagnostic. */
export const ChildDiagnostic = v.strictObject(DiagnosticFields);
export type ChildDiagnostic = v.InferOutput<typeof ChildDiagnostic>;

export const Diagnostic = v.strictObject({
  ...DiagnosticFields,
  source: DiagnosticSource,
  children: v.array(ChildDiagnostic),
  context: DiagnosticContext,
  fixits: v.array(FixIt),
  frames: v.array(Frame),
  /** Every translation unit (or job) that printed the same record: identical header errors are one record. */
  occurrences: v.array(v.string()),
  /** Same root cause → same value, under line shifts, moved folders, renamed build dirs, temp names, colour (sig/v1). */
  semantic_signature: v.string(),
  /** The kind of failure: tool family, severity class, code and message template (sig/v1). */
  family_signature: v.string(),
});
export type Diagnostic = v.InferOutput<typeof Diagnostic>;

/** A diagnostic as a grammar or adapter reads it, before signatures and de-duplication. */
export type ParsedDiagnostic = Omit<Diagnostic, "semantic_signature" | "family_signature" | "occurrences"> & {
  /** The job (translation unit, test, report) that printed it, for `occurrences`. */
  readonly job: string | null;
};

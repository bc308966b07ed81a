import { type CompilerLine, classify_compiler_line, compiler_text_lines, looks_like_clang } from "./gcc-clang-lines.js";
import type { DiagnosticContext, ParsedDiagnostic, SourceLocation } from "./record.js";

type DiagnosticLine = Extract<CompilerLine, { kind: "diagnostic" }>;
type Instantiation = DiagnosticContext["instantiation"][number];

/**
 * What GCC and Clang print once and then leave implied: an include chain is printed when the header changes
 * (later diagnostics in the same header inherit it), a function or instantiation scope when the scope changes.
 */
type TextState = {
  readonly source: "gcc" | "clang";
  readonly records: ParsedDiagnostic[];
  primary: ParsedDiagnostic | null;
  pending_chain: SourceLocation[] | null;
  last_was_include: boolean;
  included: { file: string; chain: SourceLocation[] } | null;
  /** A scope without a file (an inlining stack) belongs to the next diagnostic, whatever its file, and then to that file. */
  scope: { file: string | null; function: string | null; instantiation: Instantiation[] } | null;
};

// Clang says how an instantiation was reached in notes after the error; GCC in lines before it.
const CLANG_INSTANTIATION_NOTE = /^in instantiation of .* requested here$/;

/**
 * GCC or Clang text output (any number of translation units, colour or not, CRLF or not) as diagnostics: one per
 * primary line, with its notes as children, its include chain (innermost includer first, the translation unit
 * last), its instantiation chain and enclosing function, Clang's parseable fix-its, and the locationless driver
 * lines (`cc1plus: fatal error: …`, `g++: error: …`). Source lines, carets and summaries are skipped. `job` is the
 * translation unit: the outermost includer, or the file itself. Paths stay as printed.
 */
export function parse_compiler_text(text: string): ParsedDiagnostic[] {
  return parse_compiler_lines(compiler_text_lines(text));
}

/** `parse_compiler_text` over lines already free of colour and CRs (the pipeline's). */
export function parse_compiler_lines(lines: readonly string[]): ParsedDiagnostic[] {
  const state: TextState = {
    source: looks_like_clang(lines) ? "clang" : "gcc",
    records: [],
    primary: null,
    pending_chain: null,
    last_was_include: false,
    included: null,
    scope: null,
  };
  for (const line of lines) read_line(state, classify_compiler_line(line));
  return state.records;
}

function read_line(state: TextState, line: CompilerLine): void {
  switch (line.kind) {
    case "diagnostic":
      read_diagnostic(state, line);
      break;
    case "include":
      read_include(state, { file: line.file, line: line.line, column: line.column }, line.continued);
      break;
    case "scope":
      state.scope = {
        file: line.file,
        function: line.function,
        instantiation: line.instantiation === null ? [] : [{ file: line.file, line: null, column: null, message: line.instantiation }],
      };
      break;
    case "instantiation_step":
      state.scope?.instantiation.push({ file: line.file, line: line.line, column: line.column, message: line.message });
      break;
    case "fixit":
      state.primary?.fixits.push(line.fixit);
      break;
    case "other":
      break;
  }
  state.last_was_include = line.kind === "include";
}

/** GCC: `In file included from A:1,` then `from B:2:` (outward). Clang: one `In file included from` line each, outermost first. */
function read_include(state: TextState, location: SourceLocation, continued: boolean): void {
  if (state.pending_chain === null || !state.last_was_include) state.pending_chain = [location];
  else if (continued) state.pending_chain.push(location);
  else state.pending_chain.unshift(location);
}

function include_chain_of(state: TextState, file: string | null): SourceLocation[] {
  if (file === null) return [];
  if (state.pending_chain !== null) {
    const chain = state.pending_chain;
    state.pending_chain = null;
    state.included = { file, chain };
    return chain;
  }
  // A copy: records that inherit the chain must not share one array with each other.
  if (state.included?.file === file) return [...state.included.chain];
  state.included = { file, chain: [] };
  return [];
}

function scope_of(state: TextState, file: string | null): TextState["scope"] {
  if (state.scope === null) return null;
  if (state.scope.file === null) state.scope.file = file;
  return state.scope.file === file ? state.scope : null;
}

function read_diagnostic(state: TextState, line: DiagnosticLine): void {
  const include_chain = include_chain_of(state, line.file);
  const { primary } = state;
  if (line.severity === "note" && primary !== null) {
    if (state.source === "clang" && CLANG_INSTANTIATION_NOTE.test(line.message)) {
      primary.context.instantiation.push({ file: line.file, line: line.line, column: line.column, message: line.message });
      return;
    }
    primary.children.push({ severity: line.severity, file: line.file, line: line.line, column: line.column, code: line.code, message: line.message });
    return;
  }
  const scope = scope_of(state, line.file);
  const record: ParsedDiagnostic = {
    severity: line.severity,
    file: line.file,
    line: line.line,
    column: line.column,
    code: line.code,
    message: line.message,
    source: state.source,
    children: [],
    context: { include_chain, instantiation: scope === null ? [] : [...scope.instantiation], function: scope?.function ?? null, target: null },
    fixits: [],
    frames: [],
    job: include_chain.at(-1)?.file ?? line.file,
  };
  state.records.push(record);
  state.primary = record;
}

import { fileURLToPath } from "node:url";
import {
  type DocumentSymbol,
  type Hover,
  type Location,
  type LocationLink,
  type Diagnostic as LspDiagnostic,
  DiagnosticSeverity,
  type MarkedString,
  MarkupContent,
  type Range,
  type SymbolInformation,
  SymbolKind,
} from "vscode-languageserver-protocol";
import { normalise_path, type PathContext } from "../diagnostics/paths.js";
import type { ChildDiagnostic, Diagnostic, ParsedDiagnostic, Severity } from "../diagnostics/record.js";
import { family_signature, semantic_signature } from "../diagnostics/signature.js";
import type { ClangdLocation, ClangdSymbol } from "./results.js";

/** LSP `Function` → `function`, `TypeParameter` → `type_parameter`. */
const KIND_NAMES = new Map<number, string>(Object.entries(SymbolKind).map(([name, kind]) => [kind, name.replace(/(?<!^)([A-Z])/g, "_$1").toLowerCase()]));

function path_of_uri(uri: string, paths: PathContext): string {
  return normalise_path(uri.startsWith("file:") ? fileURLToPath(uri) : uri, paths);
}

/** LSP's 0-based range as our 1-based span. */
function span(range: Range): Omit<ClangdLocation, "file"> {
  return { line: range.start.line + 1, column: range.start.character + 1, end_line: range.end.line + 1, end_column: range.end.character + 1 };
}

function location_of(uri: string, range: Range, paths: PathContext): ClangdLocation {
  return { file: path_of_uri(uri, paths), ...span(range) };
}

/** Definition and references answer with one location, a list, links, or null; all become a sorted, distinct list. */
export function locations_of(answer: Location | Location[] | LocationLink[] | null, paths: PathContext): ClangdLocation[] {
  if (answer === null) return [];
  const list = Array.isArray(answer) ? answer : [answer];
  const located = list.map((entry) =>
    "targetUri" in entry ? location_of(entry.targetUri, entry.targetSelectionRange, paths) : location_of(entry.uri, entry.range, paths),
  );
  const distinct = new Map(located.map((location) => [`${location.file}:${location.line}:${location.column}`, location]));
  return [...distinct.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

function marked_text(content: MarkedString): string {
  return typeof content === "string" ? content : content.value;
}

export function hover_text(hover: Hover | null): string | null {
  if (hover === null) return null;
  const { contents } = hover;
  const text = Array.isArray(contents) ? contents.map(marked_text).join("\n\n") : MarkupContent.is(contents) ? contents.value : marked_text(contents);
  return text.trim() === "" ? null : text.trim();
}

function flatten(symbols: readonly DocumentSymbol[], container: string | null, file: string): ClangdSymbol[] {
  return symbols.flatMap((symbol) => [
    {
      name: symbol.name,
      kind: KIND_NAMES.get(symbol.kind) ?? "unknown",
      detail: symbol.detail ?? null,
      container,
      file,
      ...span(symbol.selectionRange),
    },
    ...flatten(symbol.children ?? [], symbol.name, file),
  ]);
}

/** The outline in document order, nested symbols after their container. */
export function symbols_of(answer: DocumentSymbol[] | SymbolInformation[] | null, file: string, paths: PathContext): ClangdSymbol[] {
  if (answer === null) return [];
  return answer.flatMap((symbol) =>
    "location" in symbol
      ? [
          {
            name: symbol.name,
            kind: KIND_NAMES.get(symbol.kind) ?? "unknown",
            detail: null,
            container: symbol.containerName ?? null,
            ...location_of(symbol.location.uri, symbol.location.range, paths),
          },
        ]
      : flatten([symbol], null, file),
  );
}

function severity_of(severity: DiagnosticSeverity | undefined): Severity {
  switch (severity) {
    case DiagnosticSeverity.Warning:
      return "warning";
    case DiagnosticSeverity.Information:
      return "info";
    case DiagnosticSeverity.Hint:
      return "note";
    default:
      return "error";
  }
}

/** A clangd diagnostic as the DiagnosticParser's record (source `clang`), signed the same way; notes become children. */
export function diagnostic_of(diagnostic: LspDiagnostic, file: string, paths: PathContext): Diagnostic {
  const children: ChildDiagnostic[] = (diagnostic.relatedInformation ?? []).map((related) => {
    const { file: note_file, line, column } = location_of(related.location.uri, related.location.range, paths);
    return { severity: "note", file: note_file, line, column, code: null, message: related.message };
  });
  const parsed: ParsedDiagnostic = {
    severity: severity_of(diagnostic.severity),
    file,
    line: diagnostic.range.start.line + 1,
    column: diagnostic.range.start.character + 1,
    code: diagnostic.code === undefined ? null : String(diagnostic.code),
    message: typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value,
    source: "clang",
    children,
    context: { include_chain: [], instantiation: [], function: null, target: null },
    fixits: [],
    frames: [],
    job: file,
  };
  const { job: _job, ...record } = parsed;
  return { ...record, occurrences: [file], semantic_signature: semantic_signature(parsed), family_signature: family_signature(parsed) };
}

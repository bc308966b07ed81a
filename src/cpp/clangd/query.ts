import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { DeclarationRequest, DefinitionRequest, DocumentSymbolRequest, HoverRequest, type Position, ReferencesRequest } from "vscode-languageserver-protocol";
import { air_failure } from "../../contracts/errors.js";
import { normalise_path, type PathContext } from "../diagnostics/paths.js";
import { type ClangdClient, file_uri } from "./client.js";
import { translation_units } from "./compile-db.js";
import { diagnostic_of, hover_text, locations_of, symbols_of } from "./convert.js";
import type { ClangdQueryOutput } from "./results.js";

type ClangdAction = ClangdQueryOutput["action"];

export type ClangdQuery = {
  readonly client: ClangdClient;
  /** The workspace root (absolute, real) and the folder of its compilation database, if any. */
  readonly root: string;
  readonly compile_commands_dir: string | null;
  /** The asked file, absolute, and its text as on disk now. */
  readonly file: string;
  readonly text: string;
  readonly action: ClangdAction;
  /** 1-based, for definition, references and hover. */
  readonly line?: number;
  readonly column?: number;
  readonly signal?: AbortSignal;
};

/**
 * No background index runs (it would parse the whole project on start), so clangd knows only the files it has
 * open. Cross-file questions open the translation units that mention the identifier first, at most this many.
 */
const MAX_RELATED_UNITS = 24;
const IDENTIFIER = /[A-Za-z0-9_]/;

/** The identifier under the 0-based position, or null (an operator, a literal, whitespace). */
function identifier_at(text: string, position: Position): string | null {
  const line = text.split("\n")[position.line] ?? "";
  let start = position.character;
  let end = position.character;
  while (start > 0 && IDENTIFIER.test(line[start - 1] ?? "")) start -= 1;
  while (end < line.length && IDENTIFIER.test(line[end] ?? "")) end += 1;
  const word = line.slice(start, end);
  return /^[A-Za-z_]\w*$/.test(word) ? word : null;
}

function read_or_null(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** Opens `file` in clangd and waits until it is parsed: its diagnostics come after its symbols reach the index. */
async function index_file(query: ClangdQuery, file: string): Promise<boolean> {
  const text = read_or_null(file);
  if (text === null) return false;
  await query.client.sync(file, text, query.signal);
  await query.client.diagnostics(file, query.signal);
  return true;
}

/** The other translation units that mention the identifier, opened and parsed; returns them. */
async function index_related(query: ClangdQuery, position: Position): Promise<string[]> {
  const name = identifier_at(query.text, position);
  if (name === null) return [];
  const mention = new RegExp(`\\b${name}\\b`);
  const related = translation_units(query.compile_commands_dir)
    .filter((unit) => unit !== query.file)
    .filter((unit) => mention.test(read_or_null(unit) ?? ""))
    .slice(0, MAX_RELATED_UNITS);
  const indexed: string[] = [];
  for (const unit of related) if (await index_file(query, unit)) indexed.push(unit);
  return indexed;
}

/** References in a header come only from an AST of it: the header that declares the symbol is opened too. */
async function index_declaring_header(query: ClangdQuery, position: Position, text_document: { uri: string }): Promise<string[]> {
  const declared = await query.client.request(DeclarationRequest.type, { textDocument: text_document, position }, query.signal);
  const list = declared === null ? [] : Array.isArray(declared) ? declared : [declared];
  const headers = list
    .map((entry) => ("targetUri" in entry ? entry.targetUri : entry.uri))
    .filter((uri) => uri.startsWith(`${file_uri(query.root)}/`) && uri !== file_uri(query.file))
    .map((uri) => fileURLToPath(uri));
  const indexed: string[] = [];
  for (const header of new Set(headers)) if (await index_file(query, header)) indexed.push(header);
  return indexed;
}

/** A position the model computed wrong gets an answer saying so, not clangd's silent null. */
function checked_position(query: ClangdQuery, file: string): Position {
  const line = query.line ?? 1;
  const column = query.column ?? 1;
  const lines = query.text.split("\n");
  if (query.text.endsWith("\n")) lines.pop();
  const text = lines[line - 1];
  if (text === undefined || column > text.length + 1) {
    const where =
      text === undefined
        ? `line ${line} is past the end of ${file} (${lines.length} lines)`
        : `column ${column} is past the end of ${file}:${line} (${text.length} characters)`;
    throw air_failure({
      kind: "tool_error",
      message: where,
      retryability: "retryable_after_change",
      user_action: "Give a 1-based line and column inside the file, as fs.read numbers its lines.",
      metadata: { file, line, column },
    });
  }
  return { line: line - 1, character: column - 1 };
}

/** Answers one query; the file is synced from `text` first, so answers follow the file as it is on disk. */
export async function run_clangd_query(query: ClangdQuery): Promise<ClangdQueryOutput> {
  const { client, signal } = query;
  const build_dirs = query.compile_commands_dir !== null && query.compile_commands_dir !== query.root ? [query.compile_commands_dir] : [];
  const paths: PathContext = { root: query.root, build_dirs };
  const file = normalise_path(query.file, paths);
  const text_document = { uri: file_uri(query.file) };
  await client.sync(query.file, query.text, signal);
  switch (query.action) {
    case "hover": {
      const position = checked_position(query, file);
      return { action: "hover", file, hover: hover_text(await client.request(HoverRequest.type, { textDocument: text_document, position }, signal)) };
    }
    case "document_symbols":
      return {
        action: "document_symbols",
        file,
        symbols: symbols_of(await client.request(DocumentSymbolRequest.type, { textDocument: text_document }, signal), file, paths),
      };
    case "diagnostics": {
      const published = await client.diagnostics(query.file, signal);
      return { action: "diagnostics", file, diagnostics: published.map((diagnostic) => diagnostic_of(diagnostic, file, paths)) };
    }
    case "definition": {
      const position = checked_position(query, file);
      const searched = await index_related(query, position);
      const answer = await client.request(DefinitionRequest.type, { textDocument: text_document, position }, signal);
      return { action: "definition", file, locations: locations_of(answer, paths), searched: searched.map((unit) => normalise_path(unit, paths)) };
    }
    case "references": {
      const position = checked_position(query, file);
      const searched = [...(await index_related(query, position)), ...(await index_declaring_header(query, position, text_document))];
      const answer = await client.request(ReferencesRequest.type, { textDocument: text_document, position, context: { includeDeclaration: true } }, signal);
      return { action: "references", file, locations: locations_of(answer, paths), searched: searched.map((unit) => normalise_path(unit, paths)) };
    }
  }
}

import { DefinitionRequest, DocumentSymbolRequest, HoverRequest, type Position, ReferencesRequest } from "vscode-languageserver-protocol";
import { air_failure } from "../../contracts/errors.js";
import { normalise_path, type PathContext } from "../diagnostics/paths.js";
import { type ClangdClient, file_uri } from "./client.js";
import { diagnostic_of, hover_text, locations_of, symbols_of } from "./convert.js";
import { index_declaring_header, index_related } from "./related.js";
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
      const searched = [...(await index_related(query, position)), ...(await index_declaring_header(query, position))];
      const answer = await client.request(ReferencesRequest.type, { textDocument: text_document, position, context: { includeDeclaration: true } }, signal);
      return { action: "references", file, locations: locations_of(answer, paths), searched: searched.map((unit) => normalise_path(unit, paths)) };
    }
  }
}

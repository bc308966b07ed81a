import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { DeclarationRequest, type Position } from "vscode-languageserver-protocol";
import { file_uri } from "./client.js";
import { translation_units } from "./compile-db.js";
import type { ClangdQuery } from "./query.js";

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
export async function index_related(query: ClangdQuery, position: Position): Promise<string[]> {
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
export async function index_declaring_header(query: ClangdQuery, position: Position): Promise<string[]> {
  const text_document = { uri: file_uri(query.file) };
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

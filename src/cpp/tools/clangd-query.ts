import fs from "node:fs";
import * as v from "valibot";
import { AirFailure } from "../../contracts/errors.js";
import { define_tool } from "../../tools/define.js";
import { locate, PathInput, read_text_file } from "../../tools/fs/common.js";
import { invalid_input_error } from "../../tools/registry-errors.js";
import type { ClangdPool } from "../clangd/pool.js";
import { ClangdQueryOutput } from "../clangd/results.js";

const POSITION_ACTIONS: readonly string[] = ["definition", "references", "hover"];
const Position = v.pipe(v.number(), v.integer(), v.minValue(1));

const ClangdQueryInput = v.strictObject({
  file: v.pipe(PathInput, v.description("The C or C++ source or header to ask about.")),
  action: v.picklist(["definition", "references", "hover", "document_symbols", "diagnostics"]),
  line: v.optional(v.pipe(Position, v.description("1-based line of the symbol; required for definition, references and hover."))),
  column: v.optional(v.pipe(Position, v.description("1-based column of the symbol on that line; required with line."))),
});

/**
 * The input with its cross-field rule. The registry exports the input as JSON Schema for the model, which has no
 * form for this check, so it is applied at the start of `execute` and fails the way a schema failure does.
 */
const ClangdQuery = v.pipe(
  ClangdQueryInput,
  v.check(
    (input) => !POSITION_ACTIONS.includes(input.action) || (input.line !== undefined && input.column !== undefined),
    "definition, references and hover need line and column",
  ),
);

/** `cpp.clangd.query`, answered by the pool's clangd of the calling workspace. */
export function clangd_query_tool(pool: ClangdPool) {
  return define_tool({
    name: "cpp.clangd.query",
    version: 1,
    description:
      "Ask clangd about a C or C++ file: `definition` or `references` of the symbol at line/column (across the " +
      "translation units of compile_commands.json that mention it), `hover` (its type and documentation), " +
      "`document_symbols` (the file's outline) or `diagnostics` (clangd's errors and warnings, as cpp.build reports them). " +
      "Read-only: clangd indexes in memory and never writes the project. Lines and columns are 1-based; paths repo-relative.",
    category: "project",
    input: ClangdQueryInput,
    output: ClangdQueryOutput,
    permissions: { reads: (input) => [input.file] },
    async execute(input, execution) {
      const checked = v.safeParse(ClangdQuery, input);
      if (!checked.success) throw new AirFailure(invalid_input_error("cpp.clangd.query", checked.issues));
      const located = locate(execution, input.file);
      const { text } = read_text_file(located);
      const root = fs.realpathSync(execution.project_root);
      const { client, compile_commands_dir } = await pool.client(root);
      // The LSP protocol's modules (~0.4 MB of the bundle) load at the first query, not with every session's tools.
      const { run_clangd_query } = await import("../clangd/query.js");
      return run_clangd_query({
        client,
        root,
        compile_commands_dir,
        file: located.real,
        text,
        action: checked.output.action,
        line: checked.output.line,
        column: checked.output.column,
        signal: execution.signal,
      });
    },
  });
}

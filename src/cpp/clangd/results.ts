import * as v from "valibot";
import { Diagnostic } from "../diagnostics/record.js";

/** What `cpp.clangd.query` answers, one shape per action; places are 1-based and repo-relative like the DiagnosticParser's. */

const Position = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A span of source: `file` repo-relative POSIX, `<sys>/…` for a system header, `<build>/…` in the build folder. */
export const ClangdLocation = v.strictObject({
  file: v.string(),
  line: Position,
  column: Position,
  end_line: Position,
  end_column: Position,
});
export type ClangdLocation = v.InferOutput<typeof ClangdLocation>;

/** One symbol of a document, the outline flattened: `container` names the enclosing symbol. */
export const ClangdSymbol = v.strictObject({
  name: v.string(),
  /** The LSP symbol kind in snake case: `function`, `class`, `method`, `type_parameter`… */
  kind: v.string(),
  /** clangd's detail, usually the signature (`int (const Point &)`). */
  detail: v.nullable(v.string()),
  container: v.nullable(v.string()),
  ...ClangdLocation.entries,
});
export type ClangdSymbol = v.InferOutput<typeof ClangdSymbol>;

const Asked = { file: v.string() };

export const ClangdQueryOutput = v.variant("action", [
  v.strictObject({
    action: v.picklist(["definition", "references"]),
    ...Asked,
    locations: v.array(ClangdLocation),
    /** The translation units clangd parsed to answer beyond the asked file (no background index runs). */
    searched: v.array(v.string()),
  }),
  v.strictObject({ action: v.literal("hover"), ...Asked, hover: v.nullable(v.string()) }),
  v.strictObject({ action: v.literal("document_symbols"), ...Asked, symbols: v.array(ClangdSymbol) }),
  v.strictObject({ action: v.literal("diagnostics"), ...Asked, diagnostics: v.array(Diagnostic) }),
]);
export type ClangdQueryOutput = v.InferOutput<typeof ClangdQueryOutput>;

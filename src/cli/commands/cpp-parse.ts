import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { From, parse_diagnostics } from "../../cpp/diagnostics/parse.js";
import type { Diagnostic } from "../../cpp/diagnostics/record.js";
import type { Io } from "../output.js";

export type CppParseOptions = {
  readonly from?: string;
  readonly root?: string;
  readonly json: boolean;
  readonly files: readonly string[];
};

function chosen_format(from: string | undefined): From {
  const parsed = v.safeParse(From, from ?? "auto");
  if (parsed.success) return parsed.output;
  throw air_failure({
    kind: "user_error",
    message: `--from ${from} is not a format air cpp parse reads`,
    retryability: "retryable_after_change",
    user_action: `Use one of: ${From.options.join(", ")}.`,
  });
}

function read_log(io: Io, file: string): string {
  const full = path.resolve(io.cwd, file);
  try {
    return fs.readFileSync(full, "utf8");
  } catch (error) {
    throw air_failure({
      kind: "user_error",
      message: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      retryability: "retryable_after_change",
      user_action: "Name a file that exists and is readable (a build log, a CTest JUnit file, a sanitizer report …).",
    });
  }
}

/** One line a person reads: where, how bad, what, and the signature that groups it with the same root cause. */
function text_line(diagnostic: Diagnostic): string {
  const where = [diagnostic.file ?? "<unknown>", diagnostic.line, diagnostic.column].filter((part) => part !== null).join(":");
  const code = diagnostic.code === null ? "" : ` [${diagnostic.code}]`;
  const seen = diagnostic.occurrences.length > 1 ? ` (${diagnostic.occurrences.length} places)` : "";
  return `${where}: ${diagnostic.severity}: ${diagnostic.message}${code}${seen}\n    ${diagnostic.semantic_signature}`;
}

/**
 * `air cpp parse FILE...`: the DiagnosticParser over saved output (a CI log, a JUnit file), no model involved.
 * Each file is read in its own format (`--from auto` detects it); files are paths relative to `--root`
 * (default the working folder) in what is printed.
 */
export async function run_cpp_parse(io: Io, options: CppParseOptions): Promise<number> {
  if (options.files.length === 0) {
    throw air_failure({
      kind: "user_error",
      message: "air cpp parse needs at least one FILE to read",
      retryability: "retryable_after_change",
      user_action: "Pass the build log or report to parse, e.g. `air cpp parse build.log`.",
    });
  }
  const from = chosen_format(options.from);
  const root = path.resolve(io.cwd, options.root ?? ".");
  const diagnostics = options.files.flatMap((file) => parse_diagnostics(read_log(io, file), { from, root }));
  if (options.json) io.out(`${JSON.stringify({ diagnostics })}\n`);
  else io.out(diagnostics.length === 0 ? "no diagnostics found\n" : `${diagnostics.map(text_line).join("\n")}\n`);
  return 0;
}

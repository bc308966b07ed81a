import { parse_gdb_lines, parse_sanitizer_lines } from "./crash.js";
import { parse_compiler_lines } from "./gcc-clang.js";
import { type ParseOptions, run_pipeline } from "./pipeline.js";
import type { Diagnostic } from "./record.js";
import { parse_cppcheck_xml, parse_gtest_json, parse_junit } from "./structured.js";

export { From, type ParseOptions } from "./pipeline.js";

/** The DiagnosticParser: any supported tool's output as signed, de-duplicated, sorted records (`air cpp parse`). */
export function parse_diagnostics(text: string, options: ParseOptions): Diagnostic[] {
  return run_pipeline(
    {
      compiler_text: parse_compiler_lines,
      junit: parse_junit,
      gtest_json: parse_gtest_json,
      cppcheck_xml: parse_cppcheck_xml,
      sanitizer: parse_sanitizer_lines,
      gdb_backtrace: parse_gdb_lines,
    },
    text,
    options,
  );
}

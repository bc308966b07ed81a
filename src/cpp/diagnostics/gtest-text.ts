import { parsed_diagnostic } from "./parsed.js";
import type { ParsedDiagnostic } from "./record.js";

/** GoogleTest's own text output, as `ctest --output-on-failure` or a test binary prints it. */
const RUN = /^\[ RUN {6}\] (\S+)$/;
const FAILURE = /^(.+?):(\d+): Failure$/;
const BANNER = /^\[[ =A-Z-]{10}\]/;

/** Whether the lines hold a GoogleTest assertion failure (`FILE:LINE: Failure`). */
export function has_gtest_failure(lines: readonly string[]): boolean {
  return lines.some((line) => line.endsWith(": Failure") && FAILURE.test(line));
}

/** One error per failed assertion: its place, what it says (the lines up to the next banner), in the test's name. */
export function parse_gtest_text(lines: readonly string[]): ParsedDiagnostic[] {
  const out: ParsedDiagnostic[] = [];
  let test: string | null = null;
  let open: { file: string; line: number; body: string[] } | null = null;
  const close = (): void => {
    if (open === null) return;
    const message = open.body
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .join(" ");
    out.push(
      parsed_diagnostic({ source: "gtest", severity: "error", code: "gtest.failure", message, file: open.file, line: open.line, function: test, job: test }),
    );
    open = null;
  };
  for (const line of lines) {
    const failure = line.endsWith(": Failure") ? FAILURE.exec(line) : null;
    if (failure?.[1] !== undefined) {
      close();
      open = { file: failure[1], line: Number(failure[2]), body: [] };
    } else if (BANNER.test(line)) {
      close();
      test = RUN.exec(line)?.[1] ?? test;
    } else {
      open?.body.push(line);
    }
  }
  close();
  return out;
}

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import type { ToolExecution } from "../../tools/define.js";
import type { Diagnostic } from "../diagnostics/record.js";
import { parse_diagnostics } from "../diagnostics/parse.js";
import { real_root } from "./common.js";
import { CrashBacktraces } from "./crash-backtrace.js";
import { type CtestSection, gtest_failed_ids, TestOutcome } from "./ctest-output.js";
import { type Recorded, RecordedDiagnostic, record_diagnostics } from "./rows.js";

export const TestFailure = v.strictObject({
  test: v.string(),
  outcome: TestOutcome,
  /** The first diagnostic's: same failing assertion or crash site → same value. */
  semantic_signature: v.nullable(v.string()),
  /** Where the evidence came from: the test's assertions, its sanitizer report, a gdb backtrace, or CTest alone. */
  source: v.picklist(["gtest", "sanitizer", "gdb", "ctest"]),
  diagnostics: v.array(RecordedDiagnostic),
});
export type TestFailure = v.InferOutput<typeof TestFailure>;

/** What ctest left behind for one run: its JUnit report, the GoogleTest JSON reports, and its stdout cut per test. */
export type TestRun = {
  readonly command_run_id: string;
  readonly junit: string;
  readonly gtest_folder: string;
  readonly sections: readonly CtestSection[];
  readonly build_dir: { real: string; display: string };
};

type Found = { source: TestFailure["source"]; diagnostics: Diagnostic[]; command_run_id: string };

function gtest_reports(execution: ToolExecution, run: TestRun): Diagnostic[] {
  if (!fs.existsSync(run.gtest_folder)) return [];
  const options = { from: "gtest-json" as const, root: real_root(execution), build_dirs: [run.build_dir.real] };
  return fs
    .readdirSync(run.gtest_folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .flatMap((name) => parse_diagnostics(fs.readFileSync(path.join(run.gtest_folder, name), "utf8"), options));
}

/** The best account of one failed test: its sanitizer report, its GoogleTest assertions, gdb's backtrace, else CTest's record. */
async function account(
  execution: ToolExecution,
  run: TestRun,
  section: CtestSection,
  sources: { junit: Diagnostic[]; gtest: Diagnostic[]; crashes: CrashBacktraces | null },
): Promise<Found> {
  const options = { root: real_root(execution), build_dirs: [run.build_dir.real] };
  const ctest_run = run.command_run_id;
  const sanitizer = parse_diagnostics(section.output, { ...options, from: "sanitizer" });
  if (sanitizer.length > 0) return { source: "sanitizer", diagnostics: sanitizer, command_run_id: ctest_run };
  const failed_ids = gtest_failed_ids(section.output);
  const gtest = sources.gtest.filter((diagnostic) => diagnostic.context.function !== null && failed_ids.has(diagnostic.context.function));
  if (gtest.length > 0) return { source: "gtest", diagnostics: gtest, command_run_id: ctest_run };
  if (section.outcome === "crashed" && sources.crashes !== null) {
    const crash = await sources.crashes.of(section.name);
    if (crash !== null) return { source: "gdb", diagnostics: crash.diagnostics, command_run_id: crash.run.output.command_run_id };
  }
  const own = sources.junit.filter((diagnostic) => diagnostic.context.function === section.name);
  return { source: "ctest", diagnostics: own, command_run_id: ctest_run };
}

/**
 * Every failed test with its diagnostics recorded as rows, in ctest's order; and the extra command runs (ctest's
 * listing, gdb) it took to get crash backtraces.
 */
export async function test_failures(
  execution: ToolExecution,
  run: TestRun,
): Promise<{ failures: TestFailure[]; recorded: Recorded[]; crashes: CrashBacktraces }> {
  const junit = parse_diagnostics(run.junit, { from: "ctest-junit", root: real_root(execution), build_dirs: [run.build_dir.real] });
  const crashes = new CrashBacktraces(execution, run.build_dir);
  const sources = { junit, gtest: gtest_reports(execution, run), crashes: CrashBacktraces.available() ? crashes : null };
  const failures: TestFailure[] = [];
  const recorded: Recorded[] = [];
  for (const section of run.sections) {
    if (section.outcome === "passed" || section.outcome === "not_run") continue;
    const found = await account(execution, run, section, sources);
    const rows = record_diagnostics(execution, found.diagnostics, found.command_run_id);
    recorded.push(...rows);
    failures.push({
      test: section.name,
      outcome: section.outcome,
      semantic_signature: rows[0]?.row.semantic_signature ?? null,
      source: found.source,
      diagnostics: rows.map((entry) => entry.row),
    });
  }
  return { failures, recorded, crashes };
}

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { CommandRunId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool, type ToolExecution } from "../../tools/define.js";
import { run_shell_command } from "../../tools/shell/command.js";
import {
  BuildDirInput,
  command_line,
  configured_build_dir,
  CPP_ENV,
  DEFAULT_BUILD_DIR,
  find_program,
  JobsInput,
  missing_program,
  timeout_input,
} from "./common.js";
import { ctest_sections } from "./ctest-output.js";
import { DIGEST_LIMIT_BYTES, digest_of, group_errors } from "./digest.js";
import { run_failure } from "./failure.js";
import { junit_counts, TestCounts } from "./junit-counts.js";
import type { Recorded } from "./rows.js";
import { TestFailure, test_failures } from "./test-failures.js";

/** Inside the build folder: ctest's JUnit report and one GoogleTest JSON report per test binary. */
const REPORTS = "air-tests";
const JUNIT = `${REPORTS}/junit.xml`;

const TestInput = v.strictObject({
  build_dir: BuildDirInput,
  regex: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(1000),
      v.regex(/^[^\0\n\r]*$/, "a single line"),
      v.description("Run only the tests whose name matches (ctest -R)."),
    ),
  ),
  test_timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3600), v.description("Per-test timeout in seconds (ctest --timeout)."))),
  jobs: JobsInput,
  timeout_ms: timeout_input(1_800_000),
});
type TestInput = v.InferOutput<typeof TestInput>;

const TestOutput = v.strictObject({
  ok: v.literal(true),
  exit_code: v.pipe(v.number(), v.integer()),
  build_dir: v.string(),
  command_run_id: CommandRunId,
  counts: TestCounts,
  failures: v.array(TestFailure),
  digest: v.string(),
  effects: ToolEffects,
});

function test_command(input: TestInput): string {
  const words = ["ctest", "--test-dir", input.build_dir, "--output-junit", JUNIT, "--output-on-failure"];
  if (input.regex !== undefined) words.push("-R", input.regex);
  if (input.test_timeout_s !== undefined) words.push("--timeout", String(input.test_timeout_s));
  words.push("-j", String(input.jobs));
  return command_line(words);
}

/** A fresh reports folder, so a report a previous run left cannot pass for this run's. */
function fresh_reports(build_dir: string): { junit: string; gtest: string } {
  const folder = path.join(build_dir, REPORTS);
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(path.join(folder, "gtest"), { recursive: true });
  return { junit: path.join(build_dir, JUNIT), gtest: path.join(folder, "gtest") };
}

/** The count line and the failed tests' names, then the failures' digest in what is left of the 4 KB. */
function tests_digest(failures: readonly TestFailure[], recorded: readonly Recorded[], counts: TestCounts): string {
  if (failures.length === 0) return `${counts.passed} of ${counts.total} tests passed, ${counts.skipped} skipped`;
  const names = failures.map((failure) => `${failure.test} (${failure.outcome})`).join(", ");
  const head = `${counts.failed} of ${counts.total} tests failed: ${names}`.slice(0, 600);
  return `${head}\n${digest_of(recorded, DIGEST_LIMIT_BYTES - Buffer.byteLength(head) - 1)}`;
}

async function run_tests(input: TestInput, execution: ToolExecution) {
  if (find_program(["ctest"]) === undefined) throw missing_program("ctest", "cpp.test");
  const build_dir = configured_build_dir(execution, input.build_dir);
  const reports = fresh_reports(build_dir.real);
  // GoogleTest binaries read GTEST_OUTPUT: each writes `<binary>.json` into the folder (a trailing slash means a folder).
  const env = { ...CPP_ENV, GTEST_OUTPUT: `json:${reports.gtest}/` };
  const run = await run_shell_command(execution, { command: test_command(input), cwd: execution.project_root, timeout_ms: input.timeout_ms, env });
  if (!fs.existsSync(reports.junit)) {
    throw run_failure({
      kind: "test_error",
      summary: `ctest wrote no report (exit code ${run.output.exit_code}): ${run.output.stderr_tail.trim().slice(-1000) || "no output"}`,
      user_action: "Check that the build folder was built (cpp.build) and has tests (enable_testing() and add_test in CMakeLists.txt).",
      digest: "",
      groups: [],
      runs: [run.output],
    });
  }
  const junit = fs.readFileSync(reports.junit, "utf8");
  const counts = junit_counts(junit);
  const sections = ctest_sections(run.stdout.toString("utf8"));
  const found = await test_failures(execution, { command_run_id: run.output.command_run_id, junit, gtest_folder: reports.gtest, sections, build_dir });
  const runs = [run.output, ...found.crashes.runs.map((extra) => extra.output)];
  const digest = tests_digest(found.failures, found.recorded, counts);
  if (run.output.exit_code !== 0 || found.failures.length > 0) {
    throw run_failure({
      kind: "test_error",
      summary: `${counts.failed} of ${counts.total} tests failed in ${build_dir.display}`,
      user_action: "Fix the first failure in the digest and run the tests again; every failure is in the diagnostics table.",
      digest,
      groups: group_errors(found.recorded),
      runs,
      metadata: {
        build_dir: build_dir.display,
        counts,
        failures: found.failures.map(({ test, outcome, source, semantic_signature }) => ({ test, outcome, source, semantic_signature })),
      },
    });
  }
  return {
    ok: true as const,
    exit_code: run.output.exit_code,
    build_dir: build_dir.display,
    command_run_id: run.output.command_run_id,
    counts,
    failures: [],
    digest,
    effects: { command_runs: runs.flatMap((output) => output.effects.command_runs ?? []) },
  };
}

export const cpp_test = define_tool({
  name: "cpp.test",
  version: 1,
  description:
    `Run a built CMake folder's tests (default ${DEFAULT_BUILD_DIR}) with ctest, reading its JUnit report and each ` +
    "GoogleTest binary's JSON report; a crashing test gets its sanitizer report or a gdb backtrace. Failures become " +
    "diagnostics with signatures, and a digest of at most 4 KB.",
  category: "test",
  input: TestInput,
  output: TestOutput,
  permissions: {
    writes: (input) => [input.build_dir],
    executes: (input) => ({ command: test_command(input), cwd: "." }),
  },
  execute: run_tests,
});

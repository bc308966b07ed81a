import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { CommandRunId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool, type ToolExecution } from "../../tools/define.js";
import { PathInput } from "../../tools/fs/common.js";
import { run_shell_command } from "../../tools/shell/command.js";
import { parse_diagnostics } from "../diagnostics/parse.js";
import { command_line, CPP_ENV, DEFAULT_BUILD_DIR, find_program, locate_inside, missing_program, real_root, timeout_input } from "./common.js";
import { count_severities, digest_of, SeverityCounts } from "./digest.js";
import { run_failure } from "./failure.js";
import { RecordedDiagnostic, record_diagnostics } from "./rows.js";

const MAX_LISTED = 200;
const DEFAULT_DATABASE = `${DEFAULT_BUILD_DIR}/compile_commands.json`;

/** A cppcheck suppression: an id, optionally `:file[:line]` (cppcheck(1) --suppress). */
const Suppression = v.pipe(v.string(), v.maxLength(1000), v.regex(/^[A-Za-z0-9_*]+(?::[^\s:]+(?::\d+)?)?$/, "expected ID, ID:FILE or ID:FILE:LINE"));

const CppcheckInput = v.strictObject({
  compile_commands: v.optional(
    v.pipe(PathInput, v.description(`The compilation database (default ${DEFAULT_DATABASE}, written by cpp.cmake.configure).`)),
    DEFAULT_DATABASE,
  ),
  suppress: v.optional(v.pipe(v.array(Suppression), v.maxLength(64), v.description("Findings to suppress (cppcheck --suppress).")), []),
  timeout_ms: timeout_input(900_000),
});
type CppcheckInput = v.InferOutput<typeof CppcheckInput>;

const CppcheckOutput = v.strictObject({
  exit_code: v.pipe(v.number(), v.integer()),
  command_run_id: CommandRunId,
  counts: SeverityCounts,
  /** The first MAX_LISTED findings, in file and line order. */
  findings: v.array(RecordedDiagnostic),
  digest: v.string(),
  effects: ToolEffects,
});

function cppcheck_command(input: CppcheckInput): string {
  const words = ["cppcheck", "--xml", "--enable=warning,style,performance", `--project=${input.compile_commands}`];
  words.push(...input.suppress.map((suppression) => `--suppress=${suppression}`));
  return command_line(words);
}

async function run_cppcheck(input: CppcheckInput, execution: ToolExecution) {
  if (find_program(["cppcheck"]) === undefined) throw missing_program("cppcheck", "cpp.static.cppcheck");
  const database = locate_inside(execution, input.compile_commands, "compilation database");
  if (!fs.existsSync(database.real)) {
    throw air_failure({
      kind: "static_analysis_error",
      message: `${database.display} does not exist`,
      retryability: "retryable_after_change",
      user_action: "Run cpp.cmake.configure first: it writes compile_commands.json into the build folder.",
      metadata: { compile_commands: database.display },
    });
  }
  const run = await run_shell_command(execution, { command: cppcheck_command(input), cwd: execution.project_root, timeout_ms: input.timeout_ms, env: CPP_ENV });
  const xml = run.stderr.toString("utf8");
  const build_dirs = [path.dirname(database.real)];
  const diagnostics = run.output.exit_code === 0 ? parse_diagnostics(xml, { from: "cppcheck-xml", root: real_root(execution), build_dirs }) : [];
  const recorded = record_diagnostics(execution, diagnostics, run.output.command_run_id);
  if (run.output.exit_code !== 0) {
    throw run_failure({
      kind: "static_analysis_error",
      summary: `cppcheck failed (exit code ${run.output.exit_code}): ${run.output.stdout_tail.trim().slice(-500) || xml.trim().slice(-500) || "no output"}`,
      user_action: "Check the compilation database and the suppressions; cppcheck's output is in the command's artifacts.",
      digest: "",
      groups: [],
      runs: [run.output],
    });
  }
  return {
    exit_code: run.output.exit_code,
    command_run_id: run.output.command_run_id,
    counts: count_severities(recorded),
    findings: recorded.slice(0, MAX_LISTED).map((entry) => entry.row),
    digest: digest_of(recorded),
    effects: run.output.effects,
  };
}

export const cpp_static_cppcheck = define_tool({
  name: "cpp.static.cppcheck",
  version: 1,
  description:
    `cppcheck (warning, style, performance) over the compilation database (default ${DEFAULT_DATABASE}); every finding ` +
    "becomes a diagnostic with signatures. Findings are results, not a failure; only cppcheck itself failing is.",
  category: "static_analysis",
  input: CppcheckInput,
  output: CppcheckOutput,
  permissions: {
    reads: (input) => [input.compile_commands],
    executes: (input) => ({ command: cppcheck_command(input), cwd: "." }),
  },
  execute: run_cppcheck,
});

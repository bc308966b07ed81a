import * as v from "valibot";
import { CommandRunId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool, type ToolExecution } from "../../tools/define.js";
import { run_shell_command } from "../../tools/shell/command.js";
import { parse_diagnostics } from "../diagnostics/parse.js";
import { BuildDirInput, command_line, configured_build_dir, CPP_ENV, DEFAULT_BUILD_DIR, JobsInput, real_root, timeout_input } from "./common.js";
import { count_severities, digest_of, ErrorGroup, group_errors, SeverityCounts } from "./digest.js";
import { run_failure } from "./failure.js";
import { RecordedDiagnostic, record_diagnostics } from "./rows.js";

/** Records returned inline; every one is in the diagnostics table whatever this says. */
const MAX_LISTED = 100;

const Target = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.+:/-]+$/, "expected a CMake target name"), v.maxLength(256));

const BuildInput = v.strictObject({
  build_dir: BuildDirInput,
  targets: v.optional(v.pipe(v.array(Target), v.maxLength(64), v.description("Targets to build (default: all).")), []),
  jobs: JobsInput,
  timeout_ms: timeout_input(1_800_000),
});
type BuildInput = v.InferOutput<typeof BuildInput>;

const BuildOutput = v.strictObject({
  ok: v.literal(true),
  exit_code: v.pipe(v.number(), v.integer()),
  build_dir: v.string(),
  command_run_id: CommandRunId,
  counts: SeverityCounts,
  /** Errors by root cause; empty for a build that passed. */
  groups: v.array(ErrorGroup),
  /** The warnings and notes of a passing build (the first MAX_LISTED). */
  diagnostics: v.array(RecordedDiagnostic),
  digest: v.string(),
  effects: ToolEffects,
});

function build_command(input: Pick<BuildInput, "build_dir" | "targets" | "jobs">): string {
  const targets = input.targets.length === 0 ? [] : ["--target", ...input.targets];
  return command_line(["cmake", "--build", input.build_dir, ...targets, "-j", String(input.jobs)]);
}

async function build(input: BuildInput, execution: ToolExecution) {
  const build_dir = configured_build_dir(execution, input.build_dir);
  const run = await run_shell_command(execution, { command: build_command(input), cwd: execution.project_root, timeout_ms: input.timeout_ms, env: CPP_ENV });
  const text = `${run.stdout.toString("utf8")}\n${run.stderr.toString("utf8")}`;
  const diagnostics = parse_diagnostics(text, { from: "auto", root: real_root(execution), build_dirs: [build_dir.real] });
  const recorded = record_diagnostics(execution, diagnostics, run.output.command_run_id);
  const groups = group_errors(recorded);
  const digest = digest_of(recorded);
  if (run.output.exit_code !== 0) {
    const causes = groups.length === 1 ? "1 root cause" : `${groups.length} root causes`;
    throw run_failure({
      kind: "build_error",
      summary: `the build of ${build_dir.display} failed (exit code ${run.output.exit_code}, ${causes})`,
      user_action: "Fix the first root cause in the digest and build again; every diagnostic is in the diagnostics table.",
      digest,
      groups,
      runs: [run.output],
      metadata: { build_dir: build_dir.display },
    });
  }
  return {
    ok: true as const,
    exit_code: run.output.exit_code,
    build_dir: build_dir.display,
    command_run_id: run.output.command_run_id,
    counts: count_severities(recorded),
    groups,
    diagnostics: recorded.slice(0, MAX_LISTED).map((entry) => entry.row),
    digest,
    effects: run.output.effects,
  };
}

export const cpp_build = define_tool({
  name: "cpp.build",
  version: 1,
  description:
    `Build a configured CMake build folder (default ${DEFAULT_BUILD_DIR}; run cpp.cmake.configure first) and parse every ` +
    "compiler, linker and build-tool diagnostic into the diagnostics table. A failure groups errors by root cause " +
    "(semantic signature: one header error seen by many translation units is one cause) and carries a digest of at most 4 KB.",
  category: "build",
  input: BuildInput,
  output: BuildOutput,
  permissions: { executes: (input) => ({ command: build_command(input), cwd: "." }) },
  execute: build,
});

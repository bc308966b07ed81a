import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { ToolEffects } from "../../contracts/tool.js";
import { CommandRunId } from "../../contracts/ids.js";
import { define_tool, type ToolExecution } from "../../tools/define.js";
import { PathInput } from "../../tools/fs/common.js";
import { run_shell_command } from "../../tools/shell/command.js";
import { parse_diagnostics } from "../diagnostics/parse.js";
import { BuildDirInput, command_line, CPP_ENV, DEFAULT_BUILD_DIR, find_program, locate_inside, missing_program, real_root, timeout_input } from "./common.js";
import { count_severities, digest_of, group_errors, SeverityCounts } from "./digest.js";
import { run_failure } from "./failure.js";
import { record_diagnostics } from "./rows.js";

const Definition = v.pipe(
  v.string(),
  v.maxLength(4096),
  v.regex(/^[A-Za-z_][A-Za-z0-9_.+-]*(?::[A-Za-z]+)?=[^\0\n\r]*$/, "expected NAME=VALUE (or NAME:TYPE=VALUE)"),
);

const ConfigureInput = v.strictObject({
  source_dir: v.optional(v.pipe(PathInput, v.description("The folder holding the top CMakeLists.txt (default: the project root).")), "."),
  build_dir: BuildDirInput,
  build_type: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_]+$/, "expected a build type such as Debug or Release"), v.description("CMAKE_BUILD_TYPE."))),
  definitions: v.optional(v.pipe(v.array(Definition), v.maxLength(64), v.description("Further cache entries, each NAME=VALUE (passed as -DNAME=VALUE).")), []),
  fresh: v.optional(v.pipe(v.boolean(), v.description("Drop the existing cache first (cmake --fresh), e.g. to change generator.")), false),
  timeout_ms: timeout_input(300_000),
});
type ConfigureInput = v.InferOutput<typeof ConfigureInput>;

const Generator = v.picklist(["Ninja", "Unix Makefiles"]);
type Generator = v.InferOutput<typeof Generator>;

const ConfigureOutput = v.strictObject({
  build_dir: v.string(),
  generator: Generator,
  /** The compilation database CMake wrote, relative to the project root, or null when it wrote none. */
  compile_commands: v.nullable(v.string()),
  command_run_id: CommandRunId,
  counts: SeverityCounts,
  digest: v.string(),
  effects: ToolEffects,
});

/** Ninja when it is on PATH (faster, and its framing is the parser's best case), Make otherwise. */
function generator(): Generator {
  return find_program(["ninja", "ninja-build"]) === undefined ? "Unix Makefiles" : "Ninja";
}

function configure_command(input: ConfigureInput): string {
  const words = ["cmake", "-S", input.source_dir, "-B", input.build_dir, "-G", generator(), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"];
  if (input.fresh) words.push("--fresh");
  if (input.build_type !== undefined) words.push(`-DCMAKE_BUILD_TYPE=${input.build_type}`);
  words.push(...input.definitions.map((definition) => `-D${definition}`));
  return command_line(words);
}

/** Asks CMake's File API for the code model, which `cpp.detect` reads back for targets and sources. */
function query_code_model(build_dir: string): void {
  const query = path.join(build_dir, ".cmake", "api", "v1", "query");
  fs.mkdirSync(query, { recursive: true });
  fs.writeFileSync(path.join(query, "codemodel-v2"), "");
}

async function configure(input: ConfigureInput, execution: ToolExecution) {
  if (find_program(["cmake"]) === undefined) throw missing_program("cmake", "cpp.cmake.configure");
  locate_inside(execution, input.source_dir, "source folder");
  const build = locate_inside(execution, input.build_dir, "build folder");
  const chosen = generator();
  query_code_model(build.real);
  const command = configure_command(input);
  const run = await run_shell_command(execution, { command, cwd: execution.project_root, timeout_ms: input.timeout_ms, env: CPP_ENV });
  const text = `${run.stdout.toString("utf8")}\n${run.stderr.toString("utf8")}`;
  const diagnostics = parse_diagnostics(text, { from: "auto", root: real_root(execution), build_dirs: [build.real] });
  const recorded = record_diagnostics(execution, diagnostics, run.output.command_run_id);
  const digest = digest_of(recorded);
  if (run.output.exit_code !== 0) {
    throw run_failure({
      kind: "build_error",
      summary: `cmake could not configure ${build.display} (exit code ${run.output.exit_code})`,
      user_action: "Fix the CMake error the digest names (CMakeLists.txt, a missing package), or call again with fresh: true after a generator change.",
      digest,
      groups: group_errors(recorded),
      runs: [run.output],
      metadata: { build_dir: build.display },
    });
  }
  const database = path.join(build.real, "compile_commands.json");
  return {
    build_dir: build.display,
    generator: chosen,
    compile_commands: fs.existsSync(database) ? path.posix.join(build.display, "compile_commands.json") : null,
    command_run_id: run.output.command_run_id,
    counts: count_severities(recorded),
    digest,
    effects: run.output.effects,
  };
}

export const cpp_cmake_configure = define_tool({
  name: "cpp.cmake.configure",
  version: 1,
  description:
    `Configure a CMake build folder (default ${DEFAULT_BUILD_DIR}) with Ninja when present, Make otherwise, exporting ` +
    "compile_commands.json, in a deterministic environment (LC_ALL=C, no colour). CMake errors come back parsed, with a digest.",
  category: "build",
  input: ConfigureInput,
  output: ConfigureOutput,
  permissions: {
    writes: (input) => [input.build_dir],
    executes: (input) => ({ command: configure_command(input), cwd: "." }),
  },
  execute: configure,
});

import fs from "node:fs";
import os from "node:os";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import type { ToolExecution } from "../../tools/define.js";
import { type Located, locate, PathInput } from "../../tools/fs/common.js";
import { shell_quote } from "../../tools/git/output.js";
import { find_on_path } from "../../tools/shell/sandbox.js";

/** Where a workspace's build folder lives unless the call names another: one per project root, so one per workspace. */
export const DEFAULT_BUILD_DIR = "build/air";

/**
 * A deterministic environment for every C++ command (issue 13): the C locale (ASCII quotes in GCC's messages),
 * no colour, ninja's default status line and a dumb terminal, so the parser reads the same bytes on every machine.
 */
export const CPP_ENV: Readonly<Record<string, string>> = {
  LC_ALL: "C",
  CLICOLOR: "0",
  CLICOLOR_FORCE: "0",
  TERM: "dumb",
  NINJA_STATUS: "[%f/%t] ",
};

export const BuildDirInput = v.optional(
  v.pipe(PathInput, v.description(`The build folder, relative to the project root (default ${DEFAULT_BUILD_DIR}).`)),
  DEFAULT_BUILD_DIR,
);

export const JobsInput = v.optional(
  v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(256), v.description("Parallel jobs (default: the machine's processors).")),
  () => os.availableParallelism(),
);

const MAX_TIMEOUT_MS = 60 * 60_000;

export function timeout_input(default_ms: number) {
  return v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT_MS), v.description(`Kill the command after this long (default ${default_ms} ms).`)),
    default_ms,
  );
}

/** A word bash reads as itself; commas too (they expand only inside braces), so `--enable=a,b` stays readable. */
const PLAIN_WORD = /^[A-Za-z0-9_./=:@%+,-]+$/;

/** Joins words into the command line the PermissionEngine judges and bash runs, each quoted as needed. */
export function command_line(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : shell_quote(word))).join(" ");
}

/** The first of `names` on the PATH commands run with, as an absolute path. */
export function find_program(names: readonly string[]): string | undefined {
  for (const name of names) {
    const found = find_on_path(name, process.env.PATH);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The project root as the toolchain prints it (real path), for the parser to make paths repo-relative. */
export function real_root(execution: ToolExecution): string {
  return fs.realpathSync(execution.project_root);
}

/** A folder a C++ tool works on: it must stay inside the project root (the task's workspace for a confined task). */
export function locate_inside(execution: ToolExecution, input: string, what: string): Located {
  const located = locate(execution, input);
  if (!located.inside_project) {
    throw air_failure({
      kind: "policy_error",
      message: `the ${what} ${input} is outside the project root ${execution.project_root}`,
      retryability: "retryable_after_change",
      user_action: `Name a ${what} inside the project, e.g. ${DEFAULT_BUILD_DIR}.`,
      metadata: { path: input },
    });
  }
  return located;
}

/** A build folder that `cpp.cmake.configure` already set up (its CMakeCache.txt exists). */
export function configured_build_dir(execution: ToolExecution, input: string): Located {
  const located = locate_inside(execution, input, "build folder");
  if (!fs.existsSync(`${located.real}/CMakeCache.txt`)) {
    throw air_failure({
      kind: "build_error",
      message: `${located.display} is not a configured CMake build folder (it has no CMakeCache.txt)`,
      retryability: "retryable_after_change",
      user_action: "Run cpp.cmake.configure first (it creates the build folder), or name the build folder cpp.detect lists.",
      metadata: { build_dir: located.display },
    });
  }
  return located;
}

/** Tells the caller that a program a tool needs is missing, with the doctor's fix. */
export function missing_program(program: string, tool: string) {
  return air_failure({
    kind: "dependency_error",
    message: `${tool} needs ${program}, which is not on PATH`,
    retryability: "retryable_after_change",
    user_action: `Install ${program} (\`air doctor --fix\` lists the command), then call ${tool} again.`,
    metadata: { program },
  });
}

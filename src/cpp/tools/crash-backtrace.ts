import fs from "node:fs";
import type { ToolExecution } from "../../tools/define.js";
import { run_shell_command, type ShellCommandResult } from "../../tools/shell/command.js";
import type { Diagnostic } from "../diagnostics/record.js";
import { parse_diagnostics } from "../diagnostics/parse.js";
import { command_line, CPP_ENV, find_program, real_root } from "./common.js";
import { type TestCommand, test_commands } from "./ctest-output.js";

const LISTING_TIMEOUT_MS = 60_000;
const GDB_TIMEOUT_MS = 120_000;

/**
 * Backtraces of tests that crashed without a sanitizer report, from gdb. The commands it runs are ctest's own
 * listing and the very test command ctest just ran (under `gdb -batch`), inside the build folder: nothing the
 * judged `ctest` call did not already run, so they are not judged again.
 */
export class CrashBacktraces {
  readonly runs: ShellCommandResult[] = [];
  #commands: Map<string, TestCommand> | undefined;

  constructor(
    private readonly execution: ToolExecution,
    private readonly build_dir: { real: string; display: string },
  ) {}

  /** Whether gdb is on PATH; without it a crash keeps only CTest's own record (the manifest calls gdb degraded). */
  static available(): boolean {
    return find_program(["gdb"]) !== undefined;
  }

  async #listing(): Promise<Map<string, TestCommand>> {
    if (this.#commands !== undefined) return this.#commands;
    const command = command_line(["ctest", "--test-dir", this.build_dir.display, "--show-only=json-v1"]);
    const run = await run_shell_command(this.execution, { command, cwd: this.execution.project_root, timeout_ms: LISTING_TIMEOUT_MS, env: CPP_ENV });
    this.runs.push(run);
    this.#commands = run.output.exit_code === 0 ? test_commands(run.stdout.toString("utf8")) : new Map();
    return this.#commands;
  }

  /** The crash of `test` as gdb reports it (signal, frames), with the command run it came from; null when gdb saw none. */
  async of(test: string): Promise<{ diagnostics: Diagnostic[]; run: ShellCommandResult } | null> {
    const listed = (await this.#listing()).get(test);
    if (listed === undefined) return null;
    const cwd = listed.cwd !== null && fs.existsSync(listed.cwd) ? listed.cwd : this.build_dir.real;
    const command = command_line(["gdb", "-batch", "-ex", "run", "-ex", "bt", "--args", ...listed.command]);
    const run = await run_shell_command(this.execution, { command, cwd, timeout_ms: GDB_TIMEOUT_MS, env: CPP_ENV });
    this.runs.push(run);
    const text = `${run.stdout.toString("utf8")}\n${run.stderr.toString("utf8")}`;
    const diagnostics = parse_diagnostics(text, { from: "auto", root: real_root(this.execution), build_dirs: [this.build_dir.real] }).filter(
      (diagnostic) => diagnostic.source === "gdb",
    );
    return diagnostics.length === 0 ? null : { diagnostics, run };
  }
}

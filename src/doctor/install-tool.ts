import * as v from "valibot";
import { define_tool } from "../tools/define.js";
import { run_shell_command, ShellRunOutput } from "../tools/shell/command.js";

const INSTALL_TIMEOUT_MS = 30 * 60_000;

export const DOCTOR_INSTALL_TOOL = "doctor.install";

/**
 * One install command of a capability manifest, run by `air doctor --fix` (D-045) — never offered to a model.
 * It runs on the host, not in the sandbox: installing writes system folders, which is the point; the
 * permission engine judges the exact command line, and doctor has already asked the user for it.
 */
export const doctor_install = define_tool({
  name: DOCTOR_INSTALL_TOOL,
  version: 1,
  description: "Run one install command from a capability manifest, as air doctor --fix does.",
  category: "shell",
  input: v.strictObject({ command: v.pipe(v.string(), v.minLength(1), v.maxLength(4000)) }),
  output: ShellRunOutput,
  permissions: { executes: (input) => ({ command: input.command, cwd: "." }) },
  async execute(input, execution) {
    const { output } = await run_shell_command(execution, {
      command: input.command,
      cwd: execution.project_root,
      timeout_ms: INSTALL_TIMEOUT_MS,
      env: { LC_ALL: "C", DEBIAN_FRONTEND: "noninteractive" },
      on_host: true,
    });
    return output;
  },
});

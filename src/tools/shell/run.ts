import fs from "node:fs";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { define_tool } from "../define.js";
import { locate, PathInput } from "../fs/common.js";
import { run_shell_command, ShellRunOutput } from "./command.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 30 * 60_000;

const ShellRunInput = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000), v.description("A bash command line, run with `bash --noprofile --norc -c`.")),
  cwd: v.optional(v.pipe(PathInput, v.description("Working folder inside the project (default: the project root).")), "."),
  timeout_ms: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_TIMEOUT_MS),
      v.description(`Kill the command after this long (default ${DEFAULT_TIMEOUT_MS} ms).`),
    ),
    DEFAULT_TIMEOUT_MS,
  ),
});

export const shell_run = define_tool({
  name: "shell.run",
  version: 1,
  description:
    "Run a bash command in the project (`bash --noprofile --norc -c`, scrubbed environment, no credentials). " +
    "Under the bwrap sandbox it can write only the project (or the task's write area) and its build folders, " +
    "not .git or .air, and has no network unless the command is a network command that was allowed. " +
    "Returns the exit code and the end of stdout/stderr; the full output is saved as artifacts. Killed after timeout_ms.",
  category: "shell",
  input: ShellRunInput,
  output: ShellRunOutput,
  permissions: { executes: (input) => ({ command: input.command, cwd: input.cwd }) },
  async execute(input, execution) {
    const cwd = locate(execution, input.cwd);
    if (!fs.existsSync(cwd.real) || !fs.statSync(cwd.real).isDirectory()) {
      throw air_failure({
        kind: "tool_error",
        message: `the working folder ${cwd.display} does not exist`,
        retryability: "retryable_after_change",
        user_action: "Pass an existing folder of the project as cwd.",
        metadata: { cwd: cwd.display },
      });
    }
    const { output } = await run_shell_command(execution, { command: input.command, cwd: cwd.real, timeout_ms: input.timeout_ms });
    return output;
  },
});

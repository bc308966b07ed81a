import { air_failure } from "../../contracts/errors.js";
import { locate_project_root } from "../../project/project-store.js";
import { ProviderManager } from "../../providers/manager.js";
import type { Io } from "../output.js";
import type { OutputFormat } from "../progress.js";
import { inspect_options, start_inspection } from "../../inspect/attach.js";
import { parse_permission_options } from "../permission-options.js";
import { run_requirement } from "../run-requirement.js";

const FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];

export async function run_run(
  io: Io,
  options: { print?: string; output_format?: string; max_turns?: string; permission_mode?: string; prompts?: string; inspect?: string; inspect_file?: string },
): Promise<number> {
  if (options.print === undefined || options.print.trim() === "") {
    throw air_failure({
      kind: "user_error",
      message: "air run needs a requirement with -p",
      retryability: "not_retryable",
      user_action: 'Run `air run -p "<what you want done>"`; the interactive TUI is tracked in issue #6.',
    });
  }
  const format = (options.output_format ?? "text") as OutputFormat;
  if (!FORMATS.includes(format)) {
    throw air_failure({ kind: "user_error", message: `unknown output format "${format}"`, retryability: "not_retryable", user_action: `Use one of: ${FORMATS.join(", ")}.` });
  }
  const max_turns = options.max_turns === undefined ? undefined : Number(options.max_turns);
  if (max_turns !== undefined && (!Number.isInteger(max_turns) || max_turns < 1)) {
    throw air_failure({ kind: "user_error", message: `--max-turns must be a positive integer, not "${options.max_turns}"`, retryability: "not_retryable", user_action: "Pass e.g. --max-turns 20." });
  }
  const permissions = parse_permission_options(options);
  const request = { requirement: options.print, format, permissions, ...(max_turns === undefined ? {} : { max_turns }) };
  const providers = ProviderManager.load({ project_root: locate_project_root(io.cwd) ?? io.cwd });
  const inspection = await start_inspection(io, inspect_options(options));
  try {
    const report = await run_requirement(io, { ...request, ...(inspection === undefined ? {} : { inspect: inspection.inspect }) }, providers);
    return report.code;
  } finally {
    inspection?.close();
  }
}

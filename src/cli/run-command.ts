import { type Command, type ParsedArgs, strings } from "./command.js";

/** `--permission-mode default|accept-edits|plan|bypass` and `--prompts auto|stdin|policy`, for commands that run agents. */
export const PERMISSION_FLAGS = { "permission-mode": { type: "string" }, prompts: { type: "string" } } as const;
/** `--inspect[=PORT|sky]` (a bare `--inspect` is normalised before parsing) and `--inspect-file PATH`. */
const INSPECT_FLAGS = { inspect: { type: "string" }, "inspect-file": { type: "string" } } as const;

export function permission_values(values: Record<string, unknown>): { permission_mode?: string; prompts?: string } {
  return strings(values, { permission_mode: "permission-mode", prompts: "prompts" });
}

/** `air run`; a usage error (more than one project folder) is the caller's to tell, with the help it prints. */
export const RUN_COMMAND: Command = {
  summary:
    "Open the TUI on a new session of this project (or the folder given); with -p, do one requirement headless (--output-format stream-json: Claude Code's message stream; events: air's own events). -c continues the latest session, -r ID another (-r alone on a terminal: pick one)",
  usage:
    'air run [project] [-c | -r [ID]] (the TUI) | air run -p "<requirement>" [project] [-c | -r [ID]] [--output-format text|json|stream-json|events] [--max-turns N] [--max-parallel N] [--max-budget-usd USD] [--max-tokens N] [--permission-mode MODE] [--prompts auto|stdin|policy] [--inspect[=PORT|sky]] [--inspect-file PATH]',
  options: {
    print: { type: "string", short: "p" },
    continue: { type: "boolean", short: "c" },
    resume: { type: "string", short: "r" },
    "output-format": { type: "string" },
    "max-turns": { type: "string" },
    "max-parallel": { type: "string" },
    "max-budget-usd": { type: "string" },
    "max-tokens": { type: "string" },
    ...PERMISSION_FLAGS,
    ...INSPECT_FLAGS,
  },
  positionals: true,
  run: async (values, positionals, io) => {
    // The TUI's first frame before the command's modules load (pre-frame.ts says why).
    const pre_frame =
      values.print === undefined ? (await import("./pre-frame.js")).paint_pre_frame(strings(values, { mode: "permission-mode" }).mode) : undefined;
    return (await import("./commands/run.js")).run_run(io, {
      ...(pre_frame === undefined ? {} : { pre_frame }),
      ...(positionals[0] === undefined ? {} : { project: positionals[0] }),
      ...(typeof values.print === "string" ? { print: values.print } : {}),
      ...(values.continue === true ? { continue: true } : {}),
      ...(typeof values.resume === "string" ? { resume: values.resume } : {}),
      ...(typeof values["output-format"] === "string" ? { output_format: values["output-format"] } : {}),
      ...(typeof values["max-turns"] === "string" ? { max_turns: values["max-turns"] } : {}),
      ...permission_values(values),
      ...strings(values, {
        inspect: "inspect",
        inspect_file: "inspect-file",
        max_budget_usd: "max-budget-usd",
        max_tokens: "max-tokens",
        max_parallel: "max-parallel",
      }),
    });
  },
};

/** Whether `air run`'s arguments (parsed, not `--help`) open the TUI: no `-p`, and at most one project folder (more is a usage error). */
export function opens_tui({ values, positionals }: ParsedArgs): boolean {
  return values.print === undefined && positionals.length <= 1;
}

import { type ParsedArgs, run_command } from "./command.js";
import type { Io } from "./output.js";
import { RUN_COMMAND } from "./run-command.js";

/**
 * `air run` on the TUI, entered from main.ts with the parsed arguments `opens_tui` accepted. Bundled apart from the
 * other commands (scripts/bundle-cli.mjs says why), so it imports nothing of theirs: the run command alone.
 */
export function main_tui(parsed: ParsedArgs, io: Io): Promise<number> {
  return run_command(RUN_COMMAND, parsed, io, "air run");
}

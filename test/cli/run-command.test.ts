import { describe, expect, it } from "vitest";
import { parse_command_args } from "../../src/cli/command.js";
import { opens_tui, RUN_COMMAND } from "../../src/cli/run-command.js";

const run_args = (rest: string[]) => parse_command_args(RUN_COMMAND, rest);

describe("opens_tui", () => {
  it("opens the TUI for air run, -c and -r [ID] with its flags and at most one project folder", () => {
    for (const rest of [[], ["proj", "--permission-mode", "plan"], ["-c"], ["-r"], ["--resume=ses_1", "--inspect"]]) {
      expect(opens_tui(run_args(rest)), rest.join(" ")).toBe(true);
    }
  });

  it("leaves a headless -p and a usage error of two folders to the full CLI", () => {
    for (const rest of [
      ["-p", "fix it"],
      ["--print=fix it", "-c"],
      ["a", "b"],
    ]) {
      expect(opens_tui(run_args(rest)), rest.join(" ")).toBe(false);
    }
  });
});

import { describe, expect, it } from "vitest";
import { tui_run_args } from "../../src/cli/run-command.js";

describe("tui_run_args", () => {
  it("takes air run, air -c and air -r [ID] with the TUI's flags and at most one project folder", () => {
    expect(tui_run_args(["run"])).toEqual({ values: {}, positionals: [] });
    expect(tui_run_args(["run", "proj", "--permission-mode", "plan"])).toEqual({ values: { "permission-mode": "plan" }, positionals: ["proj"] });
    expect(tui_run_args(["-c"])?.values).toEqual({ continue: true });
    expect(tui_run_args(["-r"])?.values).toEqual({ resume: "" });
    expect(tui_run_args(["--resume=ses_1", "--inspect"])?.values).toEqual({ resume: "ses_1", inspect: "local" });
  });

  it("leaves every other form to the full CLI: headless -p, --help, usage errors, other commands", () => {
    for (const argv of [
      [],
      ["run", "-p", "fix it"],
      ["-p", "fix it"],
      ["--print=fix it"],
      ["run", "--help"],
      ["run", "-h"],
      ["run", "a", "b"],
      ["run", "--no-such-flag"],
      ["run", "--permission-mode"],
      ["resume"],
      ["session", "list"],
      ["--version"],
      ["runner"],
    ]) {
      expect(tui_run_args(argv), argv.join(" ")).toBeUndefined();
    }
  });
});

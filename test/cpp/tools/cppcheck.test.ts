/**
 * cpp.static.cppcheck on real cppcheck over the compilation database cpp.cmake.configure wrote. Nobody answers
 * prompts here: the analyzer's cppcheck grammar judges the tool's command routine static analysis, asked of no one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { effects_of } from "../../../src/contracts/tool.js";
import { error_of, output_of } from "../../tools/helpers.js";
import { configured, cpp_harness, type CppHarness } from "./helpers.js";

type Findings = {
  exit_code: number;
  counts: { warnings: number };
  findings: { code: string | null; file: string | null; line: number | null }[];
  digest: string;
};

describe("cpp.static.cppcheck", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("passing");
    await configured(h);
  });
  afterAll(() => h.close());

  it("returns the findings as diagnostics, not as a failure", async () => {
    const outcome = await h.call("cpp.static.cppcheck", {});
    const output = output_of<Findings>(outcome);
    expect(output.exit_code).toBe(0);
    expect(output.findings).toEqual(expect.arrayContaining([expect.objectContaining({ code: "passedByValue", file: "calc.cpp", line: 6 })]));
    expect(output.digest).toContain("calc.cpp:6:");
    expect(effects_of(outcome).command_runs[0]?.command).toBe("cppcheck --xml --enable=warning,style,performance --project=build/air/compile_commands.json");
    expect(h.diagnostics()).toEqual(expect.arrayContaining([expect.objectContaining({ code: "passedByValue", source_tool: "cpp.static.cppcheck" })]));
  });

  it("drops a suppressed finding", async () => {
    const output = output_of<Findings>(await h.call("cpp.static.cppcheck", { suppress: ["passedByValue"] }));
    expect(output.findings.map((finding) => finding.code)).not.toContain("passedByValue");
  });

  it("says to configure first when there is no compilation database", async () => {
    const error = error_of(await h.call("cpp.static.cppcheck", { compile_commands: "build/none/compile_commands.json" }));
    expect(error.kind).toBe("static_analysis_error");
    expect(error.user_action).toContain("cpp.cmake.configure");
  });
});

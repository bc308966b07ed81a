/**
 * cpp.cmake.configure and cpp.build on real cmake, ninja and g++: a header error seen by two translation units
 * is one root cause with two occurrences, a link error is its own, and both land in the session's diagnostics
 * table with evidence, the failure being a build_error signed by its first root cause.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { effects_of } from "../../../src/contracts/tool.js";
import { error_of, output_of } from "../../tools/helpers.js";
import { built, configured, cpp_harness, type CppHarness } from "./helpers.js";

type Group = { semantic_signature: string; occurrences: number; first: { file: string; line: number; message: string; diagnostic_id: string } };

describe("cpp.build on a project with a seeded header error and link error", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("broken");
    await configured(h);
  });
  afterAll(() => h.close());

  it("groups the header error of two translation units under one signature with two occurrences", async () => {
    const outcome = await h.call("cpp.build", { targets: ["shapes"], jobs: 2 });
    const error = error_of(outcome);
    expect(error.kind).toBe("build_error");
    const groups = error.metadata?.root_causes;
    expect(groups).toEqual([{ semantic_signature: expect.stringMatching(/^sig\/v1:/), diagnostic_id: expect.any(String), occurrences: 2 }]);
    expect(error.semantic_signature).toBe((groups as { semantic_signature: string }[])[0]?.semantic_signature);
    expect(error.message).toContain("shape.hpp:4:32: 'undeclared_scale' was not declared in this scope");
    expect(error.message).toContain("reported 2 times: circle.cpp, square.cpp");
    expect(Buffer.byteLength(String(error.metadata?.digest))).toBeLessThanOrEqual(4096);

    const [run] = effects_of(outcome).command_runs;
    expect(run).toMatchObject({ command: "cmake --build build/air --target shapes -j 2", exit_code: 1 });
    const rows = h.diagnostics().filter((row) => row.command_run_id === run?.command_run_id);
    expect(rows).toEqual([
      expect.objectContaining({
        severity: "error",
        file: "shape.hpp",
        line: 4,
        column: 32,
        source_tool: "cpp.build",
        semantic_signature: error.semantic_signature,
        family_signature: expect.stringMatching(/^sig\/v1:/),
      }),
    ]);
    const evidence = h.evidence().filter((row) => row.diagnostic_id === rows[0]?.id);
    expect(evidence).toEqual([expect.objectContaining({ kind: "diagnostic", ref: rows[0]?.id, command_run_id: run?.command_run_id })]);
  });

  it("reports an undefined reference as a link error root cause", async () => {
    const error = error_of(await h.call("cpp.build", { targets: ["linker"], jobs: 2 }));
    expect(error.kind).toBe("build_error");
    expect(error.message).toContain("undefined reference to `never_defined(int)'");
    const row = h.diagnostics().find((candidate) => candidate.code === "ld.undefined-reference");
    expect(row).toMatchObject({ severity: "error", file: "linker.cpp", semantic_signature: error.semantic_signature });
  });

  it("gives the same signature to the same error in a second build", async () => {
    const first = error_of(await h.call("cpp.build", { targets: ["shapes"], jobs: 2 }));
    const second = error_of(await h.call("cpp.build", { targets: ["shapes"], jobs: 2 }));
    expect(second.semantic_signature).toBe(first.semantic_signature);
  });
});

describe("cpp.build on a project that builds", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("passing");
    await built(h);
  });
  afterAll(() => h.close());

  it("returns ok with no root causes and a digest that says so", async () => {
    const output = output_of<{ ok: boolean; exit_code: number; groups: Group[]; counts: { errors: number }; digest: string }>(
      await h.call("cpp.build", { jobs: 2 }),
    );
    expect(output).toMatchObject({ ok: true, exit_code: 0, groups: [], counts: { errors: 0 } });
    expect(output.digest).toMatch(/^0 errors \(0 root causes\)/);
  });

  it("refuses a build folder that was never configured", async () => {
    const error = error_of(await h.call("cpp.build", { build_dir: "build/other" }));
    expect(error.kind).toBe("build_error");
    expect(error.message).toContain("not a configured CMake build folder");
    expect(error.user_action).toContain("cpp.cmake.configure");
  });

  it("refuses a build folder outside the project", async () => {
    const error = error_of(await h.call("cpp.build", { build_dir: h.outside }));
    expect(["policy_error", "permission_error"]).toContain(error.kind);
  });
});

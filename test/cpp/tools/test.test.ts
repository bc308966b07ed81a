/**
 * cpp.test on real ctest, GoogleTest, AddressSanitizer and gdb: a seeded bug fails a plain CTest test and a
 * GoogleTest assertion (read from its JSON report), a use-after-free brings its sanitizer report, a plain
 * segfault a gdb backtrace; each failure is a test diagnostic row and the call a test_error signed by the first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { effects_of } from "../../../src/contracts/tool.js";
import { error_of, output_of, write } from "../../tools/helpers.js";
import { built, cpp_harness, type CppHarness } from "./helpers.js";

type Failure = {
  test: string;
  outcome: string;
  source: string;
  semantic_signature: string | null;
  diagnostics: { file: string | null; line: number | null; code: string | null; message: string; function: string | null }[];
};

describe("cpp.test on a project whose tests pass", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("passing");
    await built(h);
  });
  afterAll(() => h.close());

  it("counts every test as passed", async () => {
    const output = output_of<{ counts: unknown; failures: Failure[]; digest: string }>(await h.call("cpp.test", { jobs: 2 }));
    expect(output.counts).toEqual({ total: 2, passed: 2, failed: 0, skipped: 0 });
    expect(output.failures).toEqual([]);
    expect(output.digest).toBe("2 of 2 tests passed, 0 skipped");
  });

  it("runs only the tests -R selects", async () => {
    const outcome = await h.call("cpp.test", { regex: "gtest", jobs: 2 });
    expect(output_of<{ counts: unknown }>(outcome).counts).toEqual({ total: 1, passed: 1, failed: 0, skipped: 0 });
    expect(effects_of(outcome).command_runs[0]?.command).toBe(
      "ctest --test-dir build/air --output-junit air-tests/junit.xml --output-on-failure -R gtest -j 2",
    );
  });
});

describe("cpp.test with a seeded bug", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("passing");
    write(
      h.root,
      "calc.cpp",
      '#include "calc.hpp"\n\nint add(int a, int b) { return a - b; }\n\nstd::size_t label_length(std::string label) { return label.size(); }\n',
    );
    await built(h);
  });
  afterAll(() => h.close());

  it("reports the CTest failure and the GoogleTest assertion as test diagnostics", async () => {
    const outcome = await h.call("cpp.test", { jobs: 2 });
    const error = error_of(outcome);
    expect(error.kind).toBe("test_error");
    const failures = error.metadata?.root_causes as { semantic_signature: string; diagnostic_id: string }[];
    expect(failures).toHaveLength(2);
    expect(error.semantic_signature).toBe(failures[0]?.semantic_signature);
    expect(error.message).toMatch(/^2 of 2 tests failed/);
    expect(error.message).toContain("calc_gtest.cpp:4: Expected equality of these values:");
    expect(error.metadata?.failures).toEqual([
      { test: "calc_check", outcome: "failed", source: "ctest", semantic_signature: failures[0]?.semantic_signature },
      { test: "calc_gtest", outcome: "failed", source: "gtest", semantic_signature: failures[1]?.semantic_signature },
    ]);

    const rows = h.diagnostics().filter((row) => row.source_tool === "cpp.test");
    expect(rows.map((row) => [row.code, row.file, row.line])).toEqual(
      expect.arrayContaining([
        ["junit.failure", "calc_check.cpp", 6],
        ["gtest.failure", "calc_gtest.cpp", 4],
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(failures.map((failure) => failure.diagnostic_id).sort()).toEqual(rows.map((row) => row.id).sort());
    expect(h.evidence().filter((row) => row.kind === "diagnostic")).toHaveLength(2);
  });
});

describe("cpp.test on crashing tests", () => {
  let h: CppHarness;
  beforeAll(async () => {
    h = cpp_harness("crashing");
    await built(h);
  });
  afterAll(() => h.close());

  it("reads the sanitizer report of a use-after-free and a gdb backtrace of a plain segfault", async () => {
    const outcome = await h.call("cpp.test", { jobs: 1 });
    const error = error_of(outcome);
    expect(error.kind).toBe("test_error");
    const rows = h.diagnostics();
    expect(rows.map((row) => [row.code, row.file, row.line])).toEqual(
      expect.arrayContaining([
        ["asan.heap-use-after-free", "use_after_free.cpp", 4],
        ["gdb.SIGSEGV", "null_write.cpp", 1],
      ]),
    );
    const commands = effects_of(outcome).command_runs.map((run) => run.command);
    expect(commands[0]).toMatch(/^ctest --test-dir build\/air /);
    expect(commands).toContain("ctest --test-dir build/air --show-only=json-v1");
    expect(commands.some((command) => command.startsWith("gdb -batch -ex run -ex bt --args ") && command.endsWith("/build/air/null_write"))).toBe(true);
    expect(error.message).toContain("null_write (crashed)");
    expect(error.metadata?.failures).toEqual(
      expect.arrayContaining([
        { test: "use_after_free", outcome: "failed", source: "sanitizer", semantic_signature: expect.stringMatching(/^sig\/v1:/) },
        { test: "null_write", outcome: "crashed", source: "gdb", semantic_signature: expect.stringMatching(/^sig\/v1:/) },
      ]),
    );
  });
});

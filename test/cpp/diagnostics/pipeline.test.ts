/**
 * The pipeline on real ninja/make logs: framing, path normalisation, signing, de-duplication across jobs and
 * sorting. The compiler grammar is zone "text"'s; a stand-in reading `FILE:LINE:COL: error: MESSAGE` and
 * `FILE: In function 'F':` specifies what the pipeline does with whatever that grammar returns.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type Adapters, run_pipeline } from "../../../src/cpp/diagnostics/pipeline.js";
import type { ParsedDiagnostic } from "../../../src/cpp/diagnostics/record.js";

const fixtures = new URL("../../fixtures/cpp-diagnostics/signatures/", import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, fixtures), "utf8");
}

function error_at(file: string, line: number, column: number, message: string, enclosing: string | null): ParsedDiagnostic {
  return {
    severity: "error",
    file,
    line,
    column,
    code: null,
    message,
    source: "gcc",
    children: [],
    context: { include_chain: [], instantiation: [], function: enclosing, target: null },
    fixits: [],
    frames: [],
    job: null,
  };
}

function compiler_stand_in(lines: readonly string[]): ParsedDiagnostic[] {
  const out: ParsedDiagnostic[] = [];
  let enclosing: string | null = null;
  for (const line of lines) {
    const in_function = /^.+: In function '(.+)':$/.exec(line);
    if (in_function !== null) enclosing = in_function[1] ?? null;
    const primary = /^(.+?):(\d+):(\d+): error: (.+)$/.exec(line);
    if (primary !== null) out.push(error_at(primary[1] ?? "", Number(primary[2]), Number(primary[3]), primary[4] ?? "", enclosing));
  }
  return out;
}

function marker(name: string): (input: string) => ParsedDiagnostic[] {
  return (input) => [error_at("x.cpp", 1, 1, `${name} read ${input.length} bytes`, null)];
}

const adapters: Adapters = {
  compiler_text: compiler_stand_in,
  junit: marker("junit"),
  gtest_json: marker("gtest"),
  cppcheck_xml: marker("cppcheck"),
  sanitizer: () => [],
  gdb_backtrace: () => [],
};

describe("run_pipeline", () => {
  it("makes one record of a header error every translation unit printed, with each job as an occurrence", () => {
    const diagnostics = run_pipeline(adapters, fixture("header-ninja.txt"), { from: "auto", root: "/tmp/h13sig/hdrA" });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      file: "include/bad.h",
      line: 2,
      occurrences: ["CMakeFiles/h.dir/src/a.cpp.o", "CMakeFiles/h.dir/src/b.cpp.o"],
      context: { function: "int bad()", target: "CMakeFiles/h.dir/src/a.cpp.o" },
    });
  });

  it("signs the same header error the same after a 5-line shift, a moved folder, a renamed build folder and colour", () => {
    const plain = run_pipeline(adapters, fixture("header-ninja.txt"), { from: "auto", root: "/tmp/h13sig/hdrA", build_dirs: ["build"] });
    const moved = run_pipeline(adapters, fixture("header-ninja-moved-colour.txt"), { from: "auto", root: "/tmp/h13sig/moved/hdrB", build_dirs: ["out"] });
    expect(moved.map((d) => [d.line, d.message])).toEqual([[7, "'nope' was not declared in this scope"]]);
    expect(moved.map((d) => [d.semantic_signature, d.family_signature])).toEqual(plain.map((d) => [d.semantic_signature, d.family_signature]));
  });

  it("prints the same records whatever order the jobs ran in", () => {
    const log = fixture("ninja-compile.txt");
    const [head, first, second] = log.split(/(?=\[\d\/3\] )/);
    const shuffled = [head, second, first].join("").replace("ninja: build stopped: cannot make progress due to previous errors.\n", "");
    const options = { from: "auto", root: "/tmp/h13sig/comp" } as const;
    expect(JSON.stringify(run_pipeline(adapters, shuffled, options))).toBe(JSON.stringify(run_pipeline(adapters, log, options)));
  });

  it("sorts by file, line, column, code and message", () => {
    const diagnostics = run_pipeline(adapters, fixture("ninja-compile.txt"), { from: "auto", root: "/tmp/h13sig/comp" });
    expect(diagnostics.map((d) => d.file)).toEqual(["src/a.cpp", "src/b.cpp"]);
  });

  it("reads linker errors of a framed link job with the job's target", () => {
    const diagnostics = run_pipeline(adapters, fixture("make-link.txt"), { from: "auto", root: "/tmp/h13sig/proj" });
    expect(diagnostics.map((d) => [d.file, d.code, d.context.target])).toEqual([
      ["src/dup2.cpp", "ld.multiple-definition", "demo"],
      ["src/main.cpp", "ld.undefined-reference", "demo"],
    ]);
  });

  it("signs an undefined reference the same from ninja, make and a direct g++ -g link", () => {
    const signature = (name: string): string | undefined =>
      run_pipeline(adapters, fixture(name), { from: "auto", root: "/tmp/h13sig/proj" }).find((d) => d.code === "ld.undefined-reference")?.semantic_signature;
    expect(signature("make-link.txt")).toBe(signature("ninja-link.txt"));
    expect(signature("gxx-ld.txt")).toBe(signature("ninja-link.txt"));
  });

  it("keeps linker summary lines from the compiler grammar", () => {
    const seen: string[] = [];
    const recording = (lines: readonly string[]): ParsedDiagnostic[] => {
      seen.push(...lines);
      return [];
    };
    run_pipeline({ ...adapters, compiler_text: recording }, fixture("gxx-ld.txt"), { from: "auto", root: "/" });
    expect(seen.join("\n")).not.toContain("collect2");
  });

  it("routes XML and JSON to the structured adapters when detecting", () => {
    const message = (input: string): string | undefined => run_pipeline(adapters, input, { from: "auto", root: "/" })[0]?.message;
    expect(message('<?xml version="1.0"?><testsuite/>')).toMatch(/^junit/);
    expect(message('<?xml version="1.0"?><results version="2"/>')).toMatch(/^cppcheck/);
    expect(message('{"testsuites":[]}')).toMatch(/^gtest/);
    expect(message("<command-line>:1:1: error: macro names must be identifiers")).toBe("macro names must be identifiers");
  });

  it("reads only the named grammar when told where the text came from", () => {
    expect(run_pipeline(adapters, fixture("make-link.txt"), { from: "gcc", root: "/tmp/h13sig/proj" })).toEqual([]);
    expect(run_pipeline(adapters, fixture("ninja-compile.txt"), { from: "clang", root: "/tmp/h13sig/comp" }).map((d) => d.source)).toEqual(["clang", "clang"]);
  });

  it("never throws on binary or truncated input", () => {
    const binary = Array.from({ length: 1 << 16 }, (_, index) => String.fromCharCode((index * 7919) % 256)).join("");
    expect(() => run_pipeline(adapters, binary, { from: "auto", root: "/" })).not.toThrow();
    const truncated = fixture("cmake-error.txt").slice(0, 420);
    expect(() => run_pipeline(adapters, truncated, { from: "auto", root: "/" })).not.toThrow();
  });
});

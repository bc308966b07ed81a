/** Linker, CMake and make/ninja framing, on real outputs of gcc 12's ld and gold and cmake 3.25 (lld hand-written from its test grammar). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { split_jobs } from "../../../src/cpp/diagnostics/jobs.js";
import { is_link_build_line, parse_link_build_text } from "../../../src/cpp/diagnostics/link-build.js";

const fixtures = new URL("../../fixtures/cpp-diagnostics/signatures/", import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, fixtures), "utf8");
}

function lines_of(name: string): string[] {
  return fixture(name).split("\n");
}

describe("parse_link_build_text", () => {
  for (const name of ["ninja-link", "make-link", "gxx-ld", "gold", "cmake-error", "cmake-callstack", "lld"]) {
    it(`reads ${name}.txt as ${name}.expected.json`, () => {
      expect(parse_link_build_text(fixture(`${name}.txt`))).toEqual(JSON.parse(fixture(`${name}.expected.json`)));
    });
  }

  it("names the source of an ld error from CMake's object name, and the enclosing function from the context line", () => {
    const [duplicate, undefined_reference] = parse_link_build_text(fixture("ninja-link.txt"));
    expect(duplicate).toMatchObject({
      file: "src/dup2.cpp",
      code: "ld.multiple-definition",
      children: [{ message: "first defined here", file: "src/dup.cpp" }],
    });
    expect(undefined_reference).toMatchObject({ file: "src/main.cpp", line: null, code: "ld.undefined-reference", context: { function: "main" } });
  });

  it("takes the line of an ld error built with -g", () => {
    expect(parse_link_build_text(fixture("gxx-ld.txt"))).toMatchObject([{ file: "/tmp/h13sig/proj/src/main.cpp", line: 3 }]);
  });

  it("reads a CMake configure block with its command as the code", () => {
    const [block] = parse_link_build_text(fixture("cmake-error.txt"));
    expect(block).toMatchObject({ source: "cmake", file: "CMakeLists.txt", line: 4, code: "cmake.find_package" });
    expect(block?.message.startsWith('By not providing "FindNoSuchPkg.cmake"')).toBe(true);
  });

  it("turns a CMake call stack into notes", () => {
    expect(parse_link_build_text(fixture("cmake-callstack.txt"))).toMatchObject([
      {
        file: "cmake/deps.cmake",
        line: 1,
        code: "cmake.message",
        message: "no zlib",
        children: [{ file: "CMakeLists.txt", line: 4, message: "called from include" }],
      },
    ]);
  });

  it("reads make's missing rule", () => {
    expect(parse_link_build_text("make: *** No rule to make target 'gen.h', needed by 'a.o'.  Stop.")).toMatchObject([
      { source: "make", code: "make.no-rule" },
    ]);
  });

  it("skips the driver's summary of a failed link", () => {
    expect(parse_link_build_text("collect2: error: ld returned 1 exit status")).toEqual([]);
    expect(is_link_build_line("collect2: error: ld returned 1 exit status")).toBe(true);
  });

  it("leaves compiler lines to the compiler grammar", () => {
    expect(is_link_build_line("/tmp/a.cpp:1:18: error: 'undeclared' was not declared in this scope")).toBe(false);
    expect(parse_link_build_text(fixture("ninja-compile.txt"))).toEqual([]);
  });
});

describe("split_jobs", () => {
  it("gives each ninja FAILED block its target and drops the command line", () => {
    const jobs = split_jobs(lines_of("ninja-compile.txt"));
    expect(jobs.map((job) => job.target)).toEqual(["CMakeFiles/c.dir/src/a.cpp.o", "CMakeFiles/c.dir/src/b.cpp.o"]);
    expect(jobs[0]?.lines.join("\n")).not.toContain("/usr/bin/c++");
    expect(jobs[0]?.lines.join("\n")).toContain("'undeclared' was not declared");
  });

  it("gives make's output the target of the Error line after it, and outer Error lines no job", () => {
    const jobs = split_jobs(lines_of("make-compile.txt"));
    expect(jobs.map((job) => job.target)).toEqual(["CMakeFiles/c.dir/src/a.cpp.o", "CMakeFiles/c.dir/src/b.cpp.o"]);
    expect(jobs[1]?.lines.join("\n")).toContain("expected ';' before '}' token");
  });

  it("frames a ninja link job and make's link job the same", () => {
    expect(split_jobs(lines_of("ninja-link.txt")).map((job) => job.target)).toEqual(["demo"]);
    expect(split_jobs(lines_of("make-link.txt")).map((job) => job.target)).toEqual(["demo"]);
  });
});

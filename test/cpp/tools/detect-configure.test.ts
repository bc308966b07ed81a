/**
 * cpp.detect and cpp.cmake.configure on real cmake: detection before anything ran (lists, frameworks, compilers),
 * configure with Ninja writing compile_commands.json and the File API query, detection afterwards listing the
 * targets and sources, the Make fallback when ninja is not on PATH, and a CMake error parsed into diagnostics.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { effects_of } from "../../../src/contracts/tool.js";
import { error_of, output_of, write } from "../../tools/helpers.js";
import { cpp_harness, type CppHarness } from "./helpers.js";

type Detected = {
  build_system: string;
  cmake: { lists: string[] };
  compilers: { name: string; path: string | null; version: string | null }[];
  tools: { name: string; path: string | null }[];
  test_frameworks: string[];
  build_folders: { path: string; targets: { name: string; type: string; sources: string[] }[] }[];
  next_step: string;
};

describe("cpp.detect and cpp.cmake.configure on a CMake project with CTest and GoogleTest", () => {
  let h: CppHarness;
  beforeAll(() => {
    h = cpp_harness("passing");
  });
  afterAll(() => h.close());

  it("detects the project before anything is configured, running no command", async () => {
    const outcome = await h.call("cpp.detect", {});
    const detected = output_of<Detected>(outcome);
    expect(detected).toMatchObject({
      build_system: "cmake",
      cmake: { lists: ["CMakeLists.txt"] },
      test_frameworks: ["ctest", "googletest"],
      build_folders: [],
    });
    expect(detected.compilers.find((compiler) => compiler.name === "g++")?.version).toMatch(/g\+\+/);
    expect(detected.tools.find((tool) => tool.name === "ninja")?.path).not.toBeNull();
    expect(detected.next_step).toContain("cpp.cmake.configure");
    expect(h.events("command.started")).toEqual([]);
  });

  it("configures build/air with Ninja and exports compile_commands.json", async () => {
    const outcome = await h.call("cpp.cmake.configure", { build_type: "Debug" });
    const output = output_of<{ build_dir: string; generator: string; compile_commands: string | null }>(outcome);
    expect(output).toMatchObject({ build_dir: "build/air", generator: "Ninja", compile_commands: "build/air/compile_commands.json" });
    expect(effects_of(outcome).command_runs[0]?.command).toBe("cmake -S . -B build/air -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug");
    expect(fs.existsSync(path.join(h.root, "build/air/.cmake/api/v1/query/codemodel-v2"))).toBe(true);
  });

  it("lists the configured folder's targets and sources from the CMake File API", async () => {
    const detected = output_of<Detected>(await h.call("cpp.detect", {}));
    expect(detected.build_folders.map((folder) => folder.path)).toEqual(["build/air"]);
    const targets = detected.build_folders[0]?.targets ?? [];
    expect(targets.map((target) => [target.name, target.type, target.sources])).toEqual([
      ["calc", "STATIC_LIBRARY", ["calc.cpp"]],
      ["calc_check", "EXECUTABLE", ["calc_check.cpp"]],
      ["calc_gtest", "EXECUTABLE", ["calc_gtest.cpp"]],
    ]);
    expect(detected.next_step).toContain("cpp.build");
  });

  it("refuses a definition that is not NAME=VALUE before running anything", async () => {
    const error = error_of(await h.call("cpp.cmake.configure", { definitions: ["-G Evil"] }));
    expect(error.message).toContain("NAME=VALUE");
  });
});

describe("cpp.cmake.configure without ninja on PATH", () => {
  const saved_path = process.env.PATH;
  let h: CppHarness;
  beforeAll(() => {
    h = cpp_harness("passing");
    // Every program of the real PATH but ninja, as links inside the project (the sandbox shows the project).
    const bin = path.join(h.root, ".no-ninja-bin");
    fs.mkdirSync(bin);
    for (const folder of (saved_path ?? "").split(path.delimiter).filter((entry) => entry !== "" && fs.existsSync(entry))) {
      for (const name of fs.readdirSync(folder)) {
        if (name.startsWith("ninja") || fs.existsSync(path.join(bin, name))) continue;
        fs.symlinkSync(path.join(folder, name), path.join(bin, name));
      }
    }
    process.env.PATH = bin;
  });
  afterEach(() => {
    process.env.PATH = saved_path;
  });
  afterAll(() => h.close());

  it("falls back to Unix Makefiles, and the build still parses", async () => {
    const outcome = await h.call("cpp.cmake.configure", {});
    expect(output_of<{ generator: string }>(outcome).generator).toBe("Unix Makefiles");
    expect(fs.existsSync(path.join(h.root, "build/air/Makefile"))).toBe(true);
    write(h.root, "calc.cpp", "int add(int a, int b) { return a + missing_name; }\n");
    const error = error_of(await h.call("cpp.build", { jobs: 2 }));
    expect(error.kind).toBe("build_error");
    expect(error.message).toContain("calc.cpp:1:");
    expect(error.message).toContain("'missing_name' was not declared in this scope");
  });
});

describe("cpp.cmake.configure on a broken CMakeLists.txt", () => {
  let h: CppHarness;
  beforeAll(() => {
    h = cpp_harness("passing");
    write(h.root, "CMakeLists.txt", "cmake_minimum_required(VERSION 3.21)\nproject(passing CXX)\nadd_executable(calc no_such_file.cpp)\n");
  });
  afterAll(() => h.close());

  it("fails with a build_error whose diagnostics name the CMake error", async () => {
    const outcome = await h.call("cpp.cmake.configure", {});
    const error = error_of(outcome);
    expect(error.kind).toBe("build_error");
    expect(error.message).toContain("cmake could not configure build/air");
    expect(effects_of(outcome).command_runs).toHaveLength(1);
    expect(h.diagnostics().some((row) => row.severity === "error" && row.source_tool === "cpp.cmake.configure")).toBe(true);
  });
});

describe("cpp.detect on a project without CMake", () => {
  let h: CppHarness;
  beforeAll(() => {
    h = cpp_harness("passing");
    fs.rmSync(path.join(h.root, "CMakeLists.txt"));
    write(h.root, "Makefile", "all:\n\tc++ -c calc.cpp\n");
    write(h.root, "compile_commands.json", "[]\n");
    write(h.root, "tests/catch_test.cpp", "#include <catch2/catch_test_macros.hpp>\n");
  });
  afterAll(() => h.close());

  it("reports the Makefile, the root compilation database and Catch2 from a source's include", async () => {
    const detected = output_of<Detected & { makefile: string | null; compile_commands: string[] }>(await h.call("cpp.detect", {}));
    expect(detected).toMatchObject({ build_system: "make", makefile: "Makefile", compile_commands: ["compile_commands.json"], cmake: { lists: [] } });
    expect(detected.test_frameworks).toEqual(["googletest", "catch2"]);
    expect(detected.next_step).toContain("Not a CMake project");
  });
});

import type { BuiltinCapability } from "../capabilities/builtin.js";
import type { CapabilityManifest, DependencySpec } from "../capabilities/manifest.js";
import { ClangdPool } from "./clangd/pool.js";
import { clangd_query_tool } from "./tools/clangd-query.js";
import { CPP_TOOLS } from "./tools/index.js";

/** Debian's package for each program; `apt-get` needs root, so doctor always asks before running it. */
function apt(packages: string): NonNullable<DependencySpec["install"]> {
  return {
    low_permission: "prompt",
    high_permission: "announce_then_run",
    commands: [{ command: `apt-get install -y ${packages}`, platform: "debian" }],
  };
}

const BUILD_TOOLS = ["cpp.cmake.configure", "cpp.build", "cpp.test"];

const DEPENDENCIES: DependencySpec[] = [
  {
    id: "cmake",
    kind: "executable",
    required_for: BUILD_TOOLS,
    severity: "required",
    // 3.21 is the first with `ctest --output-junit`.
    detect: { by: "executable", names: ["cmake"], version_args: ["--version"], min_version: "3.21" },
    install: apt("cmake"),
    risk: "needs_root",
  },
  {
    id: "ctest",
    kind: "executable",
    required_for: ["cpp.test"],
    severity: "required",
    detect: { by: "executable", names: ["ctest"], version_args: ["--version"], min_version: "3.21" },
    install: apt("cmake"),
    risk: "needs_root",
  },
  {
    id: "cxx-compiler",
    kind: "executable",
    required_for: BUILD_TOOLS,
    severity: "required",
    detect: { by: "executable", names: ["c++", "g++", "clang++"], version_args: ["--version"] },
    install: apt("g++"),
    risk: "needs_root",
  },
  {
    id: "ninja",
    kind: "executable",
    required_for: ["cpp.cmake.configure"],
    // Without it, configure falls back to Make: slower, still working.
    severity: "degraded",
    detect: { by: "executable", names: ["ninja", "ninja-build"], version_args: ["--version"] },
    install: apt("ninja-build"),
    risk: "needs_root",
  },
  {
    id: "make",
    kind: "executable",
    required_for: ["cpp.cmake.configure"],
    severity: "degraded",
    detect: { by: "executable", names: ["make"], version_args: ["--version"] },
    install: apt("make"),
    risk: "needs_root",
  },
  {
    id: "cppcheck",
    kind: "executable",
    required_for: ["cpp.static.cppcheck"],
    severity: "optional",
    detect: { by: "executable", names: ["cppcheck"], version_args: ["--version"], min_version: "2.0" },
    install: apt("cppcheck"),
    risk: "needs_root",
  },
  {
    id: "clangd",
    kind: "lsp_server",
    required_for: ["cpp.clangd.query"],
    severity: "optional",
    detect: { by: "executable", names: ["clangd", "clangd-16", "clangd-15", "clangd-14"], version_args: ["--version"] },
    install: apt("clangd"),
    risk: "needs_root",
  },
  {
    id: "gdb",
    kind: "executable",
    required_for: ["cpp.test"],
    // A crashing test still fails without it; only its backtrace is missing.
    severity: "degraded",
    detect: { by: "executable", names: ["gdb"], version_args: ["--version"] },
    install: apt("gdb"),
    risk: "needs_root",
  },
  {
    id: "googletest",
    kind: "system_package",
    required_for: ["cpp.test"],
    severity: "optional",
    detect: { by: "file", paths: ["/usr/include/gtest/gtest.h", "/usr/local/include/gtest/gtest.h"] },
    install: apt("libgtest-dev"),
    risk: "needs_root",
  },
];

const MANIFEST: CapabilityManifest = {
  schema_version: 1,
  id: "toolchain-cpp",
  version: "1.0.0",
  description: "C and C++ projects: detect, configure with CMake, build, test, cppcheck and clangd, with every diagnostic parsed and signed.",
  trust: "built_in",
  tools: [
    {
      name: "cpp.detect",
      description: "What kind of C++ project this is and what the machine has to build it.",
      category: "project",
      implementation: { kind: "builtin" },
    },
    { name: "cpp.cmake.configure", description: "Configure a build folder with CMake.", category: "build", implementation: { kind: "builtin" } },
    { name: "cpp.build", description: "Build targets and parse every diagnostic.", category: "build", implementation: { kind: "builtin" } },
    { name: "cpp.test", description: "Run the tests with CTest and parse every failure.", category: "test", implementation: { kind: "builtin" } },
    { name: "cpp.static.cppcheck", description: "cppcheck over the compilation database.", category: "static_analysis", implementation: { kind: "builtin" } },
    {
      name: "cpp.clangd.query",
      description: "Definition, references, hover, symbols and diagnostics from clangd.",
      category: "project",
      implementation: { kind: "builtin" },
    },
  ],
  dependencies: DEPENDENCIES,
  triggers: [
    { kind: "file", path: "CMakeLists.txt" },
    { kind: "file", path: "compile_commands.json" },
    { kind: "extension", extensions: [".cpp", ".cc", ".cxx", ".c", ".hpp", ".hh", ".h"], max_depth: 3 },
  ],
  evidence: ["command_run", "diagnostic", "structured_result", "artifact_excerpt"],
};

export const toolchain_cpp: BuiltinCapability = {
  manifest: MANIFEST,
  create_tools: () => {
    // A fresh pool per tool set: each session runtime owns its clangd processes and stops them on close.
    const clangd = new ClangdPool();
    return { definitions: [...CPP_TOOLS, clangd_query_tool(clangd)], close: () => clangd.close() };
  },
};

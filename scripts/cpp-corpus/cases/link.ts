import type { CmakeCase, LinkCase } from "./types.js";

/** Link failures, built with -g so the linkers can name the calling line. */
export const LINK_CASES: readonly LinkCase[] = [
  {
    id: "undefined-function",
    files: { "main.cpp": "int compute(int);\nint main() {\n  return compute(4); // @1\n}\n" },
    sources: ["main.cpp"],
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "ld.undefined-reference" }],
  },
  {
    id: "undefined-static-member",
    files: {
      "counter.h": "#pragma once\nstruct Counter {\n  static int instances;\n};\n",
      "main.cpp": '#include "counter.h"\nint main() {\n  return Counter::instances; // @1\n}\n',
    },
    sources: ["main.cpp"],
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "ld.undefined-reference" }],
  },
  {
    id: "undefined-in-library-unit",
    files: {
      "util.cpp": 'void log_line(const char*);\nint util() {\n  log_line("x"); // @1\n  return 0;\n}\n',
      "main.cpp": "int util();\nint main() { return util(); }\n",
    },
    sources: ["main.cpp", "util.cpp"],
    bug_file: "util.cpp",
    expect: [{ file: "util.cpp", at: "@1", severity: "error", code: "ld.undefined-reference" }],
  },
  {
    id: "missing-library",
    files: { "main.cpp": "int main() { return 0; }\n" },
    sources: ["main.cpp"],
    cmake: "target_link_libraries(app no_such_library)\n",
    bug_file: "main.cpp",
    expect: [{ file: null, at: null, severity: "error", code: "ld.cannot-find" }],
  },
];

const MINIMUM = "cmake_minimum_required(VERSION 3.20)\nproject(seeded CXX)\n";

/** CMake configure errors and warnings. */
export const CMAKE_CASES: readonly CmakeCase[] = [
  {
    id: "unknown-command",
    files: { "CMakeLists.txt": `${MINIMUM}add_exectuable(app main.cpp) # @1\n`, "main.cpp": "int main() { return 0; }\n" },
    bug_file: "CMakeLists.txt",
    expect: [{ file: "CMakeLists.txt", at: "@1", severity: "error", code: "cmake.add_exectuable" }],
  },
  {
    id: "missing-source",
    files: { "CMakeLists.txt": `${MINIMUM}add_executable(app main.cpp gone.cpp) # @1\n`, "main.cpp": "int main() { return 0; }\n" },
    bug_file: "CMakeLists.txt",
    expect: [{ file: "CMakeLists.txt", at: "@1", severity: "error", code: "cmake.add_executable" }],
  },
  {
    id: "fatal-from-module",
    files: {
      "CMakeLists.txt": `${MINIMUM}include(cmake/checks.cmake)\nrequire_feature(threads)\n`,
      "cmake/checks.cmake": 'function(require_feature name)\n  message(FATAL_ERROR "feature ${name} is not available") # @1\nendfunction()\n',
    },
    bug_file: "cmake/checks.cmake",
    expect: [{ file: "cmake/checks.cmake", at: "@1", severity: "error", code: "cmake.message" }],
  },
  {
    id: "missing-package",
    files: { "CMakeLists.txt": `${MINIMUM}find_package(NoSuchPackage REQUIRED) # @1\n` },
    bug_file: "CMakeLists.txt",
    expect: [{ file: "CMakeLists.txt", at: "@1", severity: "error", code: "cmake.find_package" }],
  },
  {
    id: "warning-message",
    files: { "CMakeLists.txt": `${MINIMUM}message(WARNING "the option FAST is deprecated") # @1\n` },
    bug_file: "CMakeLists.txt",
    expect: [{ file: "CMakeLists.txt", at: "@1", severity: "warning", code: "cmake.message" }],
  },
  {
    id: "missing-subdirectory",
    files: { "CMakeLists.txt": `${MINIMUM}add_subdirectory(engine) # @1\n` },
    bug_file: "CMakeLists.txt",
    expect: [{ file: "CMakeLists.txt", at: "@1", severity: "error", code: "cmake.add_subdirectory" }],
  },
];

import type { CppcheckCase, RunCase, TestCase } from "./types.js";

const SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"];

const run_case = (id: string, body: string, flags: readonly string[], expect: RunCase["expect"]): RunCase => ({
  id,
  files: { "main.cpp": body },
  bug_file: "main.cpp",
  flags,
  expect,
});

/** Programs whose sanitizer report is the output; the marker is the line the report's first in-app frame names. */
export const SANITIZER_CASES: readonly RunCase[] = [
  run_case(
    "use-after-free",
    "int read_back(int* p) {\n  return p[1]; // @1\n}\nint main() {\n  int* p = new int[4]; // @3\n  delete[] p; // @2\n  return read_back(p);\n}\n",
    SANITIZE,
    [{ file: "main.cpp", at: "@1", severity: "error", code: "asan.heap-use-after-free" }],
  ),
  run_case(
    "heap-overflow",
    "int past_end(int* p) {\n  return p[4]; // @1\n}\nint main() {\n  int* p = new int[4]();\n  int v = past_end(p);\n  delete[] p;\n  return v;\n}\n",
    SANITIZE,
    [{ file: "main.cpp", at: "@1", severity: "error", code: "asan.heap-buffer-overflow" }],
  ),
  run_case(
    "stack-overflow-index",
    "int pick(int i) {\n  int local[3] = {1, 2, 3};\n  return local[i]; // @1\n}\nint main(int argc, char**) {\n  return pick(argc + 2);\n}\n",
    SANITIZE,
    [{ file: "main.cpp", at: "@1", severity: "error", code: "asan.stack-buffer-overflow" }],
  ),
  run_case(
    "double-free",
    "void release(int* p) {\n  delete p; // @1\n}\nint main() {\n  int* p = new int(1);\n  delete p;\n  release(p);\n  return 0;\n}\n",
    SANITIZE,
    [{ file: "main.cpp", at: "@1", severity: "error", code: "asan.double-free" }],
  ),
  run_case("leak", "int* make() {\n  return new int[8]; // @1\n}\nint main() {\n  int* p = make();\n  p = nullptr;\n  return 0;\n}\n", SANITIZE, [
    { file: "main.cpp", at: "@1", severity: "error", code: "lsan.direct-leak" },
  ]),
  run_case("signed-overflow", "#include <climits>\nint bump(int v) {\n  return v + 1; // @1\n}\nint main() {\n  return bump(INT_MAX) == 0;\n}\n", SANITIZE, [
    { file: "main.cpp", at: "@1", severity: "error", code: "ubsan.signed-integer-overflow" },
  ]),
  run_case(
    "shift-too-far",
    "int shift(int v, int by) {\n  return v << by; // @1\n}\nint main(int argc, char**) {\n  return shift(1, argc + 40) == 0;\n}\n",
    SANITIZE,
    [{ file: "main.cpp", at: "@1", severity: "error" }],
  ),
];

/** Programs that crash without a sanitizer; `gdb -batch -ex run -ex bt` is the output. */
export const GDB_CASES: readonly RunCase[] = [
  run_case(
    "null-dereference",
    "struct Node { int value; };\nint value_of(Node* n) {\n  return n->value; // @1\n}\nint main() {\n  return value_of(nullptr);\n}\n",
    [],
    [{ file: "main.cpp", at: "@1", severity: "fatal", code: "gdb.SIGSEGV" }],
  ),
  run_case(
    "failed-assert",
    "#include <cassert>\nvoid check(int v) {\n  assert(v > 0); // @1\n}\nint main() {\n  check(0);\n  return 0;\n}\n",
    [],
    [{ file: "main.cpp", at: "@1", severity: "fatal", code: "gdb.SIGABRT" }],
  ),
  run_case(
    "divide-by-zero",
    "int ratio(int a, int b) {\n  return a / b; // @1\n}\nint main(int argc, char**) {\n  return ratio(10, argc - 1);\n}\n",
    [],
    [{ file: "main.cpp", at: "@1", severity: "fatal", code: "gdb.SIGFPE" }],
  ),
];

/** cppcheck findings (default checks plus warnings); the marker is the finding's line. */
export const CPPCHECK_CASES: readonly CppcheckCase[] = [
  {
    id: "null-pointer",
    files: { "main.cpp": "int main() {\n  int* p = nullptr;\n  return *p; // @1\n}\n" },
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "nullPointer" }],
  },
  {
    id: "index-out-of-bounds",
    files: { "main.cpp": "int main() {\n  int a[4] = {0};\n  return a[4]; // @1\n}\n" },
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "arrayIndexOutOfBounds" }],
  },
  {
    id: "memory-leak",
    files: { "main.cpp": "#include <cstdlib>\nint main() {\n  char* buffer = static_cast<char*>(malloc(16));\n  buffer[0] = 1;\n  return 0; // @1\n}\n" },
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "memleak" }],
  },
  {
    id: "uninitialised",
    files: { "main.cpp": "int main() {\n  int count;\n  return count; // @1\n}\n" },
    bug_file: "main.cpp",
    expect: [{ file: "main.cpp", at: "@1", severity: "error", code: "uninitvar" }],
  },
];

/** GoogleTest files; the marker is the failing assertion. */
export const TEST_CASES: readonly TestCase[] = [
  {
    id: "expect-eq",
    files: {
      "test.cpp":
        "#include <gtest/gtest.h>\nint add(int a, int b) { return a - b; }\nTEST(Math, Adds) {\n  EXPECT_EQ(add(2, 2), 4); // @1\n}\nTEST(Math, Zero) {\n  EXPECT_EQ(add(0, 0), 0);\n}\n",
    },
    bug_file: "test.cpp",
    expect: [{ file: "test.cpp", at: "@1", severity: "error" }],
  },
  {
    id: "assert-true",
    files: {
      "test.cpp":
        '#include <gtest/gtest.h>\n#include <string>\nbool is_upper(const std::string& s) { return s == "abc"; }\nTEST(Text, Upper) {\n  ASSERT_TRUE(is_upper("ABC")); // @1\n}\n',
    },
    bug_file: "test.cpp",
    expect: [{ file: "test.cpp", at: "@1", severity: "error" }],
  },
];

import type { CompileCase } from "./types.js";

const main_only = (id: string, body: string, expect: CompileCase["expect"]): CompileCase => ({
  id,
  files: { "main.cpp": body },
  sources: ["main.cpp"],
  bug_file: "main.cpp",
  expect,
});

const error_at_1 = [{ file: "main.cpp", at: "@1", severity: "error" }] as const;

/** Compile errors and warnings (built with -Wall -Wextra), one root cause each. */
export const COMPILE_CASES: readonly CompileCase[] = [
  main_only("undeclared-identifier", "int main() {\n  int total = undeclared_value; // @1\n  return total;\n}\n", error_at_1),
  main_only("string-from-int", "#include <string>\nint main() {\n  std::string name = 42; // @1\n  return static_cast<int>(name.size());\n}\n", error_at_1),
  main_only("no-member", "struct Point { int x; };\nint main() {\n  Point p{1};\n  return p.z; // @1\n}\n", error_at_1),
  main_only("too-many-arguments", "int square(int value) { return value * value; }\nint main() {\n  return square(2, 3); // @1\n}\n", error_at_1),
  main_only("unused-variable", "int main() {\n  int unused_counter = 3; // @1\n  return 0;\n}\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wunused-variable" },
  ]),
  main_only("missing-header", '#include "not_there.h" // @1\nint main() { return 0; }\n', [{ file: "main.cpp", at: "@1", severity: "fatal" }]),
  main_only("return-pointer-as-int", 'int code() {\n  return "seven"; // @1\n}\nint main() { return code(); }\n', error_at_1),
  main_only("assign-to-const", "int main() {\n  const int limit = 1;\n  limit = 2; // @1\n  return limit;\n}\n", error_at_1),
  main_only(
    "deleted-copy",
    "struct Handle {\n  Handle() = default;\n  Handle(const Handle&) = delete;\n};\nint main() {\n  Handle a;\n  Handle b = a; // @1\n  (void)b;\n}\n",
    error_at_1,
  ),
  main_only("no-matching-overload", 'void take(int) {}\nvoid take(double) {}\nint main() {\n  take("text"); // @1\n}\n', error_at_1),
  main_only("redefinition", "int main() {\n  int level = 1;\n  int level = 2; // @1\n  return level;\n}\n", error_at_1),
  main_only("unknown-type", "int main() {\n  Widget w; // @1\n  return 0;\n}\n", error_at_1),
  main_only("assignment-in-condition", "int main(int argc, char**) {\n  if (argc = 2) return 1; // @1\n  return 0;\n}\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wparentheses" },
  ]),
  main_only("unused-parameter", "int scale(int factor) { // @1\n  return 2;\n}\nint main() { return scale(1); }\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wunused-parameter" },
  ]),
  main_only("missing-return", "int pick(int x) {\n  if (x > 0) return 1;\n} // @1\nint main() { return pick(1); }\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wreturn-type" },
  ]),
  main_only("abstract-instance", "struct Shape { virtual double area() const = 0; };\nint main() {\n  Shape s; // @1\n  return 0;\n}\n", error_at_1),
  main_only("struct-missing-semicolon", "struct Config {\n  int depth;\n} // @1\nint main() { return 0; }\n", error_at_1),
  main_only("static-assert", 'static_assert(sizeof(char) == 2, "char is two bytes"); // @1\nint main() { return 0; }\n', error_at_1),
  main_only("private-member", "class Account {\n  int balance = 0;\n};\nint main() {\n  Account a;\n  return a.balance; // @1\n}\n", error_at_1),
  main_only("invalid-operands", '#include <string>\nint main() {\n  std::string s = "a";\n  auto t = s - 1; // @1\n  return 0;\n}\n', error_at_1),
  main_only("unused-static-function", "static int helper() { return 4; } // @1\nint main() { return 0; }\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wunused-function" },
  ]),
  main_only("sign-compare", "int main(int argc, char**) {\n  unsigned limit = 3;\n  return argc < limit; // @1\n}\n", [
    { file: "main.cpp", at: "@1", severity: "warning", code: "-Wsign-compare" },
  ]),
  {
    id: "template-in-header",
    files: {
      "include/twice.h": "#pragma once\ntemplate <class T>\nT twice(T value) {\n  return value.doubled(); // @1\n}\n",
      "main.cpp": '#include "twice.h"\nint main() {\n  return twice(3);\n}\n',
    },
    sources: ["main.cpp"],
    bug_file: "include/twice.h",
    expect: [{ file: "include/twice.h", at: "@1", severity: "error" }],
  },
  {
    id: "header-error-two-units",
    files: {
      "include/shared.h": "#pragma once\ninline int shared_value() {\n  return missing_symbol; // @1\n}\n",
      "a.cpp": '#include "shared.h"\nint from_a() { return shared_value(); }\n',
      "main.cpp": '#include "shared.h"\nint from_a();\nint main() { return from_a() + shared_value(); }\n',
    },
    sources: ["a.cpp", "main.cpp"],
    bug_file: "include/shared.h",
    expect: [{ file: "include/shared.h", at: "@1", severity: "error" }],
  },
  {
    id: "two-units-two-errors",
    files: {
      "lib.cpp": "int lib_value() {\n  return lib_missing; // @1\n}\n",
      "main.cpp": "int lib_value();\nint main() {\n  return lib_value() + main_missing; // @2\n}\n",
    },
    sources: ["lib.cpp", "main.cpp"],
    bug_file: "main.cpp",
    expect: [
      { file: "lib.cpp", at: "@1", severity: "error" },
      { file: "main.cpp", at: "@2", severity: "error" },
    ],
  },
];

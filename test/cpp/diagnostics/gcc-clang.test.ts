import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { parse_compiler_text } from "../../../src/cpp/diagnostics/gcc-clang.js";
import { Diagnostic, type ParsedDiagnostic } from "../../../src/cpp/diagnostics/record.js";

// Real GCC 12 / Clang 14 stderr captured from fixtures/cpp-diagnostics/text/sources (LC_ALL=C); hand-* files are hand-written.
const FIXTURES = fileURLToPath(new URL("../../fixtures/cpp-diagnostics/text/", import.meta.url));

function output(name: string): string {
  return readFileSync(`${FIXTURES}${name}.txt`, "utf8");
}

function parsed(name: string): ParsedDiagnostic[] {
  return parse_compiler_text(output(name));
}

const ParsedRecord = v.strictObject({
  ...v.omit(Diagnostic, ["semantic_signature", "family_signature", "occurrences"]).entries,
  job: v.nullable(v.string()),
});

describe("parse_compiler_text", () => {
  const names = readdirSync(FIXTURES)
    .filter((name) => name.endsWith(".txt"))
    .map((name) => name.slice(0, -".txt".length));

  it.each(names)("reads %s into the records checked in next to it", (name) => {
    const expected: unknown = JSON.parse(readFileSync(`${FIXTURES}${name}.expected.json`, "utf8"));
    const records = parsed(name);
    expect(records).toEqual(expected);
    for (const record of records) expect(v.safeParse(ParsedRecord, record).success).toBe(true);
  });

  it("keeps the include chain of a header error, innermost includer first, for GCC and Clang alike", () => {
    const [gcc] = parsed("gcc-nested");
    const [clang] = parsed("clang-nested");
    expect(gcc?.context.include_chain.map((place) => `${place.file}:${place.line}`)).toEqual(["include/outer.h:2", "nested.cpp:1"]);
    expect(clang?.context.include_chain.map((place) => `${place.file}:${place.line}`)).toEqual(["./include/outer.h:2", "nested.cpp:1"]);
  });

  it("names the translation unit as the job, so a header error printed by two units can become one record", () => {
    expect(parsed("gcc-nested").map((record) => record.job)).toEqual(["nested.cpp", "b.cpp"]);
    expect(parsed("clang-nested").map((record) => record.job)).toEqual(["nested.cpp", "b.cpp"]);
  });

  it("gives a later error in the same header the include chain GCC printed only once", () => {
    const [first, second] = parsed("gcc-header-twice");
    expect(second?.context.include_chain).toEqual(first?.context.include_chain);
    expect(second?.job).toBe("pair.cpp");
  });

  it("takes the enclosing function from the scope line before the diagnostic, and none after At global scope", () => {
    expect(parsed("gcc-header-twice").map((record) => record.context.function)).toEqual(["int first()", "int second()"]);
    expect(parsed("gcc-include")[0]?.context.function).toBe("int Widget::size() const");
    expect(parsed("gcc-global-scope").map((record) => record.context.function)).toEqual(["int f()", null]);
  });

  it("names constructors, destructors, static members and lambdas from GCC's scope lines", () => {
    expect(parsed("ninja-build").map((record) => record.context.function)).toEqual(["int main()", "K::K()", "K::~K()", "static int K::s()", "lambda function"]);
  });

  it("leaves linker lines and make or ninja framing to their own grammar", () => {
    for (const name of ["ninja-build", "make-build"]) {
      const records = parsed(name);
      expect(records).toHaveLength(5);
      expect(records.every((record) => record.severity === "error" && record.file?.endsWith(".cpp") === true)).toBe(true);
    }
  });

  it("keeps GCC's instantiation chain and attaches the candidate notes as children", () => {
    const [warning, error] = parsed("gcc-template");
    expect(warning?.context.instantiation).toEqual([]);
    expect(error?.context.instantiation.map((step) => step.message)).toEqual(["In instantiation of 'int g(T) [with T = int]'", "required from here"]);
    expect(error?.context.instantiation[1]).toMatchObject({ file: "templ.cpp", line: 7, column: 11 });
    expect(error?.children.map((child) => child.severity)).toEqual(["note", "note", "note", "note"]);
  });

  it("gives every error of one instantiation the chain GCC printed once for it", () => {
    const records = parsed("gcc-instantiation-scope");
    expect(records.map((record) => [record.line, record.context.function, record.context.instantiation.at(-1)?.line ?? null])).toEqual([
      [8, "int k()", null],
      [3, "int g(T) [with T = int]", 7],
      [4, "int g(T) [with T = int]", 7],
      [3, "int g(T) [with T = double]", 9],
      [4, "int g(T) [with T = double]", 9],
    ]);
  });

  it("reads GCC's inlining stack: the function without a file, then each 'inlined from' step", () => {
    const [warning] = parsed("gcc-inlined");
    expect(warning?.context.function).toBe("char* strcpy(char*, const char*)");
    expect(warning?.context.instantiation.map((step) => [step.message, step.line])).toEqual([
      ["inlined from 'void copy_into(char*, const char*, unsigned int)'", 2],
      ["inlined from 'void fill()'", 6],
    ]);
    expect(warning?.job).toBe("inlined.cpp");
  });

  it("moves Clang's 'in instantiation of … requested here' notes into the instantiation chain", () => {
    const error = parsed("clang-template")[1];
    expect(error?.context.instantiation).toEqual([
      { file: "templ.cpp", line: 7, column: 10, message: "in instantiation of function template specialization 'g<int>' requested here" },
    ]);
    expect(error?.children).toHaveLength(2);
  });

  it("reads Clang's parseable fix-its, unescaped, onto the diagnostic they follow", () => {
    const [typo, semicolon] = parsed("clang-fixit");
    expect(typo?.fixits).toEqual([{ file: "typo.cpp", start: { line: 3, column: 3 }, end: { line: 3, column: 7 }, replacement: "Gamma" }]);
    expect(semicolon?.fixits[0]?.replacement).toBe(";");
    expect(parsed("hand-windows-clang")[0]?.fixits[0]).toMatchObject({ file: "C:\\src\\app\\main.cpp", replacement: 'y\t"z"' });
  });

  it("splits the warning option off the message: GCC's -Werror=foo and Clang's -Werror,-Wfoo are the code -Wfoo", () => {
    const codes = (name: string) => parsed(name).map((record) => [record.severity, record.code]);
    expect(codes("gcc-werror")).toEqual([
      ["error", "-Wparentheses"],
      ["error", "-Wunused-variable"],
    ]);
    expect(codes("clang-werror")).toEqual(codes("gcc-werror"));
    expect(parsed("gcc-werror")[0]?.message).toBe("suggest parentheses around assignment used as truth value");
  });

  it("reads the same records whether colour, hyperlinks or CRLF line ends are on or off", () => {
    expect(parsed("gcc-color").slice(2)).toEqual(parsed("gcc-urls"));
    expect(parse_compiler_text(output("gcc-template").replace(/\n/g, "\r\n"))).toEqual(parsed("gcc-template"));
  });

  it("reads locationless driver lines and skips the summaries", () => {
    expect(parsed("gcc-driver")).toMatchObject([{ severity: "fatal", file: null, line: null, message: "missing.cpp: No such file or directory", job: null }]);
    expect(parsed("gcc-badflag")).toMatchObject([{ severity: "error", file: null, message: "unrecognized command-line option '--bogus-flag'" }]);
    expect(parsed("clang-driver").map((record) => record.message)).toEqual(["no such file or directory: 'missing.cpp'", "no input files"]);
    expect(parsed("gcc-werror")).toHaveLength(2);
  });

  it("reads Clang's unprefixed cc1 errors with their notes as children", () => {
    const [error, driver_warning] = parsed("clang-badstd");
    expect(error).toMatchObject({ severity: "error", file: null, message: "invalid value 'c++99' in '-std=c++99'" });
    expect(error?.children).toHaveLength(12);
    expect(driver_warning).toMatchObject({ severity: "warning", file: null, code: "-Wunused-command-line-argument" });
  });

  it("tells Clang from GCC by its driver lines, fix-its and summaries", () => {
    expect(new Set(["clang-include", "clang-driver", "clang-fixit", "clang-color"].map((name) => parsed(name)[0]?.source))).toEqual(new Set(["clang"]));
    expect(new Set(["gcc-include", "gcc-driver", "gcc-template"].map((name) => parsed(name)[0]?.source))).toEqual(new Set(["gcc"]));
  });

  it("keeps a Windows drive letter in the file and reads Clang's source ranges after the column", () => {
    expect(parsed("hand-windows-clang").map((record) => [record.file, record.line, record.column])).toEqual([
      ["C:\\src\\app\\main.cpp", 12, 3],
      ["C:\\src\\app\\main.cpp", 14, 8],
    ]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { is_air_failure } from "../../../src/contracts/errors.js";
import { parse_cppcheck_xml, parse_gtest_json, parse_junit } from "../../../src/cpp/diagnostics/structured.js";

const FIXTURES = new URL("../../fixtures/cpp-diagnostics/structured/", import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), "utf8");
const expected = (name: string): unknown => JSON.parse(fixture(`${name}.expected.json`));

function user_error_of(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (is_air_failure(error) && error.kind === "user_error") return error.message;
    throw error;
  }
  throw new Error("expected a user error");
}

describe("parse_junit", () => {
  it("reads a real CTest --output-junit report: failed and unstartable tests, not deliberate skips", () => {
    const diagnostics = parse_junit(fixture("ctest-junit.xml"));
    expect(diagnostics).toEqual(expected("ctest-junit.xml"));
    expect(diagnostics.map((d) => [d.context.function, d.code])).toEqual([
      ["math.divides", "junit.failure"],
      ["math.crashes", "junit.failure"],
      ["math.missing", "junit.not-run"],
    ]);
  });

  it("places a CTest failure at the first file:line its output prints", () => {
    const [divides] = parse_junit(fixture("ctest-junit.xml"));
    expect(divides).toMatchObject({ file: "check_math.cpp", line: 8, message: "expected 3 == 7 / 2, got 3" });
  });

  it("reads GoogleTest XML: one error per failed assertion at its file and line", () => {
    const diagnostics = parse_junit(fixture("gtest-junit.xml"));
    expect(diagnostics).toEqual(expected("gtest-junit.xml"));
    expect(diagnostics.map((d) => [d.context.function, d.file, d.line])).toEqual([
      ["MathTest.AddsLarge", "math_test.cpp", 5],
      ["MathTest.AddsLarge", "math_test.cpp", 6],
      ["Numbers/ParamTest.IsEven/1", "math_test.cpp", 9],
    ]);
  });

  it("reports malformed XML as a user error naming where", () => {
    const truncated = fixture("ctest-junit.xml").slice(0, 400);
    expect(user_error_of(() => parse_junit(truncated))).toMatch(/^ctest-junit: malformed XML at line \d+/);
  });

  it("reports XML that is not a JUnit report as a user error", () => {
    expect(user_error_of(() => parse_junit('<results version="2"/>'))).toMatch(/^ctest-junit: unexpected content/);
  });
});

describe("parse_gtest_json", () => {
  it("reads a real --gtest_output=json report: failures only, skipped and disabled tests ignored", () => {
    const diagnostics = parse_gtest_json(fixture("gtest.json"));
    expect(diagnostics).toEqual(expected("gtest.json"));
    expect(diagnostics[0]).toMatchObject({
      source: "gtest-json",
      file: "math_test.cpp",
      line: 5,
      message: "Expected equality of these values: add(200, 1) Which is: 202 201",
      job: "MathTest.AddsLarge",
    });
  });

  it("agrees with the XML report of the same run", () => {
    const strip = (diagnostics: readonly { file: string | null; line: number | null; message: string }[]) =>
      diagnostics.map(({ file, line, message }) => ({ file, line, message }));
    expect(strip(parse_gtest_json(fixture("gtest.json")))).toEqual(strip(parse_junit(fixture("gtest-junit.xml"))));
  });

  it("reports invalid JSON and a wrong shape as user errors", () => {
    expect(user_error_of(() => parse_gtest_json('{"testsuites": ['))).toBe("gtest-json: the report is not valid JSON");
    expect(user_error_of(() => parse_gtest_json('{"testsuites": [{"name": 3}]}'))).toMatch(/^gtest-json: unexpected content at testsuites\.0\.name/);
  });
});

describe("parse_cppcheck_xml", () => {
  it("reads a real cppcheck 2.10 --xml report: the first location is the finding, the others notes", () => {
    const diagnostics = parse_cppcheck_xml(fixture("cppcheck.xml"));
    expect(diagnostics).toEqual(expected("cppcheck.xml"));
    expect(diagnostics[0]).toMatchObject({
      code: "returnDanglingLifetime",
      severity: "error",
      file: "buffer.cpp",
      line: 10,
      column: 10,
      message: "Returning pointer to local variable 'local' that will be invalid when returning.",
      job: "buffer.cpp",
    });
    expect(diagnostics[0]?.children.map((c) => [c.line, c.message])).toEqual([
      [9, "Variable created here."],
      [10, "Address of variable taken here."],
    ]);
  });

  it("maps style findings to warnings", () => {
    const style = parse_cppcheck_xml(fixture("cppcheck.xml")).find((d) => d.code === "constVariable");
    expect(style?.severity).toBe("warning");
  });

  it("reads a report with no findings as none", () => {
    expect(parse_cppcheck_xml('<?xml version="1.0"?><results version="2"><cppcheck version="2.10"/><errors>\n</errors></results>')).toEqual([]);
  });

  it("refuses the version 1 format as a user error", () => {
    expect(user_error_of(() => parse_cppcheck_xml('<results><error file="a.cpp" line="1" id="x" severity="error" msg="m"/></results>'))).toMatch(
      /^cppcheck-xml: unexpected content at results\.@_version/,
    );
  });
});

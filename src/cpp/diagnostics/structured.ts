import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { line_number, parsed_diagnostic } from "./parsed.js";
import type { ChildDiagnostic, ParsedDiagnostic, Severity } from "./record.js";
import { check_report, parse_xml_report } from "./xml.js";

/** Element text as fast-xml-parser returns it: a bare string, or an object when the element has attributes. */
const XmlText = v.union([v.string(), v.object({ "#text": v.optional(v.string()) })]);
type XmlText = v.InferOutput<typeof XmlText>;

const JunitOutcome = v.union([v.string(), v.object({ "@_message": v.optional(v.string()), "#text": v.optional(v.string()) })]);
type JunitOutcome = v.InferOutput<typeof JunitOutcome>;

const JunitTestCase = v.object({
  "@_name": v.string(),
  "@_classname": v.optional(v.string()),
  "@_status": v.optional(v.string()),
  failure: v.optional(v.array(JunitOutcome)),
  error: v.optional(v.array(JunitOutcome)),
  skipped: v.optional(v.array(JunitOutcome)),
  "system-out": v.optional(XmlText),
});
type JunitTestCase = v.InferOutput<typeof JunitTestCase>;

const JunitSuite = v.object({ testcase: v.optional(v.array(JunitTestCase)) });

/** CTest writes one `<testsuite>` root; GoogleTest and Catch2 wrap suites in `<testsuites>`. */
const JunitReport = v.union([v.object({ testsuites: v.object({ testsuite: v.optional(v.array(JunitSuite)) }) }), v.object({ testsuite: v.array(JunitSuite) })]);

const LOCATED_LINE = /^\s*(.+?):(\d+)(?::(\d+))?(?::\s*(.*))?$/;

/** CTest's reasons for a test that was deliberately not run; any other not-run test failed to start. */
const DELIBERATE_SKIP = /^(SKIP_|Disabled)/;

type Location = { file: string; line: number; column: number | null; rest: string };

function located(line: string): Location | null {
  const match = LOCATED_LINE.exec(line);
  const line_no = line_number(match?.[2]);
  if (match?.[1] === undefined || line_no === null || /\s/.test(match[1])) return null;
  return { file: match[1], line: line_no, column: line_number(match[3]), rest: match[4] ?? "" };
}

function text_of(value: XmlText | JunitOutcome | undefined): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : (value["#text"] ?? "");
}

function message_of(outcome: JunitOutcome): string {
  const body = text_of(outcome);
  if (body.trim() !== "" || typeof outcome === "string") return body;
  return outcome["@_message"] ?? "";
}

function one_line(lines: readonly string[]): string {
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/** An assertion's text: a leading `file:line` names where it failed, the rest is what it says. */
function assertion(text: string): { location: Location | null; message: string } {
  const lines = text.split(/\r?\n/);
  const location = located(lines[0] ?? "");
  if (location === null) return { location: null, message: one_line(lines) };
  return { location, message: one_line([location.rest, ...lines.slice(1)]) };
}

function test_id(test: JunitTestCase): string {
  const name = test["@_name"];
  const classname = test["@_classname"];
  return classname === undefined || classname === "" || classname === name ? name : `${classname}.${name}`;
}

function output_located_lines(output: string): ChildDiagnostic[] {
  return output.split(/\r?\n/).flatMap((line) => {
    const location = located(line);
    if (location === null) return [];
    return [{ severity: "note" as const, file: location.file, line: location.line, column: location.column, code: null, message: location.rest }];
  });
}

function junit_outcomes(test: JunitTestCase): { code: string; outcome: JunitOutcome }[] {
  const failures = (test.failure ?? []).map((outcome) => ({ code: "junit.failure", outcome }));
  const errors = (test.error ?? []).map((outcome) => ({ code: "junit.error", outcome }));
  const found = [...failures, ...errors];
  if (found.length > 0) return found;
  if (test["@_status"] === "fail") return [{ code: "junit.failure", outcome: "" }];
  const refused = (test.skipped ?? []).filter((outcome) => test["@_status"] === "notrun" && !DELIBERATE_SKIP.test(message_of(outcome)));
  return refused.map((outcome) => ({ code: "junit.not-run", outcome }));
}

function junit_test_diagnostics(test: JunitTestCase): ParsedDiagnostic[] {
  const id = test_id(test);
  const output = text_of(test["system-out"]);
  const notes = output_located_lines(output);
  return junit_outcomes(test).map(({ code, outcome }) => {
    const { location, message } = assertion(message_of(outcome));
    const first_note = notes[0];
    const fallback = first_note === undefined ? (output.split(/\r?\n/).find((line) => line.trim() !== "") ?? "test failed") : first_note.message;
    return parsed_diagnostic({
      source: "ctest-junit",
      severity: "error",
      code,
      message: message === "" ? fallback.trim() : message,
      file: location?.file ?? first_note?.file ?? null,
      line: location?.line ?? first_note?.line ?? null,
      column: location?.column ?? first_note?.column ?? null,
      children: location === null ? notes.slice(1) : notes,
      function: id,
      job: id,
    });
  });
}

/** A JUnit XML report (CTest `--output-junit`, GoogleTest or Catch2 XML): one error per failed assertion or test. */
export function parse_junit(xml: string): ParsedDiagnostic[] {
  const report = parse_xml_report(xml, JunitReport, "ctest-junit");
  const suites = "testsuites" in report ? (report.testsuites.testsuite ?? []) : report.testsuite;
  return suites.flatMap((suite) => (suite.testcase ?? []).flatMap(junit_test_diagnostics));
}

const GtestTest = v.object({
  name: v.string(),
  classname: v.optional(v.string()),
  file: v.optional(v.string()),
  line: v.optional(v.number()),
  failures: v.optional(v.array(v.object({ failure: v.string() }))),
});
type GtestTest = v.InferOutput<typeof GtestTest>;

const GtestReport = v.object({
  testsuites: v.array(v.object({ name: v.string(), testsuite: v.optional(v.array(GtestTest)) })),
});

function gtest_test_diagnostics(suite: string, test: GtestTest): ParsedDiagnostic[] {
  const id = `${test.classname ?? suite}.${test.name}`;
  return (test.failures ?? []).map(({ failure }) => {
    const { location, message } = assertion(failure);
    return parsed_diagnostic({
      source: "gtest-json",
      severity: "error",
      code: "gtest.failure",
      message,
      file: location?.file ?? test.file ?? null,
      line: location?.line ?? line_number(test.line?.toString()),
      column: location?.column ?? null,
      function: id,
      job: id,
    });
  });
}

/** A GoogleTest `--gtest_output=json` report: one error per failed assertion, in the test's name. */
export function parse_gtest_json(json: string): ParsedDiagnostic[] {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (cause) {
    throw air_failure({ kind: "user_error", message: "gtest-json: the report is not valid JSON" }, cause);
  }
  const report = check_report(document, GtestReport, "gtest-json");
  return report.testsuites.flatMap((suite) => (suite.testsuite ?? []).flatMap((test) => gtest_test_diagnostics(suite.name, test)));
}

const CppcheckLocation = v.object({
  "@_file": v.string(),
  "@_line": v.string(),
  "@_column": v.optional(v.string()),
  "@_info": v.optional(v.string()),
});
type CppcheckLocation = v.InferOutput<typeof CppcheckLocation>;

const CppcheckError = v.object({
  "@_id": v.string(),
  "@_severity": v.string(),
  "@_msg": v.string(),
  "@_file0": v.optional(v.string()),
  location: v.optional(v.array(CppcheckLocation)),
});
type CppcheckError = v.InferOutput<typeof CppcheckError>;

const CppcheckReport = v.object({
  results: v.object({
    "@_version": v.literal("2"),
    errors: v.optional(v.union([v.string(), v.object({ error: v.optional(v.array(CppcheckError)) })])),
  }),
});

const CPPCHECK_SEVERITY: Readonly<Record<string, Severity>> = {
  error: "error",
  warning: "warning",
  style: "warning",
  performance: "warning",
  portability: "warning",
  information: "info",
  debug: "info",
};

function cppcheck_note(location: CppcheckLocation): ChildDiagnostic {
  return {
    severity: "note",
    file: location["@_file"],
    line: line_number(location["@_line"]),
    column: line_number(location["@_column"]),
    code: null,
    message: location["@_info"] ?? "",
  };
}

function cppcheck_diagnostic(error: CppcheckError): ParsedDiagnostic {
  const [primary, ...others] = error.location ?? [];
  return parsed_diagnostic({
    source: "cppcheck-xml",
    severity: CPPCHECK_SEVERITY[error["@_severity"]] ?? "warning",
    code: error["@_id"],
    message: error["@_msg"],
    file: primary?.["@_file"] ?? null,
    line: line_number(primary?.["@_line"]),
    column: line_number(primary?.["@_column"]),
    children: others.map(cppcheck_note),
    job: error["@_file0"] ?? null,
  });
}

/** A cppcheck `--xml` (results version 2) report: the first location is the finding, the others its notes. */
export function parse_cppcheck_xml(xml: string): ParsedDiagnostic[] {
  const report = parse_xml_report(xml, CppcheckReport, "cppcheck-xml");
  const errors = report.results.errors;
  if (errors === undefined || typeof errors === "string") return [];
  return (errors.error ?? []).map(cppcheck_diagnostic);
}

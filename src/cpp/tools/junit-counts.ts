import * as v from "valibot";
import { parse_xml_report } from "../diagnostics/xml.js";

export const TestCounts = v.strictObject({
  total: v.pipe(v.number(), v.integer(), v.minValue(0)),
  passed: v.pipe(v.number(), v.integer(), v.minValue(0)),
  failed: v.pipe(v.number(), v.integer(), v.minValue(0)),
  skipped: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type TestCounts = v.InferOutput<typeof TestCounts>;

const Case = v.object({ "@_status": v.optional(v.string()), failure: v.optional(v.array(v.unknown())) });
const Suite = v.object({ testcase: v.optional(v.array(Case)) });
const Report = v.union([v.object({ testsuites: v.object({ testsuite: v.optional(v.array(Suite)) }) }), v.object({ testsuite: v.array(Suite) })]);

/** Passed, failed and skipped tests of CTest's JUnit report: `status` is run, fail, notrun or disabled. */
export function junit_counts(xml: string): TestCounts {
  const report = parse_xml_report(xml, Report, "ctest-junit");
  const suites = "testsuites" in report ? (report.testsuites.testsuite ?? []) : report.testsuite;
  const counts = { total: 0, passed: 0, failed: 0, skipped: 0 };
  for (const test of suites.flatMap((suite) => suite.testcase ?? [])) {
    counts.total += 1;
    const status = test["@_status"];
    if (status === "fail" || (test.failure ?? []).length > 0) counts.failed += 1;
    else if (status === "notrun" || status === "disabled") counts.skipped += 1;
    else counts.passed += 1;
  }
  return counts;
}

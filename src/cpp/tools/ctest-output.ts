import * as v from "valibot";

export const TestOutcome = v.picklist(["passed", "failed", "crashed", "timeout", "not_run"]);
export type TestOutcome = v.InferOutput<typeof TestOutcome>;

/** One test as ctest's progress lines report it, with the output `--output-on-failure` printed after it. */
export type CtestSection = { readonly number: number; readonly name: string; readonly outcome: TestOutcome; readonly output: string };

// `1/2 Test #1: name ....***Failed    0.15 sec` (ctest(1) progress lines; the status field as ctest 3.25 prints it).
const RESULT = /^\s*\d+\/\d+ Test\s+#(\d+): (\S+) \.*\s*(?:\*\*\*)?(Passed|Failed|Exception|Timeout|Not Run|Skipped|\*?Disabled)\b/;
const START = /^\s+Start\s+\d+: /;
const SUMMARY = /^\d+% tests passed, /;

function outcome_of(status: string): TestOutcome {
  if (status === "Passed") return "passed";
  if (status === "Exception") return "crashed";
  if (status === "Timeout") return "timeout";
  if (status === "Failed") return "failed";
  return "not_run";
}

/**
 * ctest's stdout cut into one section per test: each failing test's own output (a sanitizer report, a GoogleTest
 * `[  FAILED  ]` list) stays with the test that printed it; in test-number order, whatever order `-j` finished them in.
 */
export function ctest_sections(stdout: string): CtestSection[] {
  const sections: { number: number; name: string; outcome: TestOutcome; lines: string[] }[] = [];
  let open: { lines: string[] } | null = null;
  for (const line of stdout.split(/\r?\n/)) {
    const result = RESULT.exec(line);
    if (result?.[1] !== undefined && result[2] !== undefined && result[3] !== undefined) {
      const section = { number: Number(result[1]), name: result[2], outcome: outcome_of(result[3]), lines: [] };
      sections.push(section);
      open = section;
    } else if (SUMMARY.test(line)) open = null;
    else if (open !== null && !START.test(line)) open.lines.push(line);
  }
  return sections.sort((a, b) => a.number - b.number).map(({ number, name, outcome, lines }) => ({ number, name, outcome, output: lines.join("\n") }));
}

/** The GoogleTest test ids a section lists as failed (`[  FAILED  ] Suite.Name`), to tie JSON reports to ctest tests. */
export function gtest_failed_ids(output: string): Set<string> {
  const ids = new Set<string>();
  for (const match of output.matchAll(/^\[ {2}FAILED {2}\] (\S+?)(?: \(\d+ ms\))?$/gm)) {
    if (match[1] !== undefined) ids.add(match[1]);
  }
  return ids;
}

const CtestTest = v.object({
  name: v.string(),
  command: v.optional(v.array(v.string())),
  properties: v.optional(v.array(v.object({ name: v.string(), value: v.unknown() }))),
});

const CtestListing = v.object({ tests: v.array(CtestTest) });

/** How ctest runs a test: its command and working folder (`ctest --show-only=json-v1`). */
export type TestCommand = { readonly command: readonly string[]; readonly cwd: string | null };

export function test_commands(listing: string): Map<string, TestCommand> {
  const commands = new Map<string, TestCommand>();
  let document: unknown;
  try {
    document = JSON.parse(listing);
  } catch {
    return commands;
  }
  const parsed = v.safeParse(CtestListing, document);
  if (!parsed.success) return commands;
  for (const test of parsed.output.tests) {
    if (test.command === undefined || test.command.length === 0) continue;
    const cwd = test.properties?.find((property) => property.name === "WORKING_DIRECTORY")?.value;
    commands.set(test.name, { command: test.command, cwd: typeof cwd === "string" ? cwd : null });
  }
  return commands;
}

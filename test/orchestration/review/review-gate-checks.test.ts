import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ReviewerResult, type ReviewFinding } from "../../../src/contracts/worker-result.js";
import { false_success_of, review_need } from "../../../src/orchestration/review/gate-checks.js";
import { public_interface_changes, type TaskChange } from "../../../src/orchestration/review/change.js";
import { DEFAULT_REVIEW_SETTINGS, ReviewSettings } from "../../../src/orchestration/review/settings.js";
import { finding_line, gate_verdict } from "../../../src/orchestration/review/verdict.js";
import { decide_retry } from "../../../src/orchestration/retry-planner.js";
import { make_air_error } from "../../../src/contracts/errors.js";

const small: TaskChange = {
  files: [{ path: "src/parser/lexer.ts", added: 3, deleted: 1 }],
  diff: "diff --git a/src/parser/lexer.ts b/src/parser/lexer.ts\n--- a/src/parser/lexer.ts\n+++ b/src/parser/lexer.ts\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;\n",
};
const large: TaskChange = { files: [{ path: "src/parser/lexer.ts", added: 18, deleted: 5 }], diff: "" };
const exported: TaskChange = {
  files: [{ path: "src/parser/index.ts", added: 1, deleted: 1 }],
  diff: "diff --git a/src/parser/index.ts b/src/parser/index.ts\n--- a/src/parser/index.ts\n+++ b/src/parser/index.ts\n@@ -1 +1 @@\n-export function parse(text: string): Ast {\n+export function parse(text: string, strict: boolean): Ast {\n",
};
const header: TaskChange = { files: [{ path: "libs/net/include/net/socket.h", added: 1, deleted: 0 }], diff: "" };

const settings = (input: v.InferInput<typeof ReviewSettings>) => v.parse(ReviewSettings, input);

describe("the review policy", () => {
  it("reviews a significant change under the default policy: more lines than the setting, or a public interface", () => {
    expect(DEFAULT_REVIEW_SETTINGS).toEqual({ policy: "significant", significant_lines: 20, confidence_threshold: 0.8 });
    expect(review_need(DEFAULT_REVIEW_SETTINGS, small).review).toBe(false);
    expect(review_need(DEFAULT_REVIEW_SETTINGS, large)).toEqual({ review: true, reason: "23 changed lines, more than 20" });
    expect(review_need(DEFAULT_REVIEW_SETTINGS, exported)).toEqual({ review: true, reason: "it changes a public interface: src/parser/index.ts" });
    expect(review_need(DEFAULT_REVIEW_SETTINGS, header).reason).toContain("libs/net/include/net/socket.h");
    expect(review_need(settings({ significant_lines: 2 }), small).review).toBe(true);
  });

  it("reviews every change under always and none under never", () => {
    expect(review_need(settings({ policy: "always" }), small).review).toBe(true);
    expect(review_need(settings({ policy: "never" }), exported).review).toBe(false);
  });

  it("does not count a changed line that only mentions export as an exported signature", () => {
    const comment: TaskChange = {
      files: [{ path: "src/a.ts", added: 1, deleted: 0 }],
      diff: "diff --git a/src/a.ts b/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n+// we export nothing here\n",
    };
    expect(public_interface_changes(comment)).toEqual([]);
  });
});

describe("the false-success check", () => {
  const scope = { write_area: ["src/parser"], expected_files: ["src/parser/index.ts"] };

  it("never passes a completion with an empty diff", () => {
    const error = false_success_of({ files: [], diff: "" }, scope);
    expect(error).toMatchObject({ kind: "agent_error", retryability: "retryable_after_change", metadata: { false_success: true } });
    expect(error?.message).toContain("diff against its base is empty");
  });

  it("never passes a diff that touches none of the task's expected files", () => {
    const error = false_success_of({ files: [{ path: "README.md", added: 1, deleted: 0 }], diff: "" }, scope);
    expect(error?.message).toContain("touches none of the task's expected files (src/parser/index.ts, src/parser)");
  });

  it("passes no change of a task whose scope names no file and no area: it promised none", () => {
    expect(false_success_of({ files: [], diff: "" }, {})).toBeUndefined();
  });

  it("passes a diff inside the write area, and any diff of a task that expects nothing in particular", () => {
    expect(false_success_of(small, scope)).toBeUndefined();
    expect(false_success_of({ files: [{ path: "README.md", added: 1, deleted: 0 }], diff: "" }, {})).toBeUndefined();
  });
});

const finding = (confidence: number, overrides: Partial<ReviewFinding> = {}): ReviewFinding => ({
  severity: "P1",
  confidence,
  category: "correctness",
  file: "src/parser/lexer.ts",
  line_start: 3,
  line_end: 5,
  message: "the loop skips the last token",
  evidence_refs: [],
  ...overrides,
});

describe("the gate's verdict", () => {
  it("lets findings under the confidence threshold advise and never gate", () => {
    const unsure = gate_verdict({ verdict: "changes_requested", findings: [finding(0.5)] }, 0.8);
    expect(unsure).toMatchObject({ passed: true, gating: [], advisory: [{ confidence: 0.5 }] });
    const sure = gate_verdict({ verdict: "changes_requested", findings: [finding(0.9), finding(0.3)] }, 0.8);
    expect(sure).toMatchObject({ passed: false, gating: [{ confidence: 0.9 }], advisory: [{ confidence: 0.3 }] });
    expect(gate_verdict({ verdict: "approved", findings: [finding(0.95, { severity: "P3" })] }, 0.8).passed).toBe(true);
  });

  it("names a finding with its severity, category, place and suggestion", () => {
    expect(finding_line(finding(0.9, { suggestion: "iterate to <= len" }))).toBe(
      "[P1 correctness] src/parser/lexer.ts:3-5: the loop skips the last token (suggestion: iterate to <= len)",
    );
  });

  it("refuses a finding whose line range ends before it starts", () => {
    expect(v.safeParse(ReviewerResult, { verdict: "approved", findings: [{ ...finding(1), line_start: 5, line_end: 3 }] }).success).toBe(false);
  });
});

describe("the RetryPlanner on a review", () => {
  const review_error = make_air_error({
    kind: "agent_error",
    message: "the review requested changes: 1 finding(s)",
    retryability: "retryable_after_change",
    metadata: { review_findings: true, detail: "- [P1 correctness] …" },
  });

  it("retries changes_requested with the findings, even the same request twice, within the budget", () => {
    const first = decide_retry({ retry_budget: 2, fallback_allowed: false, earlier: [], latest: { error: review_error } });
    expect(first).toMatchObject({ action: "retry", change: "review_findings", rule: "review_findings" });
    const again = decide_retry({
      retry_budget: 2,
      fallback_allowed: false,
      earlier: [{ error: review_error }],
      latest: { change: "review_findings", error: review_error },
    });
    expect(again).toMatchObject({ action: "retry", change: "review_findings" });
    const spent = decide_retry({
      retry_budget: 2,
      fallback_allowed: false,
      earlier: [{ error: review_error }, { change: "review_findings", error: review_error }],
      latest: { change: "review_findings", error: review_error },
    });
    expect(spent).toMatchObject({ action: "block", rule: "retries_spent" });
  });
});

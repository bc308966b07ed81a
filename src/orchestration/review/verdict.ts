import type { ReviewerResult, ReviewFinding, ReviewVerdict } from "../../contracts/worker-result.js";

/**
 * What the gate makes of a review: findings at or above the confidence threshold gate, the others only
 * advise. A verdict that asks for more than approval with no gating finding to back it passes: a reviewer
 * unsure of everything it found does not hold the work back.
 */
export type GateVerdict = {
  readonly verdict: ReviewVerdict;
  readonly gating: readonly ReviewFinding[];
  readonly advisory: readonly ReviewFinding[];
  readonly passed: boolean;
};

export function gate_verdict(review: ReviewerResult, confidence_threshold: number): GateVerdict {
  const gating = review.findings.filter((finding) => finding.confidence >= confidence_threshold);
  const advisory = review.findings.filter((finding) => finding.confidence < confidence_threshold);
  const passed = review.verdict === "approved" || gating.length === 0;
  return { verdict: review.verdict, gating, advisory, passed };
}

function located(finding: ReviewFinding): string {
  if (finding.file === undefined) return "";
  if (finding.line_start === undefined) return ` ${finding.file}`;
  const range =
    finding.line_end === undefined || finding.line_end === finding.line_start ? `${finding.line_start}` : `${finding.line_start}-${finding.line_end}`;
  return ` ${finding.file}:${range}`;
}

/** One finding on one line: `[P1 correctness] src/a.c:3-5: message (suggestion: …)`. */
export function finding_line(finding: ReviewFinding): string {
  const suggestion = finding.suggestion === undefined ? "" : ` (suggestion: ${finding.suggestion})`;
  return `[${finding.severity} ${finding.category}]${located(finding)}: ${finding.message}${suggestion}`;
}

/** The findings in a line each, for a retried executor's brief and a blocked task's reason. */
export function findings_text(findings: readonly ReviewFinding[]): string {
  return findings.map((finding) => `- ${finding_line(finding)}`).join("\n");
}

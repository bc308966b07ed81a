import type { TaskSpec } from "../../contracts/task.js";
import type { WorkerResult } from "../../contracts/worker-result.js";
import { changed_lines, type TaskChange } from "./change.js";

function verification_lines(result: WorkerResult): string[] {
  if (result.verification.length === 0) return ["No verification command ran."];
  return result.verification.map((run) => `- \`${run.command}\`: ${run.passed ? "passed" : "failed"} (exit ${run.exit_code ?? "none"})`);
}

/**
 * What the parent tells a reviewer besides its layers (which hold the task specification and the project
 * rules): the executor's account, the verification evidence, and the diff of the task against its base.
 */
export function review_instructions(task: TaskSpec, result: WorkerResult, change: TaskChange, why: string): string {
  const acceptance = task.acceptance_criteria.length === 0 ? [] : ["", "## Acceptance criteria", ...task.acceptance_criteria.map((line) => `- ${line}`)];
  return [
    `The review was asked because ${why}.`,
    ...acceptance,
    "",
    "## What the executor reported",
    result.summary,
    "",
    "## Verification evidence",
    ...verification_lines(result),
    "",
    `## The diff against the task's base (${change.files.length} file(s), ${changed_lines(change)} changed line(s))`,
    "```diff",
    change.diff === "" ? "(no textual diff: the project is not a git checkout; read the changed files instead)" : change.diff,
    "```",
  ].join("\n");
}

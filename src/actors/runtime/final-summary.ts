/**
 * The final message of a request that ran tasks: per task, the worker's own summary (its model's closing words,
 * seeds 001 D-042) with the facts under it — the verdict, the files changed, the verification, the cost — as
 * Markdown, which the TUI renders and `air run -p` prints as it is.
 */
import * as v from "valibot";
import { VerificationResult } from "../../contracts/worker-result.js";
import { usage_of } from "../../orchestration/budget/usage.js";
import type { Session } from "../../project/session-manager.js";
import { read_task } from "./task-graph.js";

/** The part of a stored worker result the user is told; read leniently, as rows outlive schema versions. */
const TaskOutcome = v.object({
  summary: v.string(),
  changed_files: v.optional(v.array(v.string()), []),
  verification: v.optional(v.array(VerificationResult), []),
});
type TaskOutcome = v.InferOutput<typeof TaskOutcome>;

function verification_fact(results: TaskOutcome["verification"]): string {
  if (results.length === 0) return "no command ran";
  const verdicts = results.map((result) =>
    result.passed ? `\`${result.command}\` passed` : `\`${result.command}\` failed${result.exit_code === null ? "" : ` (exit ${result.exit_code})`}`,
  );
  const passed = results.filter((result) => result.passed).length;
  return `${passed} of ${results.length} passed — ${verdicts.join(", ")}`;
}

function cost_fact(session: Session, task_id: string): string {
  const usage = usage_of(session.connection, { task_id });
  const calls = `${usage.turns} model call${usage.turns === 1 ? "" : "s"}, ${usage.tokens.toLocaleString("en-US")} tokens`;
  return usage.cost_usd === null ? `${calls} (no price known for the model)` : `$${usage.cost_usd.toFixed(4)} (${calls})`;
}

function parsed_outcome(json: string | null): TaskOutcome | undefined {
  if (json === null) return undefined;
  const result = v.safeParse(TaskOutcome, JSON.parse(json));
  return result.success ? result.output : undefined;
}

/** One task's block of the final message: its summary, then its facts as a list. */
export function task_summary(session: Session, task_id: string): string {
  const task = read_task(session.connection, task_id);
  const outcome = parsed_outcome(task.worker_result_json);
  const words = outcome?.summary.trim() ?? (task.status === "completed" ? "" : (task.status_reason ?? ""));
  const facts = [
    `Task "${task.title}" is ${task.status}.`,
    ...(outcome === undefined
      ? []
      : [
          `Files changed: ${outcome.changed_files.length === 0 ? "none" : outcome.changed_files.map((file) => `\`${file}\``).join(", ")}`,
          `Verification: ${verification_fact(outcome.verification)}`,
        ]),
    `Cost: ${cost_fact(session, task_id)}`,
  ];
  const list = facts.map((fact) => `- ${fact}`).join("\n");
  return words === "" ? list : `${words}\n\n${list}`;
}

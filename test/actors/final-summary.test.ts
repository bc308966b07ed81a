/**
 * The final message of a request that ran tasks, from a real session's rows: per task, the worker's own summary
 * with the verdict, files changed, verification and cost under it; a task that failed before any worker
 * reported says why instead.
 */
import { afterEach, describe, expect, it } from "vitest";
import { task_summary } from "../../src/actors/runtime/final-summary.js";
import { new_id } from "../../src/contracts/ids.js";
import { air_error, clock, ingest_steps, minimal_task_spec, step, worker_result } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

function session_with_task(title: string) {
  temp = open_temp_session();
  const { session } = temp;
  const task = minimal_task_spec({ title });
  const agent_id = new_id("agent");
  const run = (steps: Parameters<typeof ingest_steps>[1]) => ingest_steps(session.ingestor, steps, session.origin, clock());
  run([
    step("task.created", { task, priority: 0 }),
    step("agent.started", { agent_id, agent_type: "executor", status: "running", task_id: task.id }),
    step("task.started", { task_id: task.id, attempt_id: new_id("attempt"), agent_id }),
  ]);
  return { session, task_id: task.id, agent_id, run };
}

describe("the final summary of a task", () => {
  it("is the worker's own summary with the verdict, the files changed, each verification verdict and the cost under it", () => {
    const { session, task_id, agent_id, run } = session_with_task("Fix the tokenizer");
    run([
      step("task.failed", {
        task_id,
        error: air_error(),
        worker_result: worker_result(task_id, agent_id, {
          status: "failed",
          summary: "I fixed the off-by-one.",
          changed_files: ["src/tokenizer.ts", "src/parser.ts"],
          verification: [
            { command: "npm run build", exit_code: 0, passed: true },
            { command: "npm test", exit_code: 1, passed: false },
          ],
        }),
      }),
    ]);
    expect(task_summary(session, task_id)).toBe(
      [
        "I fixed the off-by-one.",
        "",
        '- Task "Fix the tokenizer" is failed.',
        "- Files changed: `src/tokenizer.ts`, `src/parser.ts`",
        "- Verification: 1 of 2 passed — `npm run build` passed, `npm test` failed (exit 1)",
        "- Cost: $0.0000 (0 model calls, 0 tokens)",
      ].join("\n"),
    );
  });

  it("says why a task ended when no worker reported on it", () => {
    const { session, task_id, run } = session_with_task("Fix the lexer");
    run([step("task.cancelled", { task_id, reason: "the user changed their mind" })]);
    const summary = task_summary(session, task_id);
    expect(summary.split("\n\n")[0]).toBe("the user changed their mind");
    expect(summary).toContain('- Task "Fix the lexer" is cancelled.');
    expect(summary).not.toContain("Files changed");
  });
});

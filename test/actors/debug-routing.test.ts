/**
 * Routing by failure signature through the real Scheduler and its retry step: the verification's own error is
 * the task's, so attempts failing on one compile error share its signature; retry, then debug, then escalate.
 */
import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { attempt_history, current_retry } from "../../src/actors/runtime/attempt-history.js";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { read_task } from "../../src/actors/runtime/task-graph.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { TaskId } from "../../src/contracts/ids.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { task_created_event, worker_result } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;

/** Verified by cpp.build, with no fallback: a failure that is not fixed is never skipped. */
const VERIFIED = { tools: [{ tool_name: "cpp.build", input: {} }], required: true, fallback_allowed: false };
afterEach(() => temp?.cleanup());

/** A fresh error each attempt (its own id and message detail) with the one signature cpp.build gives the cause. */
function compile_error(attempt: number) {
  return make_air_error({
    kind: "build_error",
    message: `the build of build/air failed (attempt ${attempt})`,
    retryability: "retryable_after_change",
    semantic_signature: "sig/v1:clock-minutes-per-hr",
  });
}

function failed_build(task_id: string, agent_id: string, attempt: number): WorkerRunOutcome {
  const result = worker_result(task_id, agent_id, {
    status: "failed",
    summary: `attempt ${attempt} changed nothing that builds`,
    verification: [{ command: "cpp.build", exit_code: 1, passed: false, error: compile_error(attempt) }],
  });
  return { status: "completed", exit_code: 0, result: v.parse(WorkerResult, result) };
}

describe("routing a failure by its signature, end to end", () => {
  it("retries with the failure, then sends it to the Debugger, then escalates it to the user with its signature", async () => {
    temp = open_temp_session();
    const opened = temp;
    const constraints = {
      max_turns: 5,
      soft_timeout_ms: 1_000,
      hard_timeout_ms: 2_000,
      retry_budget: DEFAULT_TASK_DEFAULTS.retry_budget,
      model_policy: "agent_select" as const,
    };
    const event = task_created_event(opened.session.origin, { constraints, verification: VERIFIED });
    opened.session.ingestor.ingest(event);
    const task_id = v.parse(TaskId, event.payload.task.id);
    const changes: (string | undefined)[] = [];
    let attempt = 0;
    const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => {
      changes.push(current_retry(opened.session, input.task_id)?.change);
      attempt += 1;
      return failed_build(input.task_id, input.agent_id, attempt);
    });
    const actor = createActor(provide_scheduler(opened.session, worker, { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL }), {
      input: { autostart: true },
    }).start();
    await toPromise(actor);

    expect(changes).toEqual([undefined, "failure_in_context", "debug"]);
    const task = read_task(opened.session.connection, task_id);
    expect(task.status).toBe("failed");
    expect(attempt_history(opened.session, task_id).attempts.at(-1)?.error).toMatchObject({
      kind: "build_error",
      semantic_signature: "sig/v1:clock-minutes-per-hr",
    });
    const reasons = opened.session.store
      .query({ task_id, types: ["task.retried"] })
      .map(({ event }) => (event.type === "task.retried" ? event.payload.reason : ""));
    expect(reasons).toHaveLength(2);
    expect(reasons[1]).toContain("repeated_to_debugger");
  });

  it("makes the failing check's error the task's, with the check that failed", async () => {
    temp = open_temp_session();
    const opened = temp;
    const event = task_created_event(opened.session.origin, {
      constraints: { max_turns: 5, soft_timeout_ms: 1_000, hard_timeout_ms: 2_000, retry_budget: 0, model_policy: "agent_select" },
      verification: VERIFIED,
    });
    opened.session.ingestor.ingest(event);
    const task_id = v.parse(TaskId, event.payload.task.id);
    const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => failed_build(input.task_id, input.agent_id, 1));
    await toPromise(
      createActor(provide_scheduler(opened.session, worker, { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL }), {
        input: { autostart: true },
      }).start(),
    );
    const error = attempt_history(opened.session, task_id).attempts.at(-1)?.error;
    expect(read_task(opened.session.connection, task_id).status).toBe("failed");
    expect(error).toMatchObject({ kind: "build_error", semantic_signature: "sig/v1:clock-minutes-per-hr", metadata: { verification_command: "cpp.build" } });
  });
});

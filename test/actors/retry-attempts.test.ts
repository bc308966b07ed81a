import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { attempt_history, current_retry, type CurrentRetry } from "../../src/actors/runtime/attempt-history.js";
import { apply_retry, RETRY_HEADING, retry_instructions } from "../../src/actors/runtime/retry-brief.js";
import { retry_step } from "../../src/actors/runtime/retry-step.js";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { read_task_spec } from "../../src/actors/runtime/task-graph.js";
import { read_wave_input } from "../../src/actors/runtime/wave-rows.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, TaskId } from "../../src/contracts/ids.js";
import type { AgentBrief } from "../../src/contracts/ipc.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { task_created_event, worker_result } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;
afterEach(() => temp?.cleanup());

const CONSTRAINTS = { max_turns: 5, soft_timeout_ms: 1_000, hard_timeout_ms: 2_000, retry_budget: 2, model_policy: "agent_select" as const };

function open_with_task(): { temp: TempSession; task_id: TaskId } {
  const opened = open_temp_session();
  temp = opened;
  const event = task_created_event(opened.session.origin, { constraints: CONSTRAINTS });
  opened.session.ingestor.ingest(event);
  return { temp: opened, task_id: v.parse(TaskId, event.payload.task.id) };
}

function ingest(type: Parameters<typeof make_event>[0], payload: Parameters<typeof make_event>[1]) {
  temp!.session.ingestor.ingest(make_event(type, payload, temp!.session.origin));
}

const CONFLICT = make_air_error({
  kind: "merge_error",
  message: "the task's work conflicts with the checkout in src/net/socket.c",
  retryability: "retryable_after_change",
  metadata: {
    conflicts: [
      {
        path: "src/net/socket.c",
        messages: ["CONFLICT (content): Merge conflict in src/net/socket.c"],
        hunks: ["<<<<<<< ours\nint timeout = 30;\n=======\nint timeout = 60;\n>>>>>>> theirs"],
      },
    ],
  },
});

const BRIEF: AgentBrief = { project_root: "/project", model_id: "claude-test", max_turns: 5, tools: [] };

describe("retry_step and attempt_history", () => {
  it("names the change of each retry, and the next attempt reads the failure before it", async () => {
    const { temp: opened, task_id } = open_with_task();
    const seen: (CurrentRetry | undefined)[] = [];
    const outcomes: ((agent_id: string) => WorkerRunOutcome)[] = [
      (agent_id) => ({
        status: "completed",
        exit_code: 0,
        result: v.parse(WorkerResult, worker_result(task_id, agent_id, { status: "failed", summary: "the parser tests still fail" })),
      }),
      (agent_id) => ({ status: "completed", exit_code: 0, result: v.parse(WorkerResult, worker_result(task_id, agent_id)) }),
    ];
    const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => {
      seen.push(current_retry(opened.session, input.task_id));
      return outcomes.shift()!(input.agent_id);
    });
    const actor = createActor(provide_scheduler(opened.session, worker, { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL }), {
      input: { autostart: true },
    }).start();
    expect((await toPromise(actor)).status).toBe("completed");

    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toMatchObject({ change: "failure_in_context", failure: { kind: "agent_error", message: "the parser tests still fail" } });
    expect(attempt_history(opened.session, task_id).attempts).toMatchObject([{ error: { kind: "agent_error" } }, { change: "failure_in_context" }]);
  });

  it("puts a task whose merge conflicted back to run alone, and tells its worker where it conflicted", () => {
    const { temp: opened, task_id } = open_with_task();
    ingest("task.started", { task_id, attempt_id: new_id("attempt") });
    ingest("task.failed", { task_id, error: CONFLICT });

    expect(retry_step(opened.session, task_id)).toMatchObject({ action: "retry_serial", change: "serialize", rule: "merge_conflict" });
    expect(attempt_history(opened.session, task_id).next_change).toBe("serialize");
    expect(read_wave_input(opened.session, 4).tasks.find((task) => task.id === task_id)).toMatchObject({ status: "pending", alone: true });

    ingest("task.started", { task_id, attempt_id: new_id("attempt") });
    expect(read_wave_input(opened.session, 4).tasks.find((task) => task.id === task_id)).toMatchObject({ status: "running", alone: true });
    const retry = current_retry(opened.session, task_id);
    expect(retry).toMatchObject({ change: "serialize", failure: { kind: "merge_error" } });
    const text = retry_instructions(retry!) ?? "";
    expect(text.startsWith(RETRY_HEADING)).toBe(true);
    expect(text).toContain("CONFLICT (content): Merge conflict in src/net/socket.c");
    expect(text).toContain("int timeout = 30;\n=======\nint timeout = 60;");
  });

  it("does not run alone a task retried after a failure that is not a merge conflict", () => {
    const { temp: opened, task_id } = open_with_task();
    ingest("task.started", { task_id, attempt_id: new_id("attempt") });
    ingest("task.failed", { task_id, error: make_air_error({ kind: "test_error", message: "ctest failed", retryability: "retryable_after_change" }) });
    expect(retry_step(opened.session, task_id)).toMatchObject({ action: "retry", change: "failure_in_context" });
    expect(read_wave_input(opened.session, 4).tasks.find((task) => task.id === task_id)?.alone).toBeUndefined();
  });
});

describe("apply_retry", () => {
  it("gives a retry after a timeout twice the timeouts and nothing else", () => {
    const { temp: opened, task_id } = open_with_task();
    const task = read_task_spec(opened.session.connection, task_id);
    const timeout = make_air_error({ kind: "agent_error", message: "hard timeout", retryability: "retryable", metadata: { timeout: true } });
    const applied = apply_retry(task, BRIEF, { change: "longer_timeout", failure: timeout });
    expect(applied.task.constraints).toMatchObject({ soft_timeout_ms: 2_000, hard_timeout_ms: 4_000 });
    expect(applied.brief).toEqual(BRIEF);
  });

  it("hands a retry with the failure in context its instructions, and a first attempt nothing", () => {
    const { temp: opened, task_id } = open_with_task();
    const task = read_task_spec(opened.session.connection, task_id);
    const failure = make_air_error({
      kind: "test_error",
      message: "`ctest` exited 8 on the merged checkout",
      retryability: "retryable_after_change",
      metadata: { detail: "1/3 Test #2: net_test ***Failed" },
    });
    const applied = apply_retry(task, BRIEF, { change: "failure_in_context", failure });
    expect(applied.task).toEqual(task);
    expect(applied.brief.instructions).toContain("It ended with a test_error: `ctest` exited 8 on the merged checkout");
    expect(applied.brief.instructions).toContain("1/3 Test #2: net_test ***Failed");
    expect(apply_retry(task, BRIEF, undefined)).toEqual({ task, brief: BRIEF });
  });
});

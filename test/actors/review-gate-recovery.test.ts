/**
 * A run the dead runtime finished but did not settle goes through the review gate on resume, as it would have
 * without the crash: a completion that changed nothing is not settled completed from its recorded result.
 */
import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, TaskId } from "../../src/contracts/ids.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { task_created_event, worker_result } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;
afterEach(() => temp?.cleanup());

describe("ReviewGate after a crash", () => {
  it("fails a collected completion with an empty diff instead of settling it completed, and retries it", async () => {
    temp = open_temp_session();
    const { session } = temp;
    const created = task_created_event(session.origin, { scope: { write_area: ["src/parser"] } });
    session.ingestor.ingest(created);
    const task_id = v.parse(TaskId, created.payload.task.id);
    const agent_id = new_id("agent");
    const ingest = (type: Parameters<typeof make_event>[0], payload: Parameters<typeof make_event>[1]) =>
      session.ingestor.ingest(make_event(type, payload, session.origin));
    ingest("task.started", { task_id, attempt_id: new_id("attempt"), agent_id });
    ingest("agent.started", { agent_id, agent_type: "executor", status: "running", task_id, pid: 4242, model_id: "model-small" });
    const claimed = v.parse(WorkerResult, worker_result(task_id, agent_id, { changed_files: [] }));
    ingest("agent.completed", { agent_id, exit_code: 0, worker_result: claimed });

    const runs: string[] = [];
    const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => {
      runs.push(input.task_id);
      return { status: "completed", exit_code: 0, result: v.parse(WorkerResult, worker_result(input.task_id, input.agent_id)) };
    });
    const scheduler = provide_scheduler(session, worker, { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL });
    const result = await toPromise(createActor(scheduler, { input: { autostart: true, recovering: true } }).start());

    expect(result.status).toBe("completed");
    const failed = session.store.query({ types: ["task.failed"] }).flatMap(({ event }) => (event.type === "task.failed" ? [event.payload.error] : []));
    expect(failed).toMatchObject([{ kind: "agent_error", metadata: { false_success: true } }]);
    expect(runs).toEqual([task_id]);
  });
});

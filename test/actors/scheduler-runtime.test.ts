import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { recover_session } from "../../src/actors/runtime/recovery.js";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { read_task, read_task_graph } from "../../src/actors/runtime/task-graph.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, type TaskId } from "../../src/contracts/ids.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { task_created_event, worker_result } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;
afterEach(() => temp?.cleanup());

function create_task(overrides: Parameters<typeof task_created_event>[1] = {}) {
  const event = task_created_event(temp!.session.origin, overrides);
  temp!.session.ingestor.ingest(event);
  return event.payload.task.id as TaskId;
}

/** Runs the scheduler with a worker that answers each run with the next outcome of `outcomes`. */
async function run_scheduler(outcomes: ((task_id: string, agent_id: string) => WorkerRunOutcome)[]) {
  const runs: string[] = [];
  const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => {
    runs.push(input.task_id);
    return outcomes.shift()!(input.task_id, input.agent_id);
  });
  const options = { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL };
  const actor = createActor(provide_scheduler(temp!.session, worker, options), { input: {} }).start();
  actor.send({ type: "scheduler.run" });
  return { result: await toPromise(actor), runs };
}

const completes = (task_id: string, agent_id: string): WorkerRunOutcome => ({
  status: "completed",
  exit_code: 0,
  result: v.parse(WorkerResult, worker_result(task_id, agent_id)),
});
const fails = (task_id: string, agent_id: string): WorkerRunOutcome => ({
  status: "completed",
  exit_code: 0,
  result: v.parse(WorkerResult, worker_result(task_id, agent_id, { status: "failed", summary: "the tests still fail" })),
});

describe("read_task_graph", () => {
  it("offers pending tasks whose hard dependencies completed, highest priority first", () => {
    temp = open_temp_session();
    const first = create_task();
    const second = create_task({ dependencies: { hard: [first], soft: [] } });
    expect(read_task_graph(temp.session.connection)).toMatchObject({ runnable: [first], counts: { pending: 2 } });
    expect(second).toBeDefined();
  });
});

describe("the Scheduler on a real session", () => {
  it("runs dependent tasks in order and completes", async () => {
    temp = open_temp_session();
    const first = create_task();
    const second = create_task({ dependencies: { hard: [first], soft: [] } });
    const { result, runs } = await run_scheduler([completes, completes]);
    expect(result.status).toBe("completed");
    expect(runs).toEqual([first, second]);
    expect(read_task(temp.session.connection, second)).toMatchObject({ status: "completed", attempt_count: 1 });
  });

  it("retries a failed task within its budget, then completes", async () => {
    temp = open_temp_session();
    const task_id = create_task({ constraints: { max_turns: 5, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 1, model_policy: "agent_select" } });
    const { result, runs } = await run_scheduler([fails, completes]);
    expect(result.status).toBe("completed");
    expect(runs).toEqual([task_id, task_id]);
    expect(read_task(temp.session.connection, task_id)).toMatchObject({ status: "completed", attempt_count: 2 });
  });

  it("stops retrying when the budget is spent and reports the graph as blocked", async () => {
    temp = open_temp_session();
    const task_id = create_task({ constraints: { max_turns: 5, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 0, model_policy: "agent_select" } });
    const { result } = await run_scheduler([fails]);
    expect(result).toMatchObject({ status: "blocked", counts: { failed: 1 } });
    expect(read_task(temp.session.connection, task_id).status).toBe("failed");
  });

  it("records a worker failure as task.failed with the AirError", async () => {
    temp = open_temp_session();
    const task_id = create_task({ constraints: { max_turns: 5, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 0, model_policy: "agent_select" } });
    const lost = (): WorkerRunOutcome => ({
      status: "lost",
      error: {
        error_id: new_id("error"),
        kind: "agent_error",
        severity: "error",
        message: "worker lost",
        retryability: "retryable",
        semantic_signature: "agent_error:x",
      },
    });
    await run_scheduler([lost]);
    const task = read_task(temp.session.connection, task_id);
    expect(task.status).toBe("failed");
    expect(JSON.parse(task.last_error_json!)).toMatchObject({ message: "worker lost" });
  });

  it("settles a cancelled run that still reported from its result, and one that did not as failed", async () => {
    temp = open_temp_session();
    const constraints = { max_turns: 5, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 0, model_policy: "agent_select" as const };
    const reported = create_task({ constraints });
    const silent = create_task({ constraints });
    const error = make_air_error({ kind: "agent_error", severity: "info", message: "worker cancelled: stop" });
    const cancelled_with_result = (task_id: string, agent_id: string): WorkerRunOutcome => ({
      status: "cancelled",
      error,
      result: v.parse(WorkerResult, worker_result(task_id, agent_id, { status: "cancelled", summary: "Cancelled: stop" })),
    });
    const cancelled_without = (): WorkerRunOutcome => ({ status: "cancelled", error });
    await run_scheduler([cancelled_with_result, cancelled_without]);
    expect(read_task(temp.session.connection, reported).status).toBe("cancelled");
    const task = read_task(temp.session.connection, silent);
    expect(task.status).toBe("failed");
    expect(JSON.parse(task.last_error_json!)).toMatchObject({ message: "worker cancelled: stop" });
  });
});

describe("recover_session", () => {
  it("marks live agents lost, interrupts running tasks and puts them back to pending", () => {
    temp = open_temp_session();
    const { session } = temp;
    const task_id = create_task();
    const agent_id = new_id("agent");
    session.ingestor.ingest(make_event("agent.started", { agent_id, agent_type: "executor", status: "running", task_id }, session.origin));
    session.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt"), agent_id }, session.origin));

    const tool_run_id = new_id("tool_run");
    const command_run_id = new_id("command_run");
    session.ingestor.ingest(
      make_event("tool.started", { tool_run_id, tool_name: "shell.run", tool_version: 1, input: { command: "sleep 60" }, task_id, agent_id }, session.origin),
    );
    session.ingestor.ingest(make_event("command.started", { command_run_id, command: "sleep 60", cwd: ".", tool_run_id, task_id, agent_id }, session.origin));

    const report = recover_session(session);
    expect(report).toEqual({ lost_agents: [agent_id], requeued_tasks: [task_id], closed_runs: 2 });
    const open = session.connection.client
      .prepare("SELECT (SELECT status FROM tool_runs) AS tool, (SELECT cancelled_at IS NOT NULL FROM command_runs) AS command_cancelled")
      .get() as { tool: string; command_cancelled: number };
    expect(open).toMatchObject({ tool: "cancelled", command_cancelled: 1 });
    expect(read_task(session.connection, task_id).status).toBe("pending");
    const types = session.store
      .query({ task_id, types: ["task.created", "task.started", "task.interrupted", "task.resumed"] })
      .map((stored) => stored.event.type);
    expect(types).toEqual(["task.created", "task.started", "task.interrupted", "task.resumed"]);
    expect(session.store.query({ agent_id, types: ["agent.lost"] })).toHaveLength(1);
    expect(recover_session(session)).toEqual({ lost_agents: [], requeued_tasks: [], closed_runs: 0 });
  });
});

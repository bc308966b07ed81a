/**
 * The write path's lifecycle guard: an event the entity's machine does not accept in the row's current
 * status is refused as an AirFailure, and neither its events row nor any projection is written.
 */
import { describe, expect, it } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import { new_id } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { air_error, clock, envelope, ingest_steps, step, task_spec, worker_result, type Step } from "../fixtures/events.js";
import { dump_tables, event_count, find_row, find_rows, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
let tick: () => string;
temp_session_per_test((temp) => {
  session = temp.session;
  tick = clock();
});

function given(...steps: Step[]): void {
  ingest_steps(session.ingestor, steps, session.origin, tick);
}

function ingest(s: Step) {
  return session.ingestor.ingest(envelope(s.type, s.payload as never, session.origin, { timestamp: tick() }));
}

/** Ingests `s`, expects it to be refused, and expects the whole database to be exactly as before. */
function expect_refused(s: Step, message: RegExp): AirFailure {
  const before = dump_tables(session.connection);
  const seen: string[] = [];
  const unsubscribe = session.bus.subscribe({}, (event) => seen.push(event.type));
  let thrown: unknown;
  try {
    ingest(s);
  } catch (error) {
    thrown = error;
  } finally {
    unsubscribe();
  }
  expect(thrown, `${s.type} should have been refused`).toBeDefined();
  expect(is_air_failure(thrown), String(thrown)).toBe(true);
  const failure = thrown as AirFailure;
  expect(failure.error.kind).toBe("system_error");
  expect(failure.error.message).toMatch(message);
  expect(failure.error.user_action).toMatch(/nothing was written/i);
  expect(dump_tables(session.connection)).toEqual(before);
  session.bus.drain();
  expect(seen).toEqual([]);
  return failure;
}

function created_task() {
  const task = task_spec();
  return { task_id: task.id, step: step("task.created", { task, priority: 0 }) };
}

describe("EventStore lifecycle guard: illegal transitions", () => {
  it("refuses task.completed for a pending task", () => {
    const { task_id, step: created } = created_task();
    given(created);
    const agent_id = new_id("agent");
    const failure = expect_refused(
      step("task.completed", { task_id, worker_result: worker_result(task_id, agent_id) }),
      /illegal lifecycle transition: task\.completed for task tsk_\w+ in status pending/,
    );
    expect(failure.error.metadata).toMatchObject({ entity_id: task_id, status: "pending", type: "task.completed" });
    expect(find_row(session.connection, "tasks", task_id)?.status).toBe("pending");
  });

  it("refuses agent.completed after agent.lost (lost is final)", () => {
    const agent_id = new_id("agent");
    given(step("agent.started", { agent_id, agent_type: "executor", status: "running" }), step("agent.lost", { agent_id, reason: "no heartbeat for 30s" }));
    expect_refused(step("agent.completed", { agent_id, exit_code: 0 }), /agent\.completed for agent agt_\w+ in status lost/);
    expect(find_row(session.connection, "agents", agent_id)?.status).toBe("lost");
  });

  it("refuses workspace.cleaned while the workspace is active", () => {
    const workspace_id = new_id("workspace");
    given(step("workspace.created", { workspace_id, strategy: "worktree", path: "/tmp/w" }));
    expect_refused(step("workspace.cleaned", { workspace_id }), /workspace\.cleaned for workspace wsp_\w+ in status active/);
    expect(find_row(session.connection, "workspaces", workspace_id)).toMatchObject({ status: "active", cleaned_at: null });
  });

  it("refuses capability.activated while the capability is only discovered", () => {
    const capability_id = new_id("capability");
    given(step("capability.discovered", { capability_id, name: "git-tools", version: "1.0.0", trust_level: "untrusted" }));
    expect_refused(step("capability.activated", { capability_id }), /capability\.activated for capability cap_\w+ in status discovered/);
  });

  it("refuses a second task.created with the same task id", () => {
    const { task_id, step: created } = created_task();
    given(created);
    expect_refused(created, /task\.created: task tsk_\w+ already exists/);
    expect(find_rows(session.connection, "tasks", task_id, "id")).toHaveLength(1);
  });

  it("refuses task.started for a task that was never created", () => {
    const task_id = new_id("task");
    expect_refused(step("task.started", { task_id, attempt_id: new_id("attempt") }), /task\.started for unknown task tsk_\w+/);
  });

  it("refuses a second tool.completed for one tool run", () => {
    const tool_run_id = new_id("tool_run");
    given(
      step("tool.started", { tool_run_id, tool_name: "bash", tool_version: 1, input: {} }),
      step("tool.completed", { tool_run_id, output: "first", artifact_ids: [], evidence_ids: [], duration_ms: 1 }),
    );
    expect_refused(
      step("tool.completed", { tool_run_id, output: "second", artifact_ids: [], evidence_ids: [], duration_ms: 2 }),
      /tool\.completed: tool run tlr_\w+ is not running/,
    );
    expect(find_row(session.connection, "tool_runs", tool_run_id)).toMatchObject({ status: "ok", output_json: "first" });
  });

  it("refuses command.completed for a command run that was never started", () => {
    expect_refused(
      step("command.completed", { command_run_id: new_id("command_run"), exit_code: 0, duration_ms: 1, diagnostic_ids: [] }),
      /command\.completed: command run cmr_\w+ is unknown or already ended/,
    );
  });

  it("refuses context.compaction.completed whose summary does not exist", () => {
    const task_id = new_id("task");
    given(
      step("context.compaction.requested", { accepted: true, task_id, reason: "full", token_estimate: 10, threshold_tokens: 5 }),
      step("context.compaction.started", { task_id, attempt_id: new_id("attempt") }),
    );
    expect_refused(
      step("context.compaction.completed", { task_id, summary_id: new_id("summary") }),
      /context\.compaction\.completed: summary sum_\w+ does not exist/,
    );
    expect(find_row(session.connection, "tasks", task_id)?.status).toBe("running");
  });

  it("refuses a repeated agent.started that announces starting again", () => {
    const agent_id = new_id("agent");
    given(step("agent.started", { agent_id, agent_type: "executor", status: "starting" }));
    expect_refused(step("agent.started", { agent_id, agent_type: "executor", status: "starting" }), /agent\.started for agent agt_\w+ in status starting/);
  });
});

describe("EventStore lifecycle guard: legal paths", () => {
  it("retries a failed task: failed → task.retried → pending → task.started opens attempt 2", () => {
    const { task_id, step: created } = created_task();
    const first = new_id("attempt");
    const error = air_error();
    given(created, step("task.started", { task_id, attempt_id: first }), step("task.failed", { task_id, error }));
    expect(find_row(session.connection, "tasks", task_id)?.status).toBe("failed");

    ingest(step("task.retried", { task_id, reason: "flaky test" }));
    expect(find_row(session.connection, "tasks", task_id)).toMatchObject({ status: "pending", attempt_count: 1, completed_at: null });

    const second = new_id("attempt");
    ingest(step("task.started", { task_id, attempt_id: second }));
    expect(find_row(session.connection, "tasks", task_id)).toMatchObject({ status: "running", attempt_count: 2, status_reason: null });
    const attempts = find_rows(session.connection, "task_attempts", task_id, "task_id");
    expect(attempts.map((a) => [a.id, a.attempt_index, a.status])).toEqual([
      [first, 1, "failed"],
      [second, 2, "running"],
    ]);
    expect(attempts[0]).toMatchObject({ failure_kind: error.kind, failure_signature: error.semantic_signature });
  });

  it("moves an agent from starting to running through a re-emitted agent.started", () => {
    const agent_id = new_id("agent");
    given(step("agent.started", { agent_id, agent_type: "executor", status: "starting" }));
    const starting = find_row(session.connection, "agents", agent_id);
    expect(starting?.status).toBe("starting");

    const before = event_count(session.connection);
    ingest(step("agent.started", { agent_id, agent_type: "executor", status: "running", pid: 777 }));
    expect(event_count(session.connection)).toBe(before + 1);
    expect(find_rows(session.connection, "agents", agent_id, "id")).toEqual([{ ...starting, status: "running", pid: 777 }]);

    ingest(step("agent.completed", { agent_id, exit_code: 0 }));
    expect(find_row(session.connection, "agents", agent_id)?.status).toBe("completed");
  });

  it("creates an agent directly as running when the first agent.started carries running", () => {
    const agent_id = new_id("agent");
    ingest(step("agent.started", { agent_id, agent_type: "reviewer", status: "running" }));
    expect(find_row(session.connection, "agents", agent_id)?.status).toBe("running");
  });

  it("cancels a pending task that never started, without any attempt", () => {
    const { task_id, step: created } = created_task();
    given(created);
    ingest(step("task.cancelled", { task_id, reason: "not needed" }));
    expect(find_row(session.connection, "tasks", task_id)?.status).toBe("cancelled");
    expect(find_rows(session.connection, "task_attempts", task_id, "task_id")).toEqual([]);
  });

  it("re-discovers a failed capability", () => {
    const capability_id = new_id("capability");
    given(
      step("capability.discovered", { capability_id, name: "git-tools", version: "1.0.0", trust_level: "untrusted" }),
      step("capability.failed", { capability_id, error: air_error({ kind: "dependency_error", message: "git missing" }) }),
    );
    ingest(step("capability.discovered", { capability_id, name: "git-tools", version: "1.0.1", trust_level: "untrusted" }));
    expect(find_row(session.connection, "capabilities", capability_id)).toMatchObject({ status: "discovered", version: "1.0.1", error_json: null });
  });
});

/**
 * The debug outbox (seeds 000 §18.4): a debug attempt whose work landed writes its record to debug-records.db,
 * then one `debug.record.created`; SIGKILLed between the two, `air resume`'s recovery reconciles — no lost
 * record, no duplicate.
 */
import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { CRASH_AFTER_DEBUG_RECORD_ENV, debug_record_id_of, record_landed_debug_fix } from "../../src/actors/runtime/debug-outbox.js";
import { attempt_brief, DEBUG_HEADING, KNOWN_FIX_HEADING } from "../../src/actors/runtime/debug-brief.js";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { read_task_spec } from "../../src/actors/runtime/task-graph.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, TaskId } from "../../src/contracts/ids.js";
import type { AgentBrief } from "../../src/contracts/ipc.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import { DebugKnowledgeStore } from "../../src/debug/knowledge-store.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import type { Project } from "../../src/project/project-store.js";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { task_created_event } from "../fixtures/events.js";
import { Child } from "../fixtures/processes.js";
import { open_temp_session, temp_project, type TempProject, type TempSession } from "../fixtures/session.js";

let temp: TempSession | undefined;
const stores: DebugKnowledgeStore[] = [];
const sessions: Session[] = [];
const projects: TempProject[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const session of sessions.splice(0)) session.close();
  for (const project of projects.splice(0)) project.cleanup();
  temp?.cleanup();
  temp = undefined;
});

const CONSTRAINTS = { max_turns: 5, soft_timeout_ms: 1_000, hard_timeout_ms: 2_000, retry_budget: 2, model_policy: "agent_select" as const };

const COMPILE_ERROR = make_air_error({
  kind: "build_error",
  message: "the build of build/air failed (exit code 1, 1 root cause)\nerror src/clock.cpp:4:18: 'minutes_per_hr' was not declared",
  retryability: "retryable_after_change",
  semantic_signature: "sig/v1:clock-minutes-per-hr",
  metadata: { family_signature: "fam/v1:undeclared-identifier", verification_command: "cpp.build", detail: "ninja: build stopped" },
});

function ingest(session: Session, type: Parameters<typeof make_event>[0], payload: Parameters<typeof make_event>[1]) {
  session.ingestor.ingest(make_event(type, payload, session.origin));
}

function debugger_result(task_id: TaskId, agent_id: string) {
  return v.parse(WorkerResult, {
    task_id,
    agent_id,
    agent_type: "debugger",
    status: "completed",
    summary: "Fixed the misspelled constant; the build and the tests pass.",
    changed_files: ["src/clock.cpp"],
    artifacts: [],
    verification: [{ command: "cpp.build", exit_code: 0, passed: true }],
    risks: [],
    follow_up_tasks: [],
    evidence_refs: [],
    result: {
      root_cause: "minutes_per_hr is not declared; clock.h declares minutes_per_hour",
      failure_signature: COMPILE_ERROR.semantic_signature,
      fix_applied: true,
    },
  });
}

/** A task that failed twice on the compile error and whose debug attempt completed in the main checkout. */
function landed_debug_task(session: Session): { task_id: TaskId; debug_attempt: string } {
  const created = task_created_event(session.origin, { constraints: CONSTRAINTS });
  session.ingestor.ingest(created);
  const task_id = v.parse(TaskId, created.payload.task.id);
  for (const change of ["failure_in_context", "debug"] as const) {
    ingest(session, "task.started", { task_id, attempt_id: new_id("attempt") });
    ingest(session, "task.failed", { task_id, error: COMPILE_ERROR });
    ingest(session, "task.retried", { task_id, reason: "routed by signature", change });
  }
  const debug_attempt = new_id("attempt");
  ingest(session, "task.started", { task_id, attempt_id: debug_attempt });
  ingest(session, "task.completed", { task_id, worker_result: debugger_result(task_id, new_id("agent")) });
  return { task_id, debug_attempt };
}

function debug_events(session: Session) {
  return session.store.query({ types: ["debug.record.created"] });
}

/** `air resume`'s Scheduler, recovering: its recover actor reconciles the outbox; no task is left to run. */
async function resume(session: Session, store: DebugKnowledgeStore): Promise<void> {
  const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async () => {
    throw new Error("no task should run");
  });
  const scheduler = provide_scheduler(session, worker, { registry: create_tool_registry(), max_parallel: DEFAULT_MAX_PARALLEL, debug_records: store });
  await toPromise(createActor(scheduler, { input: { autostart: true, recovering: true } }).start());
}

function reopen(project: Project, session_id: Session["id"]): { session: Session; store: DebugKnowledgeStore } {
  const session = open_session(project, { session_id });
  const store = DebugKnowledgeStore.open(project.layout.debug_records_db);
  sessions.push(session);
  stores.push(store);
  return { session, store };
}

describe("the debug outbox", () => {
  it("writes the record first, then one debug.record.created; a repeat writes nothing more", () => {
    temp = open_temp_session();
    const store = DebugKnowledgeStore.open(temp.project.layout.debug_records_db);
    stores.push(store);
    const { task_id, debug_attempt } = landed_debug_task(temp.session);
    const record = record_landed_debug_fix(temp.session, store, task_id);
    expect(record).toMatchObject({
      id: debug_record_id_of(debug_attempt),
      failure_signature: COMPILE_ERROR.semantic_signature,
      family_signature: "fam/v1:undeclared-identifier",
      changed_files: ["src/clock.cpp"],
      verified: true,
      source_task_id: task_id,
      source_attempt_id: debug_attempt,
    });
    record_landed_debug_fix(temp.session, store, task_id);
    expect(store.lookup_by_task(task_id)).toHaveLength(1);
    expect(debug_events(temp.session).map(({ event }) => event.payload)).toEqual([
      { debug_record_id: record?.id, failure_signature: COMPILE_ERROR.semantic_signature, summary: record?.root_cause, task_id },
    ]);
  });

  it("survives a SIGKILL between the store write and the event: resume adds the event, exactly once", async () => {
    const project = temp_project();
    projects.push(project);
    const first = open_session(project.project, { title: "crash" });
    const { task_id } = landed_debug_task(first);
    const session_id = first.id;
    // The crasher takes the session's lock.
    first.close();

    const child = new Child("debug-record-crasher.ts", [project.project.layout.root, session_id, task_id], { [CRASH_AFTER_DEBUG_RECORD_ENV]: "1" });
    const exit = await child.exit;
    expect(exit.signal, child.stderr).toBe("SIGKILL");
    expect(child.lines).toEqual(["ready"]);

    const { session, store } = reopen(project.project, session_id);
    expect(store.lookup_by_task(task_id)).toHaveLength(1);
    expect(debug_events(session)).toHaveLength(0);
    await resume(session, store);
    await resume(session, store);
    expect(store.lookup_by_task(task_id)).toHaveLength(1);
    expect(debug_events(session).map(({ event }) => (event.type === "debug.record.created" ? event.payload.debug_record_id : event.type))).toEqual([
      store.lookup_by_task(task_id)[0]?.id,
    ]);
  });

  it("gives a landed debug attempt that has no record both its record and its event at resume", async () => {
    temp = open_temp_session();
    const { task_id } = landed_debug_task(temp.session);
    const store = DebugKnowledgeStore.open(temp.project.layout.debug_records_db);
    stores.push(store);
    expect(store.lookup_by_task(task_id)).toEqual([]);
    await resume(temp.session, store);
    expect(store.lookup_by_task(task_id)).toHaveLength(1);
    expect(debug_events(temp.session)).toHaveLength(1);
  });
});

describe("a known fix in the next attempt's brief", () => {
  const BRIEF: AgentBrief = { project_root: "/project", model_id: "claude-test", max_turns: 5, tools: [] };

  it("gives the next failure with the signature the record: in its retry and in its debug attempt, counted as hits", () => {
    temp = open_temp_session();
    const store = DebugKnowledgeStore.open(temp.project.layout.debug_records_db);
    stores.push(store);
    const { task_id } = landed_debug_task(temp.session);
    const record = record_landed_debug_fix(temp.session, store, task_id);
    const spec = read_task_spec(temp.session.connection, task_id);

    const retry = attempt_brief(store, spec, BRIEF, { change: "failure_in_context", failure: COMPILE_ERROR });
    expect(retry.brief.instructions).toContain(KNOWN_FIX_HEADING);
    expect(retry.brief.instructions).toContain(record?.root_cause);
    expect(retry.brief.instructions).not.toContain("Find its cause before you change anything else.");

    const debug = attempt_brief(store, spec, BRIEF, { change: "debug", failure: COMPILE_ERROR });
    expect(debug.brief.instructions?.startsWith(DEBUG_HEADING)).toBe(true);
    for (const evidence of ["sig/v1:clock-minutes-per-hr", "cpp.build", "ninja: build stopped", KNOWN_FIX_HEADING])
      expect(debug.brief.instructions).toContain(evidence);

    // The family signature is the fallback when the exact one has no record.
    const cousin = make_air_error({ ...COMPILE_ERROR, semantic_signature: "sig/v1:another-line" });
    expect(attempt_brief(store, spec, BRIEF, { change: "failure_in_context", failure: cousin }).brief.instructions).toContain("the family signature");
    expect(store.get(record?.id ?? "")?.hit_count).toBe(3);
    // A first attempt has no failure to look up.
    expect(attempt_brief(store, spec, BRIEF, undefined).brief.instructions).toBeUndefined();
  });
});

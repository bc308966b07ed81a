/**
 * ProjectionStore, live: ephemeral events through the real bus, deltas folded per frame (a burst costs a
 * bounded number of updates and loses no text), and rehydration when the bus restarts or a gap shows.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/event-store/event-bus.js";
import { EventStore } from "../../src/event-store/event-store.js";
import { make_event, parse_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { Connection } from "../../src/db/connection.js";
import type { Session } from "../../src/project/session-manager.js";
import { ProjectionStore } from "../../src/projection/store.js";
import { minimal_task_spec, step } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { ingest_all, live } from "./helpers.js";

let temp: TempSession | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

/** A session whose bus delivers deltas at once, so the projection's own folding is what is measured. */
function eager_session(): Session {
  temp = open_temp_session({ bus: new EventBus({ coalesce_window_ms: 0 }) });
  return temp.session;
}

function counting(store: ProjectionStore): { count(): number } {
  let updates = 0;
  store.subscribe(() => {
    updates += 1;
  });
  return { count: () => updates };
}

function start_message(session: Session) {
  const message_id = new_id("message");
  ingest_all(session, [step("assistant.message.started", { message_id, model_id: "model-large" })]);
  return message_id;
}

describe("ProjectionStore live events", () => {
  it("keeps the same HUD object while only a reply's text changes, and a new one when a figure does", () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const message_id = start_message(session);
    const hud = store.snapshot().hud;
    const blockers = store.snapshot().blockers;
    live(session, "assistant.message.delta", { message_id, text: "more " });
    session.bus.drain();
    store.flush();
    expect(store.snapshot().conversation.drafts[0]?.text).toBe("more ");
    expect(store.snapshot().hud).toBe(hud);
    expect(store.snapshot().blockers).toBe(blockers);
    ingest_all(session, [step("assistant.message.created", { message_id, content: [{ type: "text", text: "more " }], model_id: "model-large" })]);
    expect(store.snapshot().hud).not.toBe(hud);
    expect(store.snapshot().hud.streaming).toBe(false);
  });

  it("folds 2,000 deltas into a bounded number of updates and keeps every character, in order", async () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const message_id = start_message(session);
    let deliveries = 0;
    session.bus.subscribe({ types: ["assistant.message.delta"] }, () => {
      deliveries += 1;
    });
    const updates = counting(store);
    const started = performance.now();
    let expected = "";
    for (let index = 0; index < 2000; index += 1) {
      const text = `${index} `;
      expected += text;
      live(session, "assistant.message.delta", { message_id, text });
      if (index % 10 === 9) await sleep(1);
    }
    await sleep(40);
    const elapsed = performance.now() - started;
    // At most one update per 33 ms frame (plus the frame in progress), far fewer than the bus delivered.
    expect(deliveries).toBeGreaterThan(100);
    expect(updates.count()).toBeLessThanOrEqual(Math.ceil(elapsed / 33) + 2);
    session.bus.drain();
    store.flush();
    expect(store.snapshot().conversation.drafts[0]?.text).toBe(expected);
    store.close();
  });

  it("applies held deltas before the durable event that ends their stream, in one update", () => {
    const session = eager_session();
    const store = new ProjectionStore(session, { flush_ms: 60_000 });
    store.attach(session.bus);
    const message_id = start_message(session);
    for (const text of ["The ", "tests ", "pass."]) store.apply(make_event("assistant.message.delta", { message_id, text }, session.origin) as never);
    expect(store.snapshot().conversation.drafts[0]?.text).toBe("");
    const updates = counting(store);
    ingest_all(session, [step("assistant.message.created", { message_id, content: "The tests pass." })]);
    expect(updates.count()).toBe(1);
    expect(store.snapshot().conversation.drafts).toEqual([]);
    expect(store.snapshot().conversation.messages.at(-1)?.text).toBe("The tests pass.");
    store.close();
  });

  it("shows command output tails (capped), tool progress, task progress and heartbeats", () => {
    const session = eager_session();
    const store = new ProjectionStore(session, { tail_chars: 10 });
    store.attach(session.bus);
    const task = minimal_task_spec();
    const agent_id = new_id("agent");
    const tool_run_id = new_id("tool_run");
    const command_run_id = new_id("command_run");
    ingest_all(session, [
      step("task.created", { task, priority: 0 }),
      step("agent.started", { agent_id, agent_type: "executor", status: "running", task_id: task.id }),
      step("task.started", { task_id: task.id, attempt_id: new_id("attempt"), agent_id }),
      step("tool.started", { tool_run_id, tool_name: "shell.run", tool_version: 1, input: { command: "make   test" }, task_id: task.id, agent_id }),
      step("command.started", { command_run_id, command: "make test", cwd: ".", tool_run_id }),
    ]);
    live(session, "command.stdout.delta", { command_run_id, chunk: "building...\n" });
    live(session, "command.stdout.delta", { command_run_id, chunk: "ok 1\n" });
    live(session, "command.stderr.delta", { command_run_id, chunk: "warn\n" });
    live(session, "tool.progress", { tool_run_id, message: "running make" });
    live(session, "task.progress", { task_id: task.id, message: "testing", percent: 50 });
    live(session, "agent.heartbeat", { agent_id });
    live(session, "token.delta", { request_id: "r1", agent_id, text: "thinking" });
    session.bus.drain();
    store.flush();
    const state = store.snapshot();
    expect(state.command_runs[0]).toMatchObject({ status: "running", stdout_tail: "g...\nok 1\n", stderr_tail: "warn\n" });
    expect(state.tool_runs[0]).toMatchObject({ progress: "running make", input_summary: "make test" });
    expect(state.tasks[0]?.progress).toEqual({ message: "testing", percent: 50 });
    expect(state.agents[0]).toMatchObject({ stream_tail: "thinking", last_heartbeat_at: expect.any(String) });
    expect(state.hud).toMatchObject({ running_agents: 1, running_tasks: 1 });
    ingest_all(session, [step("command.completed", { command_run_id, exit_code: 2, duration_ms: 40 })]);
    expect(store.snapshot().command_runs[0]).toMatchObject({ status: "error", exit_code: 2, stdout_tail: "g...\nok 1\n" });
    store.close();
  });
});

describe("ProjectionStore sequence", () => {
  it("follows committed events by the seq the bus hands over with each, without reading the database", () => {
    const session = eager_session();
    // The projection's own connection is closed once it has hydrated: what follows can only come from the bus.
    const reader = Connection.open(session.db_path, { must_exist: true });
    const store = new ProjectionStore({ id: session.id, connection: reader });
    store.attach(session.bus);
    reader.close();
    const task = minimal_task_spec({ title: "seen live" });
    const message_id = new_id("message");
    ingest_all(session, [
      step("task.created", { task, priority: 0 }),
      step("task.started", { task_id: task.id, attempt_id: new_id("attempt") }),
      step("assistant.message.started", { message_id }),
    ]);
    live(session, "assistant.message.delta", { message_id, text: "Work" });
    live(session, "assistant.message.delta", { message_id, text: "ing" });
    ingest_all(session, [step("assistant.message.created", { message_id, content: "Working" })]);
    const state = store.snapshot();
    expect(state.tasks).toEqual([expect.objectContaining({ title: "seen live", status: "running" })]);
    expect(state.conversation.messages.map((m) => m.text)).toEqual(["Working"]);
    expect(state.conversation.drafts).toEqual([]);
    store.detach();
  });

  it("ignores a durable event that comes without a seq: it was never committed", () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const before = store.snapshot();
    store.apply(parse_event(make_event("task.created", { task: minimal_task_spec({ title: "never stored" }) }, session.origin)));
    expect(store.snapshot()).toBe(before);
    store.close();
  });
});

describe("ProjectionStore rehydration", () => {
  it("rebuilds from the database when it follows a restarted bus, so events it missed are shown", () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    store.detach();
    const task = minimal_task_spec({ title: "missed while the bus was down" });
    ingest_all(session, [step("task.created", { task, priority: 0 })]);
    expect(store.snapshot().tasks).toEqual([]);
    store.attach(session.bus);
    expect(store.snapshot().tasks.map((t) => t.title)).toEqual(["missed while the bus was down"]);
    const reference = new ProjectionStore(session);
    reference.hydrate();
    expect(store.snapshot()).toEqual(reference.snapshot());
    store.close();
  });

  it("rehydrates on a gap in the event sequence and keeps the text streamed so far", () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const message_id = start_message(session);
    live(session, "assistant.message.delta", { message_id, text: "half an ans" });
    session.bus.drain();
    store.flush();
    // Committed to the database but published on a bus nobody follows: the projection misses it.
    const elsewhere = new EventStore(session.connection, session.id, new EventBus());
    elsewhere.append(make_event("task.created", { task: minimal_task_spec({ title: "committed unseen" }) }, session.origin));
    expect(store.snapshot().tasks).toEqual([]);
    ingest_all(session, [step("user.message.created", { message_id: new_id("message"), content: "next" })]);
    const state = store.snapshot();
    expect(state.tasks.map((t) => t.title)).toEqual(["committed unseen"]);
    expect(state.conversation.messages.map((m) => m.text)).toEqual(["next"]);
    expect(state.conversation.drafts).toEqual([expect.objectContaining({ message_id, status: "streaming", text: "half an ans" })]);
    store.close();
  });

  it("ignores an event it already has and events of other sessions", () => {
    const session = eager_session();
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const [event] = session.store.query({ types: ["session.created"] });
    const before = store.snapshot();
    store.apply(event!.event);
    store.apply({ ...make_event("agent.heartbeat", { agent_id: new_id("agent") }, session.origin), session_id: new_id("session") } as never);
    store.flush();
    expect(store.snapshot()).toBe(before);
    store.close();
  });
});

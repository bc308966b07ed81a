/**
 * The EventBus: live transport after commit (seeds 000 §5.5). Filters select, a throwing handler is
 * logged and stays subscribed, and bursts of ephemeral events are coalesced without losing text or order.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventBus, type BusLogger } from "../../src/event-store/event-bus.js";
import { parse_event, type EventOrigin, type EventType, type PayloadInputOf, type RuntimeEvent } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId, type TaskId } from "../../src/contracts/ids.js";
import { envelope, task_spec } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

const origin: EventOrigin = { session_id: new_id("session") as SessionId, source: { kind: "system" }, route: ["main", "scheduler"] };

function event<K extends EventType>(type: K, payload: PayloadInputOf<K>, route: string[] = origin.route): RuntimeEvent {
  return parse_event(envelope(type, payload, { ...origin, route }));
}

type Logged = { message: string; data: unknown };

function recording_logger(): BusLogger & { logged: Logged[] } {
  const logged: Logged[] = [];
  return { logged, error: (message, data) => logged.push({ message, data }) };
}

function collector(bus: EventBus, filter: Parameters<EventBus["subscribe"]>[0] = {}) {
  const seen: RuntimeEvent[] = [];
  const unsubscribe = bus.subscribe(filter, (e) => seen.push(e));
  return { seen, ids: () => seen.map((e) => e.id), unsubscribe };
}

describe("EventBus.subscribe filters", () => {
  const task_a = new_id("task");
  const task_b = new_id("task");
  const started_a = () => event("task.started", { task_id: task_a, attempt_id: new_id("attempt") });
  const started_b = () => event("task.started", { task_id: task_b, attempt_id: new_id("attempt") });

  it("delivers every event to an empty filter", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const events = [started_a(), event("requirement.changed", { requirement_id: new_id("requirement"), description: "x" })];
    for (const e of events) bus.publish(e);
    expect(all.ids()).toEqual(events.map((e) => e.id));
  });

  it("selects by types", () => {
    const bus = new EventBus();
    const only = collector(bus, { types: ["task.cancelled", "requirement.changed"] });
    const started = started_a();
    const cancelled = event("task.cancelled", { task_id: task_a, reason: "x" });
    bus.publish(started);
    bus.publish(cancelled);
    expect(only.ids()).toEqual([cancelled.id]);
  });

  it("selects by task_id in the payload, durable and ephemeral alike", () => {
    const bus = new EventBus();
    const of_a = collector(bus, { task_id: task_a });
    const a = started_a();
    const b = started_b();
    const progress_a = event("task.progress", { task_id: task_a, message: "halfway" });
    const untasked = event("requirement.changed", { requirement_id: new_id("requirement"), description: "x" });
    for (const e of [a, b, progress_a, untasked]) bus.publish(e);
    bus.drain();
    expect(of_a.ids()).toEqual([a.id, progress_a.id]);
  });

  it("selects by agent_id, tool_run_id and command_run_id", () => {
    const bus = new EventBus();
    const agent_id = new_id("agent");
    const tool_run_id = new_id("tool_run");
    const command_run_id = new_id("command_run");
    const by_agent = collector(bus, { agent_id });
    const by_tool = collector(bus, { tool_run_id });
    const by_command = collector(bus, { command_run_id });
    const agent = event("agent.completed", { agent_id });
    const tool = event("tool.cancelled", { tool_run_id, reason: "denied" });
    const command = event("command.started", { command_run_id, command: "ls", cwd: "/", tool_run_id, agent_id });
    for (const e of [agent, tool, command]) bus.publish(e);
    expect(by_agent.ids()).toEqual([agent.id, command.id]);
    expect(by_tool.ids()).toEqual([tool.id, command.id]);
    expect(by_command.ids()).toEqual([command.id]);
  });

  it("selects by route_prefix segment by segment, not by string prefix", () => {
    const bus = new EventBus();
    const scheduler = collector(bus, { route_prefix: ["main", "scheduler"] });
    const exact = event("task.cancelled", { task_id: task_a, reason: "x" }, ["main", "scheduler"]);
    const below = event("task.cancelled", { task_id: task_a, reason: "x" }, ["main", "scheduler", "executor-1"]);
    const sibling = event("task.cancelled", { task_id: task_a, reason: "x" }, ["main", "scheduler2"]);
    const above = event("task.cancelled", { task_id: task_a, reason: "x" }, ["main"]);
    const elsewhere = event("task.cancelled", { task_id: task_a, reason: "x" }, ["tool", "main", "scheduler"]);
    for (const e of [exact, below, sibling, above, elsewhere]) bus.publish(e);
    expect(scheduler.ids()).toEqual([exact.id, below.id]);
  });

  it("requires every field of a filter to match", () => {
    const bus = new EventBus();
    const narrow = collector(bus, { types: ["task.cancelled"], task_id: task_a, route_prefix: ["main"] });
    const match = event("task.cancelled", { task_id: task_a, reason: "x" }, ["main", "x"]);
    bus.publish(match);
    bus.publish(event("task.cancelled", { task_id: task_b, reason: "x" }, ["main", "x"]));
    bus.publish(event("task.cancelled", { task_id: task_a, reason: "x" }, ["other"]));
    bus.publish(event("task.interrupted", { task_id: task_a, reason: "x" }, ["main", "x"]));
    expect(narrow.ids()).toEqual([match.id]);
  });

  describe("agrees with EventStore.query on the same filter", () => {
    let temp: TempSession;
    beforeEach(() => {
      temp = open_temp_session();
    });
    afterEach(() => temp.cleanup());

    it("a task_id subscriber sees the task.created of its task, as the query does", () => {
      const { session } = temp;
      const task = task_spec();
      const task_id = task.id as TaskId;
      const live = collector(session.bus, { task_id });
      session.ingestor.ingest(envelope("task.created", { task, priority: 0 }, session.origin));
      session.ingestor.ingest(envelope("task.started", { task_id: task.id, attempt_id: new_id("attempt") }, session.origin));
      session.ingestor.ingest(envelope("task.created", { task: task_spec(), priority: 0 }, session.origin));
      const stored = session.store.query({ task_id }).map((s) => s.event.id);
      expect(stored).toHaveLength(2);
      expect(live.ids()).toEqual(stored);
    });
  });
});

describe("EventBus sequence numbers", () => {
  it("hands each committed event to subscribers with its seq in the log, and ephemeral ones with none", () => {
    const temp = open_temp_session();
    try {
      const { session } = temp;
      const seen: { type: string; seq: number | undefined }[] = [];
      session.bus.subscribe({}, (e, seq) => seen.push({ type: e.type, seq }));
      const task = task_spec();
      session.store.append_many([
        envelope("task.created", { task, priority: 0 }, session.origin),
        envelope("task.started", { task_id: task.id, attempt_id: new_id("attempt") }, session.origin),
      ]);
      session.ingestor.ingest(envelope("task.progress", { task_id: task.id, message: "halfway" }, session.origin));
      session.bus.drain();
      session.ingestor.ingest(envelope("task.cancelled", { task_id: task.id, reason: "enough" }, session.origin));
      const stored = session.store.query({ task_id: task.id as TaskId }).map(({ seq, event: e }) => ({ type: e.type, seq }));
      expect(stored.map((s) => s.type)).toEqual(["task.created", "task.started", "task.cancelled"]);
      expect(seen).toEqual([stored[0], stored[1], { type: "task.progress", seq: undefined }, stored[2]]);
    } finally {
      temp.cleanup();
    }
  });
});

describe("EventBus handlers", () => {
  it("logs a throwing handler; other handlers still get the event and the subscription stays active", () => {
    const logger = recording_logger();
    const bus = new EventBus({ logger });
    const before = collector(bus);
    const failure = new Error("handler bug");
    let calls = 0;
    bus.subscribe({}, () => {
      calls += 1;
      throw failure;
    });
    const after = collector(bus);

    const first = event("requirement.changed", { requirement_id: new_id("requirement"), description: "one" });
    const second = event("requirement.changed", { requirement_id: new_id("requirement"), description: "two" });
    expect(() => bus.publish(first)).not.toThrow();
    bus.publish(second);

    expect(before.ids()).toEqual([first.id, second.id]);
    expect(after.ids()).toEqual([first.id, second.id]);
    expect(calls).toBe(2);
    expect(logger.logged).toEqual([
      { message: `event bus handler failed on requirement.changed ${first.id}`, data: failure },
      { message: `event bus handler failed on requirement.changed ${second.id}`, data: failure },
    ]);
  });

  it("keeps delivering held events to the others when a handler throws during drain", () => {
    const logger = recording_logger();
    const bus = new EventBus({ logger });
    bus.subscribe({}, () => {
      throw new Error("boom");
    });
    const others = collector(bus);
    const run_a = new_id("command_run");
    const run_b = new_id("command_run");
    bus.publish(event("command.stdout.delta", { command_run_id: run_a, chunk: "a" }));
    bus.publish(event("command.stdout.delta", { command_run_id: run_b, chunk: "b" }));
    bus.drain();
    expect(others.seen.map((e) => (e.payload as { chunk: string }).chunk)).toEqual(["a", "b"]);
    expect(logger.logged).toHaveLength(2);
  });

  it("stops delivering after unsubscribe, without affecting other subscribers", () => {
    const bus = new EventBus();
    const leaving = collector(bus);
    const staying = collector(bus);
    const first = event("requirement.changed", { requirement_id: new_id("requirement"), description: "one" });
    const second = event("requirement.changed", { requirement_id: new_id("requirement"), description: "two" });
    bus.publish(first);
    leaving.unsubscribe();
    leaving.unsubscribe();
    bus.publish(second);
    expect(leaving.ids()).toEqual([first.id]);
    expect(staying.ids()).toEqual([first.id, second.id]);
  });

  it("subscribes the same handler twice as two subscriptions, each with its own unsubscribe", () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const handler = (e: RuntimeEvent) => seen.push(e.id);
    const first = bus.subscribe({}, handler);
    bus.subscribe({ types: ["task.cancelled"] }, handler);
    const e = event("task.cancelled", { task_id: new_id("task"), reason: "x" });
    bus.publish(e);
    expect(seen).toEqual([e.id, e.id]);
    first();
    bus.publish(e);
    expect(seen).toEqual([e.id, e.id, e.id]);
  });
});

describe("EventBus ephemeral coalescing", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function chunk_of(e: RuntimeEvent): string {
    return (e.payload as { chunk: string }).chunk;
  }

  it("append mode concatenates command.stdout.delta chunks per command_run_id, losing nothing", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const run_a = new_id("command_run");
    const run_b = new_id("command_run");
    const chunks: [string, string][] = [
      [run_a, "PASS a.test.ts\n"],
      [run_b, "compiling…\n"],
      [run_a, "PASS b.test.ts\n"],
      [run_a, "FAIL c.test.ts\n"],
      [run_b, "done\n"],
    ];
    for (const [command_run_id, chunk] of chunks) bus.publish(event("command.stdout.delta", { command_run_id, chunk }));
    expect(all.seen).toEqual([]);

    bus.drain();
    expect(all.seen.map((e) => [e.type, (e.payload as { command_run_id: string }).command_run_id, chunk_of(e)])).toEqual([
      ["command.stdout.delta", run_a, "PASS a.test.ts\nPASS b.test.ts\nFAIL c.test.ts\n"],
      ["command.stdout.delta", run_b, "compiling…\ndone\n"],
    ]);
  });

  it("append mode keeps stdout and stderr of one command apart", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const command_run_id = new_id("command_run");
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "out1 " }));
    bus.publish(event("command.stderr.delta", { command_run_id, chunk: "err1 " }));
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "out2" }));
    bus.publish(event("command.stderr.delta", { command_run_id, chunk: "err2" }));
    bus.drain();
    expect(all.seen.map((e) => [e.type, chunk_of(e)])).toEqual([
      ["command.stdout.delta", "out1 out2"],
      ["command.stderr.delta", "err1 err2"],
    ]);
  });

  it("latest mode keeps only the newest agent.heartbeat per agent", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const agent_a = new_id("agent");
    const agent_b = new_id("agent");
    const beats_a = [1, 2, 3].map(() => event("agent.heartbeat", { agent_id: agent_a }));
    const beat_b = event("agent.heartbeat", { agent_id: agent_b });
    bus.publish(beats_a[0]!);
    bus.publish(beat_b);
    bus.publish(beats_a[1]!);
    bus.publish(beats_a[2]!);
    bus.drain();
    expect(all.seen).toHaveLength(2);
    expect(new Set(all.ids())).toEqual(new Set([beats_a[2]!.id, beat_b.id]));
    expect(all.seen.find((e) => (e.payload as { agent_id: string }).agent_id === agent_a)).toEqual(beats_a[2]);
  });

  it("latest mode keeps the newest event in the place of the first of its burst", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const agent_a = new_id("agent");
    const task_id = new_id("task");
    const first = event("agent.heartbeat", { agent_id: agent_a });
    const progress = event("task.progress", { task_id, message: "10%" });
    const newest = event("agent.heartbeat", { agent_id: agent_a });
    for (const e of [first, progress, newest]) bus.publish(e);
    bus.drain();
    expect(all.ids()).toEqual([newest.id, progress.id]);
  });

  it("append mode keeps the envelope of the first delta of a burst", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const command_run_id = new_id("command_run");
    const first = event("command.stdout.delta", { command_run_id, chunk: "a" });
    bus.publish(first);
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "b" }));
    bus.drain();
    expect(all.seen).toEqual([{ ...first, payload: { command_run_id, chunk: "ab" } }]);
  });

  it("delivers held deltas before a later durable event", () => {
    const bus = new EventBus();
    const all = collector(bus);
    const command_run_id = new_id("command_run");
    const agent_id = new_id("agent");
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "1" }));
    bus.publish(event("agent.heartbeat", { agent_id }));
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "2" }));
    const completed = event("command.completed", { command_run_id, exit_code: 0, duration_ms: 3 });
    bus.publish(completed);
    expect(all.seen.map((e) => e.type)).toEqual(["command.stdout.delta", "agent.heartbeat", "command.completed"]);
    expect(chunk_of(all.seen[0]!)).toBe("12");
    expect(all.seen[2]).toBe(completed);
  });

  it("delivers held deltas before a durable event ingested into a real session", () => {
    const temp = open_temp_session();
    try {
      const { session } = temp;
      const seen: string[] = [];
      session.bus.subscribe({}, (e) => seen.push(e.type));
      const message_id = new_id("message");
      session.ingestor.ingest(envelope("assistant.message.started", { message_id }, session.origin));
      session.ingestor.ingest(envelope("assistant.message.delta", { message_id, text: "Hel" }, session.origin));
      session.ingestor.ingest(envelope("assistant.message.delta", { message_id, text: "lo" }, session.origin));
      session.ingestor.ingest(envelope("assistant.message.created", { message_id, content: "Hello" }, session.origin));
      expect(seen).toEqual(["assistant.message.started", "assistant.message.delta", "assistant.message.created"]);
    } finally {
      temp.cleanup();
    }
  });

  it("drain() flushes held events once and only once", () => {
    const bus = new EventBus();
    const all = collector(bus);
    bus.publish(event("task.progress", { task_id: new_id("task"), message: "10%" }));
    bus.drain();
    bus.drain();
    expect(all.seen).toHaveLength(1);
  });

  it("flushes held events by itself after the coalescing window", () => {
    vi.useFakeTimers();
    const bus = new EventBus({ coalesce_window_ms: 50 });
    const all = collector(bus);
    const command_run_id = new_id("command_run");
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "a" }));
    vi.advanceTimersByTime(30);
    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "b" }));
    vi.advanceTimersByTime(19);
    expect(all.seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(all.seen.map(chunk_of)).toEqual(["ab"]);

    bus.publish(event("command.stdout.delta", { command_run_id, chunk: "c" }));
    vi.advanceTimersByTime(50);
    expect(all.seen.map(chunk_of)).toEqual(["ab", "c"]);
  });

  it("applies subscription filters to coalesced events", () => {
    const bus = new EventBus();
    const run_a = new_id("command_run");
    const of_a = collector(bus, { command_run_id: run_a });
    bus.publish(event("command.stdout.delta", { command_run_id: run_a, chunk: "x" }));
    bus.publish(event("command.stdout.delta", { command_run_id: new_id("command_run"), chunk: "y" }));
    bus.publish(event("command.stdout.delta", { command_run_id: run_a, chunk: "z" }));
    bus.drain();
    expect(of_a.seen.map(chunk_of)).toEqual(["xz"]);
  });
});

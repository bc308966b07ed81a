/**
 * The write path (DESIGN §3): validate, guard, event row + projection in one transaction, publish only
 * after commit. Whatever is refused leaves the database and the bus untouched.
 */
import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { envelope, ephemeral_payloads, task_spec } from "../fixtures/events.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { dump_tables, event_count, event_row, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
let delivered: RuntimeEvent[];
temp_session_per_test((temp) => {
  session = temp.session;
  delivered = [];
  session.bus.subscribe({}, (event) => delivered.push(event));
});

function user_message(text = "hello") {
  return envelope("user.message.created", { message_id: new_id("message"), content: text }, session.origin);
}

function unknown_command_completed() {
  return envelope("command.completed", { command_run_id: new_id("command_run"), exit_code: 0, duration_ms: 5, diagnostic_ids: [] }, session.origin);
}

/** Delivered events, after anything the bus held back was flushed. */
function bus_saw(): string[] {
  session.bus.drain();
  return delivered.map((event) => event.id);
}

describe("EventStore.append", () => {
  it("commits the events row and its projection, then publishes the event once", () => {
    const input = user_message();
    const stored = session.store.append(input);
    expect(stored).toEqual(input);
    expect(event_row(session.connection, input.id)).toMatchObject({ type: "user.message.created" });
    expect(session.connection.client.prepare("SELECT id FROM messages WHERE id = ?").get(input.payload.message_id)).toBeDefined();
    expect(bus_saw()).toEqual([input.id]);
  });

  it("rolls back the event row when the projection throws, and the bus never sees the event", () => {
    const before = dump_tables(session.connection);
    const input = unknown_command_completed();
    const failure = expect_air_failure(() => session.store.append(input));
    expect(failure.error.kind).toBe("system_error");
    expect(failure.error.message).toMatch(/command run cmr_\w+ is unknown or already ended/);
    expect(event_row(session.connection, input.id)).toBeUndefined();
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("leaves the connection usable after a rolled-back write", () => {
    expect_air_failure(() => session.store.append(unknown_command_completed()));
    expect(session.connection.client.inTransaction).toBe(false);
    const next = user_message("after the failure");
    session.store.append(next);
    expect(event_row(session.connection, next.id)).toBeDefined();
    expect(bus_saw()).toEqual([next.id]);
  });

  it("refuses an event of another session and writes nothing", () => {
    const before = dump_tables(session.connection);
    const other = new_id("session") as SessionId;
    const input = envelope("user.message.created", { message_id: new_id("message"), content: "hi" }, { ...session.origin, session_id: other });
    const failure = expect_air_failure(() => session.store.append(input));
    expect(failure.error.kind).toBe("system_error");
    expect(failure.error.message).toContain(`belongs to session ${other}, not ${session.id}`);
    expect(failure.error.user_action).toMatch(/nothing was written/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("refuses a duplicate event id and writes nothing the second time", () => {
    const input = envelope("requirement.changed", { requirement_id: new_id("requirement"), description: "YAML too" }, session.origin);
    session.store.append(input);
    const before = dump_tables(session.connection);
    const failure = expect_air_failure(() => session.store.append(input));
    expect(failure.error.kind).toBe("system_error");
    expect(failure.error.message).toBe(`event ${input.id} was already appended`);
    expect(failure.error.user_action).toMatch(/nothing was written/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([input.id]);
  });

  it("refuses a duplicate event id even when the payload differs", () => {
    const first = user_message("first");
    session.store.append(first);
    const replay = { ...user_message("second"), id: first.id };
    const before = dump_tables(session.connection);
    expect(expect_air_failure(() => session.store.append(replay)).error.message).toMatch(/already appended/);
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("refuses an ephemeral event: it is never stored", () => {
    const before = dump_tables(session.connection);
    const input = envelope("agent.heartbeat", ephemeral_payloads["agent.heartbeat"](), session.origin);
    const failure = expect_air_failure(() => session.store.append(input));
    expect(failure.error.kind).toBe("system_error");
    expect(failure.error.message).toBe("agent.heartbeat is ephemeral and is never stored");
    expect(failure.error.user_action).toMatch(/EventIngestor\.ingest/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });
});

describe("EventStore.append_many", () => {
  it("commits a batch of 10 in order with consecutive seq numbers, and publishes them in order", () => {
    const batch = Array.from({ length: 10 }, (_, i) => user_message(`message ${i}`));
    const after_seq = session.store.query({ order: "desc", limit: 1 })[0]!.seq;
    session.store.append_many(batch);
    const stored = session.store.query({ after_seq });
    expect(stored.map((s) => s.event.id)).toEqual(batch.map((e) => e.id));
    expect(stored.map((s) => s.seq)).toEqual(batch.map((_, i) => after_seq + 1 + i));
    expect(bus_saw()).toEqual(batch.map((e) => e.id));
  });

  it("writes nothing and publishes nothing when one event of 10 fails its projection", () => {
    const batch = Array.from({ length: 10 }, (_, i) => user_message(`message ${i}`));
    batch[6] = unknown_command_completed() as unknown as (typeof batch)[number];
    const before = dump_tables(session.connection);
    const failure = expect_air_failure(() => session.store.append_many(batch));
    expect(failure.error.message).toMatch(/command\.completed: command run/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("writes nothing when one event of 10 fails validation", () => {
    const batch: unknown[] = Array.from({ length: 10 }, (_, i) => user_message(`message ${i}`));
    batch[9] = envelope("task.started", { task_id: new_id("task") } as never, session.origin);
    const before = dump_tables(session.connection);
    expect(expect_air_failure(() => session.store.append_many(batch)).error.message).toMatch(/payload of "task\.started" v1 fails its schema/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("writes nothing when a later event of 10 contradicts a lifecycle moved earlier in the same batch", () => {
    const task = task_spec();
    const origin = session.origin;
    const batch: unknown[] = [
      envelope("task.created", { task, priority: 0 }, origin),
      ...Array.from({ length: 7 }, (_, i) => user_message(`message ${i}`)),
      envelope("task.cancelled", { task_id: task.id, reason: "not needed" }, origin),
      envelope("task.started", { task_id: task.id, attempt_id: new_id("attempt") }, origin),
    ];
    const before = dump_tables(session.connection);
    // The guard of the 10th event reads the row the 1st and 9th wrote inside the same transaction.
    expect(expect_air_failure(() => session.store.append_many(batch)).error.message).toMatch(/task\.started for task tsk_\w+ in status cancelled/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("writes nothing when one event of the batch belongs to another session", () => {
    const batch: unknown[] = Array.from({ length: 10 }, (_, i) => user_message(`message ${i}`));
    batch[3] = envelope(
      "user.message.created",
      { message_id: new_id("message"), content: "x" },
      {
        ...session.origin,
        session_id: new_id("session") as SessionId,
      },
    );
    const before = dump_tables(session.connection);
    expect(expect_air_failure(() => session.store.append_many(batch)).error.message).toMatch(/belongs to session/);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });

  it("refuses a batch that repeats an event id and writes none of it", () => {
    const first = user_message("a");
    const batch = [first, user_message("b"), first];
    const before = dump_tables(session.connection);
    expect(expect_air_failure(() => session.store.append_many(batch)).error.message).toBe(`event ${first.id} was already appended`);
    expect(dump_tables(session.connection)).toEqual(before);
    expect(bus_saw()).toEqual([]);
  });
});

describe("EventIngestor.ingest", () => {
  it("publishes an ephemeral event to the bus without writing any row", () => {
    const before = dump_tables(session.connection);
    const events_before = event_count(session.connection);
    const input = envelope("task.progress", ephemeral_payloads["task.progress"](), session.origin);
    const returned = session.ingestor.ingest(input);
    expect(returned).toEqual(input);
    expect(bus_saw()).toEqual([input.id]);
    expect(delivered[0]).toEqual(input);
    expect(event_count(session.connection)).toBe(events_before);
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("publishes every ephemeral type of the registry without writing any row", () => {
    const before = dump_tables(session.connection);
    const inputs = Object.entries(ephemeral_payloads).map(([type, payload]) =>
      envelope(type as keyof typeof ephemeral_payloads, payload() as never, session.origin),
    );
    for (const input of inputs) session.ingestor.ingest(input);
    expect(new Set(bus_saw())).toEqual(new Set(inputs.map((input) => input.id)));
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("refuses an ephemeral event of another session without publishing it", () => {
    const other = new_id("session") as SessionId;
    const input = envelope("task.progress", ephemeral_payloads["task.progress"](), { ...session.origin, session_id: other });
    const failure = expect_air_failure(() => session.ingestor.ingest(input));
    expect(failure.error.message).toContain(`belongs to session ${other}, not ${session.id}`);
    expect(bus_saw()).toEqual([]);
  });

  it("sends a durable event through the store: stored, then published", () => {
    const input = envelope("task.created", { task: task_spec(), priority: 1 }, session.origin);
    session.ingestor.ingest(input);
    expect(event_row(session.connection, input.id)).toBeDefined();
    expect(bus_saw()).toEqual([input.id]);
  });

  it("publishes nothing for a durable event the store refuses", () => {
    const input = envelope("task.started", { task_id: new_id("task"), attempt_id: new_id("attempt") }, session.origin);
    const failure = expect_air_failure(() => session.ingestor.ingest(input));
    expect(failure.error.message).toMatch(/for unknown task/);
    expect(bus_saw()).toEqual([]);
  });
});

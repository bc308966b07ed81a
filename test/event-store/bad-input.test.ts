/**
 * Untrusted input at the event entry points: anything that is not a valid event of the registry is an
 * AirFailure that says what is wrong and what to do, and nothing is written.
 */
import { describe, expect, it } from "vitest";
import { parse_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { envelope, task_spec, worker_result } from "../fixtures/events.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { dump_tables, event_count, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
temp_session_per_test((temp) => {
  session = temp.session;
});

type Bad = { name: string; input: () => unknown; message: RegExp; user_action: RegExp };

const PRODUCER_BUG = /bug in the producer/;

function valid_message() {
  return envelope("user.message.created", { message_id: new_id("message"), content: "hi" }, session.origin);
}

function without<T extends object>(value: T, key: keyof T): Partial<T> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

const malformed_envelopes: Bad[] = [
  {
    name: "missing id",
    input: () => without(valid_message(), "id"),
    message: /^malformed event envelope: .*Expected "id" but received undefined\n.*→ at id$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an id with another entity's prefix",
    input: () => ({ ...valid_message(), id: new_id("task") }),
    message: /^malformed event envelope: .*expected a event id \(evt_<ulid>\)\n.*→ at id$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a route that is not an array",
    input: () => ({ ...valid_message(), route: "main/scheduler" }),
    message: /^malformed event envelope: .*Expected Array but received "main\/scheduler"\n.*→ at route$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an empty route",
    input: () => ({ ...valid_message(), route: [] }),
    message: /route needs at least its producer/,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a route segment containing '/'",
    input: () => ({ ...valid_message(), route: ["main/scheduler"] }),
    message: /a route segment cannot contain '\/'/,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an extra envelope field",
    input: () => ({ ...valid_message(), priority: "high" }),
    message: /^malformed event envelope: .*received "priority"\n.*→ at priority$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a timestamp that is not ISO-8601",
    input: () => ({ ...valid_message(), timestamp: "yesterday" }),
    message: /expected an ISO-8601 timestamp/,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an unknown source kind",
    input: () => ({ ...valid_message(), source: { kind: "wizard" } }),
    message: /^malformed event envelope: .*received "wizard"\n.*→ at source\.kind$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a type that is not dotted",
    input: () => ({ ...valid_message(), type: "UserMessageCreated" }),
    message: /expected a dotted event type/,
    user_action: PRODUCER_BUG,
  },
];

const unknown_events: Bad[] = [
  {
    name: "an unknown type",
    input: () => ({ ...valid_message(), type: "task.exploded" }),
    message: /^unknown event type "task\.exploded"$/,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an unknown version of a known type",
    input: () => ({ ...envelope("task.created", { task: task_spec(), priority: 0 }, session.origin), version: 2 }),
    message: /^unsupported version 2 of event type "task\.created" \(this air knows version 1\)$/,
    user_action: /Upgrade air/,
  },
];

const bad_payloads: Bad[] = [
  {
    name: "a payload missing a required field",
    input: () => envelope("task.started", { task_id: new_id("task") } as never, session.origin),
    message: /^payload of "task\.started" v1 fails its schema: .*→ at attempt_id$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a payload field of the wrong type",
    input: () => envelope("user.message.created", { message_id: new_id("message"), content: 42 } as never, session.origin),
    message: /^payload of "user\.message\.created" v1 fails its schema: .*received 42\n.*→ at content$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an unknown enum value (agent_type wizard)",
    input: () => envelope("agent.started", { agent_id: new_id("agent"), agent_type: "wizard", status: "running" } as never, session.origin),
    message: /^payload of "agent\.started" v1 fails its schema: .*received "wizard"\n.*→ at agent_type$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an unknown status value (agent.started status completed)",
    input: () => envelope("agent.started", { agent_id: new_id("agent"), agent_type: "executor", status: "completed" } as never, session.origin),
    message: /^payload of "agent\.started" v1 fails its schema: .*received "completed"\n.*→ at status$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an extra payload field",
    input: () => envelope("task.cancelled", { task_id: new_id("task"), reason: "x", force: true } as never, session.origin),
    message: /^payload of "task\.cancelled" v1 fails its schema: .*received "force"\n.*→ at force$/s,
    user_action: PRODUCER_BUG,
  },
  {
    name: "an id of the wrong kind in the payload",
    input: () => envelope("task.cancelled", { task_id: new_id("agent"), reason: "x" } as never, session.origin),
    message: /expected a task id \(tsk_<ulid>\)/,
    user_action: PRODUCER_BUG,
  },
  {
    name: "a cross-field rule broken (worker_result of another task)",
    input: () => {
      const task_id = new_id("task");
      const spec = task_spec();
      const event = envelope("task.failed", { task_id, error: undefined as never }, session.origin);
      return {
        ...event,
        payload: {
          task_id,
          error: { error_id: new_id("error"), kind: "test_error", severity: "error", message: "m", retryability: "unknown", semantic_signature: "s" },
          worker_result: worker_result(spec.id, new_id("agent"), { status: "failed" }),
        },
      };
    },
    message: /worker_result\.task_id must equal task_id/,
    user_action: PRODUCER_BUG,
  },
];

const ENTRY_POINTS = {
  "EventIngestor.ingest": (input: unknown) => session.ingestor.ingest(input),
  "EventStore.append": (input: unknown) => session.store.append(input),
  "EventStore.append_many": (input: unknown) => session.store.append_many([valid_message(), input]),
} as const;

for (const [entry, call] of Object.entries(ENTRY_POINTS)) {
  describe(`${entry} refuses bad input and writes nothing`, () => {
    for (const [group, cases] of [
      ["malformed envelope", malformed_envelopes],
      ["unknown event", unknown_events],
      ["payload failing its schema", bad_payloads],
    ] as const) {
      for (const bad of cases) {
        it(`${group}: ${bad.name}`, () => {
          const before = dump_tables(session.connection);
          const count = event_count(session.connection);
          const seen: string[] = [];
          session.bus.subscribe({}, (event) => seen.push(event.id));

          const failure = expect_air_failure(() => call(bad.input()));
          expect(failure.error.kind).toBe("system_error");
          expect(failure.error.retryability).toBe("not_retryable");
          expect(failure.error.message).toMatch(bad.message);
          expect(failure.error.user_action).toMatch(bad.user_action);

          expect(event_count(session.connection)).toBe(count);
          expect(dump_tables(session.connection)).toEqual(before);
          session.bus.drain();
          expect(seen).toEqual([]);
        });
      }
    }
  });
}

describe("parse_event", () => {
  it("refuses an NDJSON line that is not JSON (a string, not an object)", () => {
    const line = '{"id":"evt_01J0000000000000000000000","type":"task.created"\n{"truncated":';
    const failure = expect_air_failure(() => parse_event(line));
    expect(failure.error.kind).toBe("system_error");
    expect(failure.error.message).toMatch(/^malformed event envelope: .*Object/s);
    expect(failure.error.user_action).toMatch(PRODUCER_BUG);
  });

  it("refuses the same line at the ingestor and writes nothing", () => {
    const count = event_count(session.connection);
    const failure = expect_air_failure(() => session.ingestor.ingest("{not json}\n"));
    expect(failure.error.message).toMatch(/^malformed event envelope/);
    expect(event_count(session.connection)).toBe(count);
  });

  for (const [name, value] of [
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["an array", [{}]],
  ] as const) {
    it(`refuses ${name} as a malformed envelope`, () => {
      const failure = expect_air_failure(() => parse_event(value));
      expect(failure.error).toMatchObject({ kind: "system_error", retryability: "not_retryable" });
      expect(failure.error.message).toMatch(/^malformed event envelope/);
      expect(failure.error.user_action).toMatch(PRODUCER_BUG);
    });
  }

  it("accepts a valid event and applies payload defaults", () => {
    const task = task_spec();
    const { dependencies: _dependencies, ...rest } = task;
    const input = envelope("task.created", { task: { ...rest, dependencies: { hard: [], soft: [] } } }, session.origin);
    const event = parse_event(input);
    expect(event.type).toBe("task.created");
    expect(event.payload).toEqual({ task: { ...task, dependencies: { hard: [], soft: [], conflict: [], serialization: [] } }, priority: 0 });
  });
});

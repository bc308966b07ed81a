import { and, asc, desc, eq, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { air_failure, is_air_failure, type AirFailure } from "../contracts/errors.js";
import { EventFilter } from "../contracts/events/filter.js";
import { is_durable, parse_event, type DurableEvent, type DurableEventType, type RuntimeEvent } from "../contracts/events/registry.js";
import type { SessionId } from "../contracts/ids.js";
import type { Connection } from "../db/connection.js";
import { is_busy, sqlite_code } from "../db/sqlite.js";
import { event_from_row } from "../db/event-row.js";
import { events } from "../db/schema.js";
import type { EventBus } from "./event-bus.js";
import { check_lifecycle } from "./lifecycle.js";
import { REF_KEYS, ref_of } from "./refs.js";
import { insert_row } from "./rows.js";
import { projection_of } from "./projectors/index.js";

export type StoredEvent = { readonly seq: number; readonly event: RuntimeEvent };

function write_failure(event: RuntimeEvent, error: unknown): AirFailure {
  if (is_air_failure(error)) return error;
  const code = sqlite_code(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === "SQLITE_CONSTRAINT_UNIQUE" && message.includes("events.id")) {
    return air_failure(
      {
        kind: "system_error",
        message: `event ${event.id} was already appended`,
        retryability: "not_retryable",
        user_action: "A producer re-sent an event; nothing was written the second time.",
        metadata: { event_id: event.id, type: event.type },
      },
      error,
    );
  }
  return air_failure(
    {
      kind: "system_error",
      message: `projection of ${event.type} failed: ${message}`,
      retryability: is_busy(error) ? "retryable" : "not_retryable",
      user_action: "Nothing was written. If air produced this event, report it with the event's JSON.",
      metadata: { event_id: event.id, type: event.type, ...(code === undefined ? {} : { code }) },
    },
    error,
  );
}

/** Each session's events go to that session's database and bus only. */
export function assert_session(event: RuntimeEvent, session_id: SessionId): void {
  if (event.session_id === session_id) return;
  throw air_failure({
    kind: "system_error",
    message: `event ${event.id} belongs to session ${event.session_id}, not ${session_id}`,
    retryability: "not_retryable",
    user_action: "Each session's events go to that session's database; nothing was written or published.",
  });
}

/**
 * The durable event log of one session and the write path of DESIGN §3: validate, lifecycle guard, event
 * row + projection in one IMMEDIATE transaction, then each event published with its `seq` after commit.
 */
export class EventStore {
  constructor(
    private readonly connection: Connection,
    readonly session_id: SessionId,
    private readonly bus: EventBus,
  ) {}

  append(input: unknown): DurableEvent {
    const event = this.parse_durable(input);
    this.append_parsed([event]);
    return event;
  }

  /** Commits a batch in one transaction: all of it, or — if any event is refused — none of it. */
  append_many(inputs: readonly unknown[]): DurableEvent[] {
    return this.append_parsed(inputs.map((input) => this.parse_durable(input)));
  }

  /** For the ingestor, which has validated already. */
  append_parsed(batch: DurableEvent[]): DurableEvent[] {
    for (const event of batch) assert_session(event, this.session_id);
    // An empty batch writes and publishes nothing (and has no event to name in a failure).
    const [first] = batch;
    if (first === undefined) return batch;
    let current: DurableEvent | undefined;
    let seqs: number[];
    try {
      seqs = this.connection.write(() =>
        batch.map((event) => {
          current = event;
          return this.write_one(event);
        }),
      );
    } catch (error) {
      throw write_failure(current ?? first, error);
    }
    for (const [index, event] of batch.entries()) this.bus.publish(event, seqs[index]);
    return batch;
  }

  query(filter: EventFilter = {}): StoredEvent[] {
    const checked = v.parse(EventFilter, filter);
    const conditions: (SQL | undefined)[] = [
      checked.types === undefined ? undefined : inArray(events.type, checked.types),
      checked.after_seq === undefined ? undefined : gt(events.seq, checked.after_seq),
      ...REF_KEYS.map((key) => (checked[key] === undefined ? undefined : eq(events[key], checked[key]))),
      checked.route_prefix === undefined ? undefined : route_match(checked.route_prefix),
    ];
    const rows = this.connection.db
      .select()
      .from(events)
      .where(and(...conditions))
      .orderBy(checked.order === "desc" ? desc(events.seq) : asc(events.seq))
      .limit(checked.limit ?? 10_000)
      .all();
    return rows.map((row) => ({ seq: row.seq, event: event_from_row(row) }));
  }

  private parse_durable(input: unknown): DurableEvent {
    const event = parse_event(input);
    if (!is_durable(event)) {
      throw air_failure({
        kind: "system_error",
        message: `${event.type} is ephemeral and is never stored`,
        retryability: "not_retryable",
        user_action: "Send ephemeral events through EventIngestor.ingest, which publishes them live.",
      });
    }
    return event;
  }

  /** Returns the event's `seq`. */
  private write_one(event: DurableEvent): number {
    const move = check_lifecycle(this.connection, event);
    const seq = this.insert_event(event);
    projection_of(event.type as DurableEventType)(event as never, { connection: this.connection, move });
    return seq;
  }

  private insert_event(event: DurableEvent): number {
    return insert_row(this.connection, events, {
      id: event.id,
      type: event.type,
      version: event.version,
      timestamp: event.timestamp,
      session_id: event.session_id,
      project_id: event.project_id ?? null,
      source_kind: event.source.kind,
      source_id: event.source.id ?? null,
      source_agent_type: event.source.agent_type ?? null,
      route_json: JSON.stringify(event.route),
      route_text: event.route.join("/"),
      task_id: ref_of(event, "task_id") ?? null,
      agent_id: ref_of(event, "agent_id") ?? null,
      tool_run_id: ref_of(event, "tool_run_id") ?? null,
      command_run_id: ref_of(event, "command_run_id") ?? null,
      payload_json: JSON.stringify(event.payload),
    });
  }
}

function route_match(prefix: string[]): SQL | undefined {
  if (prefix.length === 0) return undefined;
  const text = prefix.join("/");
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  return or(eq(events.route_text, text), sql`${events.route_text} like ${`${escaped}/%`} escape '\\'`);
}

import { is_durable, parse_event, type DurableEvent, type RuntimeEvent } from "../contracts/events/registry.js";
import { default_redactor, type SecretRedactor } from "../permissions/secret-redactor.js";
import type { EventBus } from "./event-bus.js";
import { assert_session, type EventStore } from "./event-store.js";

/**
 * The single entry for events from agents, tools and workers (seeds 000 §5.1): validate once, scrub
 * secrets from the payload, then durable events go through the store's transaction and ephemeral ones
 * straight to the bus — so no key a command printed reaches the database or a subscriber.
 */
export class EventIngestor {
  constructor(
    private readonly store: EventStore,
    private readonly bus: EventBus,
    private readonly redactor: SecretRedactor = default_redactor(),
  ) {}

  ingest(input: unknown): RuntimeEvent {
    const event = this.#redacted(parse_event(input));
    assert_session(event, this.store.session_id);
    if (is_durable(event)) {
      this.store.append_parsed([event]);
      return event;
    }
    this.bus.publish(event);
    return event;
  }

  /**
   * Durable events committed together in one transaction — every one or, if one is refused, none — each
   * scrubbed as `ingest` scrubs it.
   */
  ingest_many(inputs: readonly unknown[]): DurableEvent[] {
    return this.store.append_many(inputs.map((input) => this.#redacted(parse_event(input))));
  }

  /**
   * Redaction rewrites spans of free text only (ids, digests and enums never match a pattern), so the
   * event stays what was validated and is not parsed again.
   */
  #redacted(event: RuntimeEvent): RuntimeEvent {
    const payload = this.redactor.redact_value(event.payload);
    return payload === event.payload ? event : ({ ...event, payload } as RuntimeEvent);
  }
}

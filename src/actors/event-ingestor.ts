import { is_durable, parse_event, type RuntimeEvent } from "../contracts/events/registry.js";
import type { EventBus } from "./event-bus.js";
import { assert_session, type EventStore } from "./event-store/event-store.js";

/**
 * The single entry for events from agents, tools and workers (seeds 000 §5.1): validate once, then
 * durable events go through the store's transaction and ephemeral ones straight to the bus.
 */
export class EventIngestor {
  constructor(
    private readonly store: EventStore,
    private readonly bus: EventBus,
  ) {}

  ingest(input: unknown): RuntimeEvent {
    const event = parse_event(input);
    assert_session(event, this.store.session_id);
    if (is_durable(event)) return this.store.append_parsed([event])[0]!;
    this.bus.publish(event);
    return event;
  }
}

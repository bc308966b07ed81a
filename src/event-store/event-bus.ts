import type { EventFilter } from "../contracts/events/filter.js";
import type { RuntimeEvent } from "../contracts/events/registry.js";
import { log_detail } from "../logs/log.js";
import { Coalescer, coalescing_of } from "./coalesce.js";
import { REF_KEYS, ref_of } from "./refs.js";

/**
 * A subscriber: each event, with its sequence number in the session's log when it is a committed durable
 * event (undefined for ephemeral ones), so a follower can tell a gap without asking the database.
 */
export type EventHandler = (event: RuntimeEvent, seq: number | undefined) => void;
export type BusFilter = Pick<EventFilter, "types" | "task_id" | "agent_id" | "tool_run_id" | "command_run_id" | "route_prefix">;
export type BusLogger = { error(message: string, data?: unknown): void };

/** The default: a line on stderr, and the stack in the developer log (seeds: handler errors are logged there). */
const stderr_logger: BusLogger = {
  error: (message, data) => {
    process.stderr.write(`${message}${data === undefined ? "" : ` ${String(data)}`}\n`);
    log_detail("event_bus", message, data);
  },
};

function matches(filter: BusFilter, event: RuntimeEvent): boolean {
  if (filter.types !== undefined && !filter.types.includes(event.type)) return false;
  for (const key of REF_KEYS) {
    if (filter[key] !== undefined && ref_of(event, key) !== filter[key]) return false;
  }
  const prefix = filter.route_prefix;
  return prefix === undefined || prefix.every((segment, index) => event.route[index] === segment);
}

type Subscription = { readonly filter: BusFilter; readonly handler: EventHandler };

/**
 * Live transport after commit — never a source of truth (INV-5). A throwing handler is logged and
 * stays subscribed; bursts of ephemeral events are folded per their registry `coalescing` rule.
 */
export class EventBus {
  readonly #subscriptions = new Set<Subscription>();
  readonly #held: Coalescer;

  constructor(private readonly options: { coalesce_window_ms?: number; logger?: BusLogger } = {}) {
    this.#held = new Coalescer(options.coalesce_window_ms ?? 16, () => this.drain());
  }

  subscribe(filter: BusFilter, handler: EventHandler): () => void {
    const subscription = { filter, handler };
    this.#subscriptions.add(subscription);
    return () => this.#subscriptions.delete(subscription);
  }

  /** `seq`: the event's place in the session's log, for a durable event its store has just committed. */
  publish(event: RuntimeEvent, seq?: number): void {
    if (coalescing_of(event) !== undefined) {
      this.#held.push(event);
      return;
    }
    // Deltas held back must not arrive after the durable event that ends their stream.
    this.drain();
    this.deliver(event, seq);
  }

  /** Delivers every held ephemeral event now (on shutdown, and before each durable event). */
  drain(): void {
    for (const event of this.#held.take()) this.deliver(event, undefined);
  }

  private deliver(event: RuntimeEvent, seq: number | undefined): void {
    for (const { filter, handler } of this.#subscriptions) {
      if (!matches(filter, event)) continue;
      try {
        handler(event, seq);
      } catch (error) {
        (this.options.logger ?? stderr_logger).error(`event bus handler failed on ${event.type} ${event.id}`, error);
      }
    }
  }
}

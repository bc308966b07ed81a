import type { EventFilter } from "../contracts/events/filter.js";
import { EVENT_REGISTRY, type RuntimeEvent } from "../contracts/events/registry.js";
import type { Coalescing } from "../contracts/events/define.js";

export type EventHandler = (event: RuntimeEvent) => void;
export type BusFilter = Pick<EventFilter, "types" | "task_id" | "agent_id" | "tool_run_id" | "command_run_id" | "route_prefix">;
export type BusLogger = { error(message: string, data?: unknown): void };

const stderr_logger: BusLogger = {
  error: (message, data) => process.stderr.write(`${message}${data === undefined ? "" : ` ${String(data)}`}\n`),
};

function field(payload: unknown, key: string): unknown {
  return typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[key] : undefined;
}

/** The id a filter compares with; `task.created` carries its task id inside the spec, as the store indexes it. */
function ref_of(event: RuntimeEvent, key: "task_id" | "agent_id" | "tool_run_id" | "command_run_id"): unknown {
  const value = field(event.payload, key);
  if (value === undefined && key === "task_id" && event.type === "task.created") return field(field(event.payload, "task"), "id");
  return value;
}

export function matches(filter: BusFilter, event: RuntimeEvent): boolean {
  if (filter.types !== undefined && !filter.types.includes(event.type)) return false;
  for (const key of ["task_id", "agent_id", "tool_run_id", "command_run_id"] as const) {
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
  readonly #pending = new Map<string, RuntimeEvent>();
  #flush_timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: { coalesce_window_ms?: number; logger?: BusLogger } = {},
  ) {}

  subscribe(filter: BusFilter, handler: EventHandler): () => void {
    const subscription = { filter, handler };
    this.#subscriptions.add(subscription);
    return () => this.#subscriptions.delete(subscription);
  }

  publish(event: RuntimeEvent): void {
    const definition = EVENT_REGISTRY[event.type];
    if (definition.persistence === "ephemeral" && definition.coalescing !== undefined) {
      this.hold(event, definition.coalescing);
      return;
    }
    // Deltas held back must not arrive after the durable event that ends their stream.
    this.drain();
    this.deliver(event);
  }

  /** Delivers every held ephemeral event now (on shutdown, and before each durable event). */
  drain(): void {
    if (this.#flush_timer !== undefined) clearTimeout(this.#flush_timer);
    this.#flush_timer = undefined;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    for (const event of held) this.deliver(event);
  }

  private hold(event: RuntimeEvent, rule: Coalescing): void {
    const key = `${event.type}\u0000${String(field(event.payload, rule.key))}`;
    const earlier = this.#pending.get(key);
    if (earlier !== undefined && rule.mode === "append") {
      const text = `${String(field(earlier.payload, rule.text))}${String(field(event.payload, rule.text))}`;
      this.#pending.set(key, { ...event, payload: { ...(event.payload as object), [rule.text]: text } } as RuntimeEvent);
    } else {
      this.#pending.delete(key);
      this.#pending.set(key, event);
    }
    this.#flush_timer ??= setTimeout(() => this.drain(), this.options.coalesce_window_ms ?? 16);
  }

  private deliver(event: RuntimeEvent): void {
    for (const { filter, handler } of this.#subscriptions) {
      if (!matches(filter, event)) continue;
      try {
        handler(event);
      } catch (error) {
        (this.options.logger ?? stderr_logger).error(`event bus handler failed on ${event.type} ${event.id}`, error);
      }
    }
  }
}

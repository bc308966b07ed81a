import type { Coalescing } from "../contracts/events/define.js";
import { definition_of, type RuntimeEvent } from "../contracts/events/registry.js";
import { field } from "../contracts/field.js";

/** How bursts of this event fold together: its registry rule, for ephemeral events that have one. */
export function coalescing_of(event: RuntimeEvent): Coalescing | undefined {
  const definition = definition_of(event.type);
  return definition.persistence === "ephemeral" ? definition.coalescing : undefined;
}

/**
 * Holds live ephemeral events for a while (the bus's window, the projection's frame), folding each burst per
 * its registry rule: `append` joins the text of one stream, `latest` keeps the newest progress. Events of
 * different entities commute, so a merged event stays at its first position without reordering anything
 * that matters, and keeps the envelope of the first event of its burst; nothing is lost. Events without a
 * rule are held in their place, unfolded.
 */
export class Coalescer {
  #pending: RuntimeEvent[] = [];
  readonly #slot = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  /** `on_due` runs `flush_ms` after the first event held since the last `take`. */
  constructor(
    private readonly flush_ms: number,
    private readonly on_due: () => void,
  ) {}

  push(event: RuntimeEvent): void {
    const rule = coalescing_of(event);
    const key = rule === undefined ? undefined : `${event.type}\u0000${String(field(event.payload, rule.key))}`;
    const slot = key === undefined ? undefined : this.#slot.get(key);
    const earlier = slot === undefined ? undefined : this.#pending[slot];
    if (rule === undefined || key === undefined || slot === undefined || earlier === undefined) {
      if (key !== undefined) this.#slot.set(key, this.#pending.length);
      this.#pending.push(event);
    } else if (rule.mode === "append") {
      const text = `${String(field(earlier.payload, rule.text))}${String(field(event.payload, rule.text))}`;
      this.#pending[slot] = { ...earlier, payload: { ...(earlier.payload as object), [rule.text]: text } } as RuntimeEvent;
    } else {
      this.#pending[slot] = event;
    }
    this.#timer ??= setTimeout(this.on_due, this.flush_ms);
  }

  /** Everything held, in order, and a fresh start. */
  take(): RuntimeEvent[] {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const taken = this.#pending;
    this.#pending = [];
    this.#slot.clear();
    return taken;
  }
}

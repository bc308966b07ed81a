import type { Coalescing } from "../contracts/events/define.js";
import { definition_of, type RuntimeEvent } from "../contracts/events/registry.js";

function field(payload: unknown, key: string): unknown {
  return typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[key] : undefined;
}

function rule_of(event: RuntimeEvent): Coalescing | undefined {
  const definition = definition_of(event.type);
  return definition.persistence === "ephemeral" ? definition.coalescing : undefined;
}

/** A frame at 30 per second: the TUI never repaints streaming text faster than this. */
export const DEFAULT_FLUSH_MS = 33;

/**
 * Holds live ephemeral events until the next frame (or the next durable event), folding each burst per its
 * registry rule: `append` joins the text of one stream, `latest` keeps the newest progress. Events of
 * different entities commute, so a merged event may stay at its first position without reordering
 * anything that matters; nothing is lost.
 */
export class Coalescer {
  #pending: RuntimeEvent[] = [];
  readonly #slot = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush_ms: number,
    private readonly on_due: () => void,
  ) {}

  push(event: RuntimeEvent): void {
    const rule = rule_of(event);
    const key = rule === undefined ? undefined : `${event.type}\u0000${String(field(event.payload, rule.key))}`;
    const slot = key === undefined ? undefined : this.#slot.get(key);
    if (rule === undefined || key === undefined || slot === undefined) {
      if (key !== undefined) this.#slot.set(key, this.#pending.length);
      this.#pending.push(event);
    } else if (rule.mode === "append") {
      const earlier = this.#pending[slot]!;
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

import type { ConversionLoss, ConversionReport } from "../../contracts/provider.js";

/** The provider format this adapter converts to and from. */
const OPENAI_CHAT_FORMAT = "openai_chat";

type Direction = ConversionLoss["direction"];

/**
 * Collects what a conversion could not carry, one entry per feature and direction with a count, so a
 * request with forty cached blocks reports one `cache_control` loss counted forty times. The first
 * detail given for a feature is kept: it says what happened, the count says how often.
 */
export class ConversionLosses {
  readonly #entries = new Map<string, ConversionLoss>();

  add(feature: string, direction: Direction, detail: string): void {
    const key = `${direction}\u0000${feature}`;
    const entry = this.#entries.get(key);
    this.#entries.set(key, entry === undefined ? { feature, direction, count: 1, detail } : { ...entry, count: entry.count + 1 });
  }

  /** A collector that starts with these entries: each attempt of a request adds its own response losses. */
  copy(): ConversionLosses {
    const copy = new ConversionLosses();
    for (const [key, entry] of this.#entries) copy.#entries.set(key, entry);
    return copy;
  }

  report(): ConversionReport {
    return { format: OPENAI_CHAT_FORMAT, losses: [...this.#entries.values()] };
  }
}

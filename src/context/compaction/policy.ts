import type { CompactionSettings } from "./rules.js";

export type CompactionPolicySettings = Pick<CompactionSettings, "threshold_ratio" | "circuit_breaker">;

export type CompactionCheck = { readonly token_estimate: number; readonly context_window: number; readonly turn: number };

export type CompactionVerdict = { readonly compact: boolean; readonly reason: string };

/** What became of a compaction: the conversation's estimate after it, or a failure (which still counts). */
export type CompactionRecord =
  | { readonly turn: number; readonly context_window: number; readonly token_estimate_after: number }
  | { readonly turn: number; readonly failed: true };

/**
 * When one agent's conversation is compacted (seeds 000 §10.3): at `threshold_ratio` of the context window,
 * behind a circuit breaker so that compaction can never loop — at most `max_compactions` per agent, none
 * within `min_turns_between` turns of the last, and none at all once a compaction failed to bring the
 * conversation under the threshold (compacting again would only summarise the summary).
 */
export class CompactionPolicy {
  readonly #settings: CompactionPolicySettings;
  #count = 0;
  #last_turn: number | undefined;
  #open_reason: string | undefined;

  constructor(settings: CompactionPolicySettings) {
    this.#settings = settings;
  }

  threshold_tokens(context_window: number): number {
    return Math.floor(context_window * this.#settings.threshold_ratio);
  }

  should_compact({ token_estimate, context_window, turn }: CompactionCheck): CompactionVerdict {
    const threshold = this.threshold_tokens(context_window);
    const usage = `${token_estimate} of ${context_window} tokens (threshold ${threshold})`;
    if (token_estimate < threshold) return { compact: false, reason: `under the threshold: ${usage}` };
    if (this.#open_reason !== undefined) return { compact: false, reason: `circuit breaker open: ${this.#open_reason}` };
    const { max_compactions, min_turns_between } = this.#settings.circuit_breaker;
    if (this.#count >= max_compactions) {
      return { compact: false, reason: `circuit breaker: ${this.#count} compaction(s) already, the most allowed per agent` };
    }
    if (this.#last_turn !== undefined && turn - this.#last_turn < min_turns_between) {
      return { compact: false, reason: `circuit breaker: the last compaction was at turn ${this.#last_turn}, fewer than ${min_turns_between} turns ago` };
    }
    return { compact: true, reason: `the conversation reached the compaction threshold: ${usage}` };
  }

  record(result: CompactionRecord): void {
    this.#count += 1;
    this.#last_turn = result.turn;
    if ("failed" in result) return;
    const threshold = this.threshold_tokens(result.context_window);
    if (result.token_estimate_after >= threshold) {
      this.#open_reason = `the compaction at turn ${result.turn} left ${result.token_estimate_after} tokens, not under the threshold of ${threshold}`;
    }
  }
}

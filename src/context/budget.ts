/** The context window assumed when the model's capabilities do not say (the Anthropic models' 200k). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Output tokens kept free in the window, at most: a quarter of a small window. */
const OUTPUT_RESERVE_TOKENS = 16_000;
/** Kept free for the error of a characters / 4 estimate. */
const SAFETY_MARGIN_RATIO = 0.02;

/** Input tokens a request may use in a context window: the window less the output reserve and a safety margin. */
export function token_budget_of(context_window: number): number {
  const reserve = Math.min(OUTPUT_RESERVE_TOKENS, Math.floor(context_window / 4));
  return Math.max(1, context_window - reserve - Math.ceil(context_window * SAFETY_MARGIN_RATIO));
}

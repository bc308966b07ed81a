import type { TokenUsage } from "../contracts/events/message.js";
import { bare_model_id } from "./capability-defaults.js";

/** US dollars per million tokens. */
type Price = { readonly input: number; readonly output: number; readonly cache_write: number; readonly cache_read: number };

/** Anthropic bills a cache write at 1.25× and a cache read at 0.1× the input price. */
const anthropic = (input: number, output: number): Price => ({ input, output, cache_write: input * 1.25, cache_read: input * 0.1 });
/** OpenAI caches by itself (no write surcharge) and bills cached input at its own rate. */
const openai = (input: number, output: number, cached: number): Price => ({ input, output, cache_write: input, cache_read: cached });

/**
 * Public list prices of the built-in model families (most specific first), for the HUD's running cost. A
 * model not listed here — a local server, a new release — shows tokens without a cost rather than a guess.
 */
const PRICES: readonly { readonly match: RegExp; readonly price: Price }[] = [
  { match: /^claude-opus-4[-.]5/, price: anthropic(5, 25) },
  { match: /^claude-opus-4/, price: anthropic(15, 75) },
  { match: /^claude-sonnet-4/, price: anthropic(3, 15) },
  { match: /^claude-haiku-4/, price: anthropic(1, 5) },
  { match: /^gpt-4\.1-mini/, price: openai(0.4, 1.6, 0.1) },
  { match: /^gpt-4\.1/, price: openai(2, 8, 0.5) },
  { match: /^gpt-4o-mini/, price: openai(0.15, 0.6, 0.075) },
  { match: /^gpt-4o/, price: openai(2.5, 10, 1.25) },
  { match: /^gpt-5-mini/, price: openai(0.25, 2, 0.025) },
  { match: /^gpt-5/, price: openai(1.25, 10, 0.125) },
];

/** The cost of one model request in US dollars, or undefined when the model's price is not known. */
export function request_cost_usd(model_id: string | null, usage: TokenUsage): number | undefined {
  if (model_id === null) return undefined;
  const bare = bare_model_id(model_id);
  const price = PRICES.find((entry) => entry.match.test(bare))?.price;
  if (price === undefined) return undefined;
  const tokens =
    usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    (usage.cache_creation_input_tokens ?? 0) * price.cache_write +
    (usage.cache_read_input_tokens ?? 0) * price.cache_read;
  return tokens / 1_000_000;
}

import type { ModelCapabilities } from "../contracts/provider.js";
import type { ProviderId } from "./models-file.js";

/**
 * Built-in capabilities of the model families air knows (seeds 003 §14), as their vendors document them.
 * A family is matched on the model id without a vendor prefix ("anthropic/claude-sonnet-4.5" on OpenRouter
 * is a claude-sonnet-4 model). What a provider cannot carry is taken away afterwards (`provider_limits`).
 */
type Family = { readonly match: RegExp; readonly capabilities: ModelCapabilities; readonly claude?: true };

const ALL = { tools: true, vision: true, thinking: true, prompt_caching: true, streaming: true, count_tokens: true };
// OpenAI caches long prefixes by itself; there is no token-counting endpoint.
const OPENAI = { ...ALL, thinking: false, count_tokens: false };
const OPENAI_REASONING = { ...OPENAI, thinking: true };

const claude = (match: RegExp, quality: ModelCapabilities["quality_tier"], cost: ModelCapabilities["cost_tier"], max_output_tokens: number): Family => ({
  match,
  capabilities: { quality_tier: quality, cost_tier: cost, context_window: 200_000, max_output_tokens, supports: ALL },
  claude: true,
});

// Most specific first: the first family that matches wins.
const FAMILIES: readonly Family[] = [
  claude(/^claude-opus-4[-.]5/, "frontier", "high", 64_000),
  claude(/^claude-opus-4/, "frontier", "high", 32_000),
  claude(/^claude-sonnet-4[-.]5/, "frontier", "medium", 64_000),
  claude(/^claude-sonnet-4/, "strong", "medium", 64_000),
  claude(/^claude-haiku-4/, "standard", "low", 64_000),
  {
    match: /^gpt-5(?:\.\d+)?-nano/,
    capabilities: { quality_tier: "standard", cost_tier: "low", context_window: 400_000, max_output_tokens: 128_000, supports: OPENAI_REASONING },
  },
  {
    match: /^gpt-5(?:\.\d+)?-mini/,
    capabilities: { quality_tier: "strong", cost_tier: "low", context_window: 400_000, max_output_tokens: 128_000, supports: OPENAI_REASONING },
  },
  {
    match: /^gpt-5/,
    capabilities: { quality_tier: "frontier", cost_tier: "medium", context_window: 400_000, max_output_tokens: 128_000, supports: OPENAI_REASONING },
  },
  {
    match: /^gpt-4\.1-nano/,
    capabilities: { quality_tier: "basic", cost_tier: "low", context_window: 1_047_576, max_output_tokens: 32_768, supports: OPENAI },
  },
  {
    match: /^gpt-4\.1-mini/,
    capabilities: { quality_tier: "standard", cost_tier: "low", context_window: 1_047_576, max_output_tokens: 32_768, supports: OPENAI },
  },
  { match: /^gpt-4\.1/, capabilities: { quality_tier: "strong", cost_tier: "medium", context_window: 1_047_576, max_output_tokens: 32_768, supports: OPENAI } },
  { match: /^gpt-4o-mini/, capabilities: { quality_tier: "standard", cost_tier: "low", context_window: 128_000, max_output_tokens: 16_384, supports: OPENAI } },
  { match: /^gpt-4o/, capabilities: { quality_tier: "strong", cost_tier: "medium", context_window: 128_000, max_output_tokens: 16_384, supports: OPENAI } },
  // o1-mini and o3-mini take no images.
  {
    match: /^o[13]-mini/,
    capabilities: {
      quality_tier: "strong",
      cost_tier: "low",
      context_window: 200_000,
      max_output_tokens: 100_000,
      supports: { ...OPENAI_REASONING, vision: false },
    },
  },
  {
    match: /^o4-mini/,
    capabilities: { quality_tier: "strong", cost_tier: "low", context_window: 200_000, max_output_tokens: 100_000, supports: OPENAI_REASONING },
  },
  {
    match: /^o[134](?:$|-)/,
    capabilities: { quality_tier: "frontier", cost_tier: "high", context_window: 200_000, max_output_tokens: 100_000, supports: OPENAI_REASONING },
  },
];

/**
 * A model air does not know, typically a local one behind an OpenAI-compatible server (Ollama, LM Studio,
 * vLLM, llama.cpp): most current open models call tools, few see images, and 32k tokens is a context most
 * of them are served with (Ollama's own default is smaller, so a larger window is asked for explicitly, in
 * models.yaml). Wrong guesses are corrected in models.yaml; until then a request is refused rather than
 * sent to a model that would choke on it.
 */
const UNKNOWN: ModelCapabilities = {
  quality_tier: "standard",
  cost_tier: "medium",
  context_window: 32_768,
  max_output_tokens: 4_096,
  supports: { tools: true, vision: false, thinking: false, prompt_caching: false, streaming: true, count_tokens: false },
};

/** A model served by `openai_compatible` runs on the user's own hardware as a rule: it costs nothing per token. */
const UNKNOWN_BY_PROVIDER: Readonly<Record<ProviderId, ModelCapabilities>> = {
  anthropic: UNKNOWN,
  openai: UNKNOWN,
  openrouter: UNKNOWN,
  openai_compatible: { ...UNKNOWN, cost_tier: "free" },
};

/** The model each provider uses when neither the environment nor models.yaml names one. */
export const DEFAULT_MODELS = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4.1",
  openrouter: "anthropic/claude-sonnet-4.5",
  // A local server serves whatever was pulled into it: there is nothing sensible to guess.
  openai_compatible: undefined,
} as const satisfies Readonly<Record<ProviderId, string | undefined>>;

/**
 * Models `air provider list` shows for a provider before models.yaml adds its own; also the alternatives a
 * refusal suggests, in this order — the default first, the most expensive not first.
 */
export const KNOWN_MODELS: Readonly<Record<ProviderId, readonly string[]>> = {
  anthropic: ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-0"],
  openai: ["gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "gpt-5", "gpt-5-mini", "o3", "o4-mini"],
  openrouter: ["anthropic/claude-sonnet-4.5", "openai/gpt-4.1", "openai/gpt-4o"],
  openai_compatible: [],
};

/** `anthropic/claude-sonnet-4.5` → `claude-sonnet-4.5`: OpenRouter names models vendor/model. */
export function bare_model_id(model_id: string): string {
  return model_id.slice(model_id.lastIndexOf("/") + 1).toLowerCase();
}

/**
 * What only the Anthropic Messages API carries: thinking blocks, cache_control breakpoints and token
 * counting. Through an OpenAI-compatible API a Claude model loses them (the adapter reports the loss).
 */
function provider_limits(provider_id: ProviderId, family: Family): ModelCapabilities {
  const { capabilities } = family;
  if (provider_id === "anthropic") return capabilities;
  const lost = family.claude === true ? { thinking: false, prompt_caching: false } : {};
  return { ...capabilities, supports: { ...capabilities.supports, count_tokens: false, ...lost } };
}

/** Built-in capabilities of `model_id` served by `provider_id`; `known` says whether a family matched. */
export function builtin_capabilities(provider_id: ProviderId, model_id: string): { capabilities: ModelCapabilities; known: boolean } {
  const bare = bare_model_id(model_id);
  const family = FAMILIES.find((candidate) => candidate.match.test(bare));
  if (family === undefined) return { capabilities: UNKNOWN_BY_PROVIDER[provider_id], known: false };
  return { capabilities: provider_limits(provider_id, family), known: true };
}

import path from "node:path";
import * as v from "valibot";
import { CostTier, QualityTier } from "../contracts/provider.js";
import { read_yaml_file } from "../project/yaml-file.js";
import { AuthRef } from "./credentials-file.js";

const NonEmpty = v.pipe(v.string(), v.minLength(1));
const Tokens = v.pipe(v.number(), v.integer(), v.minValue(1));

export const PROVIDER_IDS = ["anthropic", "openai", "openrouter", "openai_compatible"] as const;
export const ProviderId = v.picklist(PROVIDER_IDS);
export type ProviderId = v.InferOutput<typeof ProviderId>;

/** `new URL` takes "localhost:8080" as a URL of scheme "localhost:"; an SDK cannot reach that. */
export const HttpUrl = v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//i, "an http:// or https:// URL"));

/** An environment variable name, as `api_key_env` gives it. */
const EnvName = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"));

const provider_entry = <B extends v.GenericSchema>(base_url: B) =>
  v.strictObject({
    api_key: v.optional(NonEmpty),
    /** The variable holding the key, for a key kept out of the file; it wins over `api_key` when set. */
    api_key_env: v.optional(EnvName),
    /** The name of a key in `~/.air/credentials.yaml` (what `air init` writes): the key stays out of this file. */
    auth_ref: v.optional(AuthRef),
    base_url,
    /** Sent with every request (OpenRouter's HTTP-Referer and X-Title, a proxy's routing header). */
    headers: v.optional(v.record(NonEmpty, v.string())),
    /** This provider's model when it is selected and AIR_MODEL names none. */
    default_model: v.optional(NonEmpty),
  });

/** Capabilities a models.yaml may correct for one model; anything left out keeps the built-in value. */
export const CapabilityOverride = v.strictObject({
  quality_tier: v.optional(QualityTier),
  cost_tier: v.optional(CostTier),
  context_window: v.optional(Tokens),
  max_output_tokens: v.optional(Tokens),
  supports: v.optional(
    v.strictObject({
      tools: v.optional(v.boolean()),
      vision: v.optional(v.boolean()),
      thinking: v.optional(v.boolean()),
      prompt_caching: v.optional(v.boolean()),
      streaming: v.optional(v.boolean()),
      count_tokens: v.optional(v.boolean()),
    }),
  ),
});
export type CapabilityOverride = v.InferOutput<typeof CapabilityOverride>;

/** A model entry of the user's file: capabilities, the provider that serves it, and extended thinking. */
export const ModelEntry = v.strictObject({
  ...CapabilityOverride.entries,
  /** Lists the model under this provider in `air provider list`. */
  provider: v.optional(ProviderId),
  /** Anthropic extended thinking for this model; the API's minimum budget is 1024 tokens. */
  thinking_budget_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024))),
});
export type ModelEntry = v.InferOutput<typeof ModelEntry>;

/** `~/.air/models.yaml`. Strict: a misspelt key is reported, not ignored. */
export const ModelsFile = v.strictObject({
  default_provider: v.optional(ProviderId),
  /** The model of `default_provider` (of any selected provider when the file names none). */
  default_model: v.optional(NonEmpty),
  providers: v.optional(
    v.strictObject({
      anthropic: v.optional(provider_entry(v.optional(HttpUrl))),
      openai: v.optional(provider_entry(v.optional(HttpUrl))),
      openrouter: v.optional(provider_entry(v.optional(HttpUrl))),
      openai_compatible: v.optional(provider_entry(HttpUrl)),
    }),
  ),
  models: v.optional(v.record(NonEmpty, ModelEntry)),
});
export type ModelsFile = v.InferOutput<typeof ModelsFile>;
export type ProviderEntry = NonNullable<NonNullable<ModelsFile["providers"]>["anthropic"]>;

/**
 * `.air/shared/models.yaml` is committed with the project: it may correct what a model can do, never
 * where requests go or which key they carry — a cloned repository must not send your key elsewhere or
 * spend it on a thinking budget you did not choose.
 */
export const ProjectModelsFile = v.strictObject({
  models: v.optional(v.record(NonEmpty, CapabilityOverride)),
});
export type ProjectModelsFile = v.InferOutput<typeof ProjectModelsFile>;

export const MODELS_FILE_EXAMPLE = [
  "default_model: claude-sonnet-4-5",
  "providers:",
  "  anthropic:",
  "    api_key: sk-ant-...",
  "    base_url: https://api.anthropic.com   # optional: an Anthropic-compatible server",
].join("\n");

const FULL_EXAMPLE = [
  "default_provider: anthropic        # anthropic | openai | openrouter | openai_compatible",
  "default_model: claude-sonnet-4-5",
  "providers:",
  "  anthropic:",
  "    api_key: sk-ant-...",
  "  openai_compatible:               # Ollama, LM Studio, vLLM, llama.cpp server",
  "    base_url: http://127.0.0.1:11434/v1",
  "    api_key_env: MY_SERVER_KEY     # optional: the variable holding the key",
  "    default_model: qwen2.5-coder:32b",
  "models:",
  "  qwen2.5-coder:32b:",
  "    provider: openai_compatible",
  "    context_window: 32768",
  "    supports: { tools: true, vision: false }",
  "  claude-sonnet-4-5:",
  "    thinking_budget_tokens: 4096",
].join("\n");

const PROJECT_EXAMPLE = ["models:", "  qwen2.5-coder:32b:", "    context_window: 65536", "    supports: { tools: true }"].join("\n");

export function models_file_path(home: string): string {
  return path.join(home, "models.yaml");
}

/** The parsed file, or undefined when there is none. A file that is there but broken is an error. */
export function read_models_file(file: string): ModelsFile | undefined {
  return read_yaml_file(file, { schema: ModelsFile, example: FULL_EXAMPLE });
}

/** `<project>/.air/shared/models.yaml`, capability corrections only. */
export function read_project_models_file(file: string): ProjectModelsFile | undefined {
  return read_yaml_file(file, { schema: ProjectModelsFile, example: PROJECT_EXAMPLE });
}

import { air_failure } from "../contracts/errors.js";
import type { ModelRequest, ModelResponse } from "../contracts/provider.js";
import { AnthropicAdapter, ANTHROPIC_DEFAULT_BASE_URL, type CompleteOptions } from "./anthropic.js";
import { load_provider_settings, no_provider_failure, type LoadSettingsOptions, type ProviderSettings } from "./config.js";
import type { RetryPolicy } from "./retry.js";
import type { Secret } from "./secret.js";

/** A configured provider, described without its key: safe to put in an event or a log line. */
export type ProviderDescription = {
  readonly provider_id: string;
  readonly model_id: string;
  readonly base_url: string;
  readonly sources: ProviderSettings["sources"];
};

/** The model of one session: fixed when the session starts (DESIGN.md §7), no switching. */
export type ProviderSession = {
  readonly provider_id: string;
  readonly model_id: string;
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse>;
};

export type ProviderManagerOptions = {
  readonly retry?: Partial<RetryPolicy>;
  readonly default_max_tokens?: number;
  readonly timeout_ms?: number;
};

/** Entry point for model access: configuration in, per-session model handles out. */
export class ProviderManager {
  readonly #settings: ProviderSettings;
  readonly #options: ProviderManagerOptions;

  constructor(settings: ProviderSettings, options: ProviderManagerOptions = {}) {
    this.#settings = settings;
    // Only what the adapter takes: `load` passes its env and home along in the same object.
    this.#options = { retry: options.retry, default_max_tokens: options.default_max_tokens, timeout_ms: options.timeout_ms };
  }

  /** Settings from the environment and `models.yaml` (see `load_provider_settings`). */
  static load(options: LoadSettingsOptions & ProviderManagerOptions = {}): ProviderManager {
    return new ProviderManager(load_provider_settings(options), options);
  }

  is_configured(): boolean {
    return this.#settings.api_key !== undefined;
  }

  /** The configured provider; throws an `env_error` saying how to configure one when there is none. */
  require_configured(): ProviderDescription {
    this.#key();
    return {
      provider_id: this.#settings.provider_id,
      model_id: this.#settings.model_id,
      base_url: this.#settings.base_url ?? ANTHROPIC_DEFAULT_BASE_URL,
      sources: this.#settings.sources,
    };
  }

  /** The model for a session: `model_id` if given, else the configured default. */
  for_session(model_id?: string): ProviderSession {
    const api_key = this.#key();
    const model = model_id ?? this.#settings.model_id;
    if (model.trim() === "") {
      throw air_failure({ kind: "user_error", message: "the model id is empty", retryability: "not_retryable", user_action: "Name a model, e.g. claude-sonnet-4-5." });
    }
    const adapter = new AnthropicAdapter({
      api_key,
      model_id: model,
      base_url: this.#settings.base_url,
      ...this.#options,
    });
    // A plain object whose only function closes over the adapter: serialising it shows no key.
    return Object.freeze({
      provider_id: adapter.provider_id,
      model_id: adapter.model_id,
      complete: (request: ModelRequest, options: CompleteOptions) => adapter.complete(request, options),
    });
  }

  #key(): Secret {
    if (this.#settings.api_key === undefined) throw no_provider_failure(this.#settings);
    return this.#settings.api_key;
  }
}

import * as v from "valibot";
import { air_failure, AirFailure, is_air_failure } from "../contracts/errors.js";
import { ModelRequest, type ModelCapabilities, type ModelResponse } from "../contracts/provider.js";
import type { CompleteOptions } from "./anthropic.js";
import { capability_failure, type ResolvedModel } from "./capabilities.js";
import {
  key_hint,
  load_provider_config,
  no_provider_failure,
  PROVIDER_ENV,
  PROVIDER_IDS,
  type LoadSettingsOptions,
  type ProviderConfig,
  type ProviderId,
  type ProviderSettings,
} from "./config.js";
import type { RetryPolicy } from "./retry.js";

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
  /** What the model can do; `complete` refuses a request that needs more, before any network call. */
  readonly capabilities: ModelCapabilities;
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse>;
  /** The request's input tokens as the provider counts them; present where the provider can (Anthropic). */
  readonly count_tokens?: (request: ModelRequest) => Promise<number>;
};

export type ProviderManagerOptions = {
  readonly retry?: Partial<RetryPolicy>;
  readonly default_max_tokens?: number;
  readonly timeout_ms?: number;
};

/** What every adapter offers the manager. */
type ModelAdapter = {
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse>;
  count_tokens?(request: ModelRequest): Promise<number>;
};

const DEFAULT_MAX_TOKENS = 8192;

/** The URL requests go to: the configured one, else the provider's own. */
function base_url_of(settings: ProviderSettings): string {
  // openai_compatible always has one: its models.yaml entry requires base_url.
  return settings.base_url ?? PROVIDER_ENV[settings.provider_id].default_base_url ?? "";
}

function unknown_provider(name: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `unknown model provider: ${JSON.stringify(name)}`,
    retryability: "not_retryable",
    user_action: `Use one of ${PROVIDER_IDS.join(", ")}.`,
    metadata: { provider_id: name },
  });
}

/** Entry point for model access: configuration in, per-session model handles out. */
export class ProviderManager {
  readonly #config: ProviderConfig;
  readonly #options: ProviderManagerOptions;

  constructor(config: ProviderConfig, options: ProviderManagerOptions = {}) {
    this.#config = config;
    // Only what the adapters take: `load` passes its env and home along in the same object.
    this.#options = { retry: options.retry, default_max_tokens: options.default_max_tokens, timeout_ms: options.timeout_ms };
  }

  /** Settings from the environment, `~/.air/models.yaml` and the project's capability corrections. */
  static load(options: LoadSettingsOptions & ProviderManagerOptions = {}): ProviderManager {
    return new ProviderManager(load_provider_config(options), options);
  }

  is_configured(): boolean {
    const settings = this.#config.settings(this.#config.selected);
    return !settings.key_required || settings.api_key !== undefined;
  }

  /**
   * The provider a new session gets; throws an `env_error` saying how to configure one when there is
   * none, and whatever is wrong with the model's settings — before a session is written.
   */
  require_configured(): ProviderDescription {
    const settings = this.#settings(this.#config.selected);
    this.#model(settings, settings.model_id);
    return {
      provider_id: settings.provider_id,
      model_id: settings.model_id,
      base_url: base_url_of(settings),
      sources: settings.sources,
    };
  }

  /**
   * The context window of a session's model as the capability matrix knows it, without building its adapter;
   * undefined when it is only the guess for unknown models (no built-in family, no models.yaml entry).
   */
  context_window(model_id?: string | null, provider_id?: string | null): number | undefined {
    const named = provider_id ?? this.#config.selected;
    const provider = PROVIDER_IDS.find((id) => id === named);
    if (provider === undefined) return undefined;
    const model = this.#config.matrix.resolve(provider, model_id ?? this.#config.settings(provider).model_id);
    // A models.yaml entry is where a local model's window is stated: the first source is the built-in guess.
    return model.known || model.sources.length > 1 ? model.capabilities.context_window : undefined;
  }

  /**
   * The model for a session: `model_id` (of `provider_id`) when given — a resumed session keeps the model
   * it started with — else the configured default.
   */
  for_session(model_id?: string, provider_id?: string): ProviderSession {
    const name = provider_id ?? this.#config.selected;
    if (!(PROVIDER_IDS as readonly string[]).includes(name)) throw unknown_provider(name);
    const settings = this.#settings(name as ProviderId);
    const model = this.#model(settings, model_id ?? settings.model_id);
    const adapter = this.#adapter(settings, model);
    const matrix = this.#config.matrix;
    const complete = async (request: ModelRequest, options: CompleteOptions) => {
      // An invalid request is the adapter's to report; only a valid one can be measured.
      const refused = v.is(ModelRequest, request) ? capability_failure(request, model, matrix) : undefined;
      if (refused !== undefined) throw refused;
      try {
        return await adapter.complete(request, options);
      } catch (error) {
        throw explained(error, settings);
      }
    };
    const count_tokens = model.capabilities.supports.count_tokens ? adapter.count_tokens?.bind(adapter) : undefined;
    // A plain object whose functions close over the adapter: serialising it shows no key.
    return Object.freeze({
      provider_id: settings.provider_id,
      model_id: model.model_id,
      capabilities: model.capabilities,
      complete,
      ...(count_tokens === undefined
        ? {}
        : { count_tokens: (request: ModelRequest) => count_tokens(request).catch((error: unknown) => Promise.reject(explained(error, settings))) }),
    });
  }

  #settings(provider_id: ProviderId): ProviderSettings {
    const settings = this.#config.settings(provider_id);
    if (settings.key_required && settings.api_key === undefined) throw no_provider_failure(settings);
    return settings;
  }

  #model(settings: ProviderSettings, model_id: string): ResolvedModel {
    if (model_id.trim() === "") {
      throw air_failure({
        kind: "user_error",
        message: "the model id is empty",
        retryability: "not_retryable",
        user_action: "Name a model, e.g. claude-sonnet-4-5.",
      });
    }
    const model = this.#config.matrix.resolve(settings.provider_id, model_id);
    check_thinking(model, this.#config.matrix.home_file);
    return model;
  }

  /**
   * The adapter of the session's provider, built at its first request: its SDK loads then, and the other
   * provider's never, not while the TUI starts (the two SDKs are ~0.55 MB of the bundle). A failure to
   * build it is the request's, explained as any other.
   */
  #adapter(settings: ProviderSettings, model: ResolvedModel): ModelAdapter {
    const common = this.#common(settings, model);
    if (settings.provider_id === "anthropic") {
      const adapter = once(async () => {
        const { AnthropicAdapter } = await import("./anthropic.js");
        return new AnthropicAdapter({
          ...common,
          // biome-ignore lint/style/noNonNullAssertion: #settings made sure of the key, Anthropic always needs one
          api_key: settings.api_key!,
          prompt_caching: model.capabilities.supports.prompt_caching,
          thinking_budget_tokens: model.thinking_budget_tokens,
          max_output_tokens: model.capabilities.max_output_tokens,
        });
      });
      return {
        complete: async (request, options) => (await adapter()).complete(request, options),
        count_tokens: async (request) => (await adapter()).count_tokens(request),
      };
    }
    const adapter = once(async () => {
      const { OpenAICompatibleAdapter } = await import("./openai/adapter.js");
      return new OpenAICompatibleAdapter({ ...common, provider_id: settings.provider_id, api_key: settings.api_key });
    });
    return { complete: async (request, options) => (await adapter()).complete(request, options) };
  }

  #common(settings: ProviderSettings, model: ResolvedModel) {
    return {
      model_id: model.model_id,
      base_url: base_url_of(settings),
      headers: settings.headers === undefined ? undefined : { ...settings.headers },
      retry: this.#options.retry,
      timeout_ms: this.#options.timeout_ms,
      // A local model's output limit is often far below the usual default.
      default_max_tokens: Math.min(this.#options.default_max_tokens ?? DEFAULT_MAX_TOKENS, model.capabilities.max_output_tokens),
    };
  }
}

/** `make`'s promise, made at the first call and shared by every call after. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** Extended thinking is an Anthropic feature, for models that think, within their output limit. */
function check_thinking(model: ResolvedModel, models_file: string): void {
  const budget = model.thinking_budget_tokens;
  if (budget === undefined) return;
  const why =
    model.provider_id !== "anthropic"
      ? `extended thinking is configured only through the Anthropic API, not ${model.provider_id}`
      : !model.capabilities.supports.thinking
        ? "the model does not think (supports.thinking is false)"
        : budget >= model.capabilities.max_output_tokens
          ? `the budget leaves no room for an answer within ${model.capabilities.max_output_tokens} output tokens`
          : undefined;
  if (why === undefined) return;
  throw air_failure({
    kind: "model_capability_error",
    message: `thinking_budget_tokens ${budget} of model ${model.model_id} cannot be used: ${why}`,
    retryability: "retryable_after_change",
    user_action: `Remove or lower thinking_budget_tokens of ${model.model_id} in ${models_file}.`,
    metadata: { provider_id: model.provider_id, model_id: model.model_id, capability: "thinking" },
  });
}

function is_auth_failure(metadata: Record<string, unknown>): boolean {
  return metadata.status === 401 || metadata.status === 403 || metadata.error_type === "authentication_error" || metadata.error_type === "permission_error";
}

/** Where the base URL of `settings` is set, as a person would change it. */
function base_url_hint(settings: ProviderSettings): string {
  const { base_url } = settings.sources;
  if (base_url.startsWith("env:")) return base_url.slice("env:".length);
  const in_file = `base_url under providers.${settings.provider_id} in ${settings.models_file}`;
  const variable = PROVIDER_ENV[settings.provider_id].base_url;
  return base_url === "models.yaml" || variable === undefined ? in_file : `${variable} (or ${in_file})`;
}

/**
 * An adapter's failure with the action naming the exact setting behind it: the variable or file the key
 * came from, the variable or file that set the base URL. Adapters know their provider, not the config.
 */
function explained(error: unknown, settings: ProviderSettings): unknown {
  if (!is_air_failure(error)) return error;
  const metadata = (error.error.metadata ?? {}) as Record<string, unknown>;
  const url = base_url_of(settings);
  let user_action: string | undefined;
  if (is_auth_failure(metadata)) {
    user_action =
      settings.api_key === undefined
        ? `The server at ${url} wants an API key: set ${settings.key_variables.join(" or ") || `api_key under providers.${settings.provider_id} in ${settings.models_file}`}.`
        : `Check ${key_hint(settings)}: the server at ${url} does not accept that key.`;
  } else if (metadata.connection === true && error.kind === "env_error") {
    user_action = `Check ${base_url_hint(settings)}: nothing answers at ${url}. Start the server there, or point the setting at the right one.`;
  }
  if (user_action === undefined) return error;
  return new AirFailure({ ...error.error, user_action, metadata: { ...error.error.metadata, base_url: url } }, { cause: error });
}

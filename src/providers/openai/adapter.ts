import OpenAI from "openai";
import { air_failure, is_air_failure } from "../../contracts/errors.js";
import type { ModelRequest, ModelResponse } from "../../contracts/provider.js";
import type { CompleteOptions } from "../anthropic.js";
import { PROVIDER_ENV } from "../config.js";
import { REQUESTER_HEADER } from "../requester.js";
import { cancelled_failure, retry_policy, with_retries, type RetryPolicy } from "../retry.js";
import type { Secret } from "../secret.js";
import { ToolNameMap } from "../tool-names.js";
import { failure_from_openai_error, IncompleteStream, where_to_set, type OpenAIFailureContext } from "./failure.js";
import { ConversionLosses } from "./report.js";
import { to_chat_params, type ChatSettings } from "./request.js";
import { ChatStreamReader } from "./response.js";
import { checked_request } from "../adapter-common.js";

export type OpenAICompatibleAdapterOptions = {
  /** "openai", "openrouter", "openai_compatible": names the settings in error messages (OPENROUTER_API_KEY, …). */
  readonly provider_id: string;
  /** Undefined for a local server that needs none (Ollama, LM Studio): no Authorization header is sent. */
  readonly api_key: Secret | undefined;
  readonly model_id: string;
  /** The API root, ending in /v1 for most servers; default: the provider's own (PROVIDER_ENV in config.ts). */
  readonly base_url?: string;
  /** Sent with every request (OpenRouter's HTTP-Referer and X-Title, a proxy's own headers). */
  readonly headers?: Record<string, string>;
  readonly retry?: Partial<RetryPolicy>;
  /** Used when a request names no `max_tokens`; without either the server decides. */
  readonly default_max_tokens?: number;
  /** Per attempt; the SDK's default is ten minutes. */
  readonly timeout_ms?: number;
};

export type { CompleteOptions };

/** The configured base URL, else the provider's default; an env_error when there is neither or it is no http(s) URL. */
function base_url_of(options: OpenAICompatibleAdapterOptions): string {
  const defaults = (PROVIDER_ENV as Readonly<Record<string, { default_base_url?: string } | undefined>>)[options.provider_id];
  const base_url = options.base_url ?? defaults?.default_base_url;
  if (base_url !== undefined && URL.canParse(base_url) && ["http:", "https:"].includes(new URL(base_url).protocol)) return base_url;
  throw air_failure({
    kind: "env_error",
    message:
      base_url === undefined
        ? `provider "${options.provider_id}" has no base URL`
        : `the base URL of provider "${options.provider_id}" is not an http(s) URL: ${JSON.stringify(base_url)}`,
    retryability: "not_retryable",
    user_action: `Set ${where_to_set(options.provider_id, "base_url")} to the server's API root (e.g. http://localhost:11434/v1 for Ollama).`,
  });
}

/**
 * A model behind the Chat Completions API (OpenAI, OpenRouter, Ollama, LM Studio, vLLM, llama.cpp
 * server), always streamed. Canonical (Anthropic) messages are converted at this edge both ways, and the
 * response carries a conversion report of everything that could not be carried. Retries are ours (the
 * SDK's are off), as for the AnthropicAdapter; the key stays in a private field.
 */
export class OpenAICompatibleAdapter {
  readonly provider_id: string;
  readonly model_id: string;
  readonly #client: OpenAI;
  readonly #policy: RetryPolicy;
  readonly #settings: ChatSettings;
  readonly #failure_context: OpenAIFailureContext;

  constructor(options: OpenAICompatibleAdapterOptions) {
    this.provider_id = options.provider_id;
    this.model_id = options.model_id;
    this.#policy = retry_policy(options.retry);
    const base_url = base_url_of(options);
    this.#settings = {
      model_id: options.model_id,
      max_tokens_field: options.provider_id === "openai" ? "max_completion_tokens" : "max_tokens",
      default_max_tokens: options.default_max_tokens,
    };
    this.#failure_context = {
      provider_id: options.provider_id,
      model_id: options.model_id,
      base_url,
      has_key: options.api_key !== undefined,
      secrets: options.api_key === undefined ? [] : [options.api_key],
      now: this.#policy.now,
    };
    this.#client = new OpenAI({
      // The SDK refuses to start without a key; a keyless server gets none, the header is removed below.
      apiKey: options.api_key?.reveal() ?? "no-key",
      // Explicit nulls: otherwise the SDK reads OPENAI_ORG_ID, OPENAI_PROJECT_ID, … from the environment
      // and would send them to whatever server this is.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      baseURL: base_url,
      defaultHeaders: { ...options.headers, ...(options.api_key === undefined ? { Authorization: null } : {}) },
      maxRetries: 0,
      timeout: options.timeout_ms,
    });
  }

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const checked = checked_request(request);
    const names = new ToolNameMap(checked.tools?.map((tool) => tool.name) ?? []);
    const request_losses = new ConversionLosses();
    const params = to_chat_params(checked, names, this.#settings, request_losses);
    return with_retries(
      this.#policy,
      async () => {
        try {
          return await this.#attempt(params, names, request_losses.copy(), options);
        } catch (error) {
          throw failure_from_openai_error(error, this.#failure_context);
        }
      },
      { signal: options.signal, on_retry: options.on_retry },
    );
  }

  async #attempt(
    params: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
    names: ToolNameMap,
    losses: ConversionLosses,
    options: CompleteOptions,
  ): Promise<ModelResponse> {
    const stream = await this.#client.chat.completions.create(params, {
      headers: { [REQUESTER_HEADER]: options.requester },
      signal: options.signal,
    });
    const reader = new ChatStreamReader(this.provider_id, options.on_delta);
    try {
      for await (const chunk of stream) reader.read(chunk);
    } catch (error) {
      if (error instanceof OpenAI.APIError || is_air_failure(error)) throw error;
      // A cut connection ("terminated") or a chunk that is not JSON: the answer is incomplete.
      throw new IncompleteStream(error instanceof Error ? error.message : String(error));
    }
    // The SDK ends the iteration quietly when the signal aborts it.
    if (options.signal?.aborted) throw cancelled_failure(options.signal.reason);
    return reader.response(names, this.model_id, losses);
  }
}

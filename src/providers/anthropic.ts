import Anthropic from "@anthropic-ai/sdk";
import type { ModelDelta, ModelRequest, ModelResponse } from "../contracts/provider.js";
import { failure_from_error } from "./anthropic-failure.js";
import { to_message_params, type RequestShape } from "./anthropic-request.js";
import { ResponseStreamReader } from "./anthropic-response.js";
import { REQUESTER_HEADER } from "./requester.js";
import { retry_policy, with_retries, type RetryNotice, type RetryPolicy } from "./retry.js";
import type { Secret } from "./secret.js";
import { ToolNameMap } from "./tool-names.js";
import { checked_request } from "./adapter-common.js";

const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

export type AnthropicAdapterOptions = {
  readonly api_key: Secret;
  readonly model_id: string;
  /** Defaults to the Anthropic API; set for a compatible server or the scripted model server. */
  readonly base_url?: string;
  /** Used when a request names no `max_tokens` (the API requires one). */
  readonly default_max_tokens?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Per attempt; the SDK's default is ten minutes. */
  readonly timeout_ms?: number;
  /** Sent with every request (a proxy's own headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether the model caches prompts: then the conversation tail gets a breakpoint too. Default true. */
  readonly prompt_caching?: boolean;
  /** Extended thinking with this budget (≥ 1024 tokens), on top of each request's max_tokens. */
  readonly thinking_budget_tokens?: number;
  /** The model's output limit; max_tokens plus a thinking budget is cut to it. */
  readonly max_output_tokens?: number;
};

export type CompleteOptions = {
  /** Which agent asks: "main", "executor", … (sent as `x-air-requester`). */
  readonly requester: string;
  /** Streamed pieces. After `on_retry` the stream starts over from the first piece. */
  readonly on_delta?: (delta: ModelDelta) => void;
  readonly on_retry?: (notice: RetryNotice) => void;
  readonly signal?: AbortSignal;
};

/**
 * One Anthropic model over the Messages API, always streamed. Retries are ours (the SDK's are off):
 * bounded, with backoff and jitter, honouring `retry-after`, and visible to the caller through
 * `on_retry`. Every failure comes out as an AirFailure; the key stays in a private field.
 */
export class AnthropicAdapter {
  readonly provider_id = "anthropic";
  readonly model_id: string;
  readonly #client: Anthropic;
  readonly #secret: Secret;
  readonly #policy: RetryPolicy;
  readonly #shape: RequestShape;
  readonly #base_url: string;

  constructor(options: AnthropicAdapterOptions) {
    this.model_id = options.model_id;
    this.#secret = options.api_key;
    this.#policy = retry_policy(options.retry);
    this.#base_url = options.base_url ?? ANTHROPIC_DEFAULT_BASE_URL;
    this.#shape = {
      model_id: options.model_id,
      default_max_tokens: options.default_max_tokens ?? 8192,
      prompt_caching: options.prompt_caching ?? true,
      thinking_budget_tokens: options.thinking_budget_tokens,
      max_output_tokens: options.max_output_tokens,
    };
    this.#client = new Anthropic({
      apiKey: options.api_key.reveal(),
      // Otherwise the SDK would pick ANTHROPIC_AUTH_TOKEN from the environment and send it along too.
      authToken: null,
      baseURL: this.#base_url,
      defaultHeaders: options.headers,
      maxRetries: 0,
      timeout: options.timeout_ms,
    });
  }

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const checked = checked_request(request);
    const names = new ToolNameMap(checked.tools?.map((tool) => tool.name) ?? []);
    const params = to_message_params(checked, names, this.#shape);
    return this.#with_retries((attempt_signal) => this.#attempt(params, names, options, attempt_signal), options);
  }

  /**
   * The input tokens of `request` as the provider counts them (`POST /v1/messages/count_tokens`): system,
   * tools, messages and the thinking configuration, exactly as `complete` would send them.
   */
  async count_tokens(request: ModelRequest, options: Pick<CompleteOptions, "signal" | "on_retry"> = {}): Promise<number> {
    const checked = checked_request(request);
    const names = new ToolNameMap(checked.tools?.map((tool) => tool.name) ?? []);
    const { model, messages, system, tools, thinking } = to_message_params(checked, names, this.#shape);
    const counted = await this.#with_retries((signal) => this.#client.messages.countTokens({ model, messages, system, tools, thinking }, { signal }), options);
    return counted.input_tokens;
  }

  #with_retries<T>(attempt: (signal: AbortSignal | undefined) => Promise<T>, options: Pick<CompleteOptions, "signal" | "on_retry">): Promise<T> {
    const context = { secrets: [this.#secret], now: this.#policy.now, base_url: this.#base_url };
    return with_retries(
      this.#policy,
      async () => {
        try {
          return await attempt(options.signal);
        } catch (error) {
          throw failure_from_error(error, context);
        }
      },
      { signal: options.signal, on_retry: options.on_retry },
    );
  }

  async #attempt(params: Anthropic.MessageStreamParams, names: ToolNameMap, options: CompleteOptions, signal: AbortSignal | undefined): Promise<ModelResponse> {
    const stream = this.#client.messages.stream(params, {
      headers: { [REQUESTER_HEADER]: options.requester },
      signal,
    });
    const reader = new ResponseStreamReader(options.on_delta);
    try {
      for await (const event of stream) reader.read(event);
    } catch (error) {
      stream.abort();
      throw error;
    }
    // The iterator ends quietly when the stream errors between two reads; finalMessage() reports it.
    const message = await stream.finalMessage();
    return reader.response(message, names);
  }
}

import Anthropic from "@anthropic-ai/sdk";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { ModelRequest, type ModelDelta, type ModelResponse } from "../contracts/provider.js";
import { failure_from_error } from "./anthropic-failure.js";
import { to_message_params } from "./anthropic-request.js";
import { ResponseStreamReader } from "./anthropic-response.js";
import { REQUESTER_HEADER } from "./requester.js";
import { retry_policy, with_retries, type RetryNotice, type RetryPolicy } from "./retry.js";
import { Secret } from "./secret.js";
import { ToolNameMap } from "./tool-names.js";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

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
  readonly #default_max_tokens: number;

  constructor(options: AnthropicAdapterOptions) {
    this.model_id = options.model_id;
    this.#secret = options.api_key;
    this.#policy = retry_policy(options.retry);
    this.#default_max_tokens = options.default_max_tokens ?? 8192;
    this.#client = new Anthropic({
      apiKey: options.api_key.reveal(),
      // Otherwise the SDK would pick ANTHROPIC_AUTH_TOKEN from the environment and send it along too.
      authToken: null,
      baseURL: options.base_url ?? ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: options.timeout_ms,
    });
  }

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    const checked = v.safeParse(ModelRequest, request);
    if (!checked.success) {
      throw air_failure({
        kind: "system_error",
        message: `invalid model request: ${v.summarize(checked.issues)}`,
        retryability: "not_retryable",
      });
    }
    const names = new ToolNameMap(checked.output.tools?.map((tool) => tool.name) ?? []);
    const params = to_message_params(checked.output, names, this.model_id, this.#default_max_tokens);
    const context = { secrets: [this.#secret], now: this.#policy.now };
    return with_retries(
      this.#policy,
      async () => {
        try {
          return await this.#attempt(params, names, options);
        } catch (error) {
          throw failure_from_error(error, context);
        }
      },
      { signal: options.signal, on_retry: options.on_retry },
    );
  }

  async #attempt(params: Anthropic.MessageStreamParams, names: ToolNameMap, options: CompleteOptions): Promise<ModelResponse> {
    const stream = this.#client.messages.stream(params, {
      headers: { [REQUESTER_HEADER]: options.requester },
      signal: options.signal,
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

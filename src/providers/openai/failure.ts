import OpenAI from "openai";
import { air_failure, is_air_failure, type AirFailure, type Retryability } from "../../contracts/errors.js";
import { IncompleteStream, retry_after_ms } from "../anthropic-failure.js";
import { PROVIDER_ENV } from "../config.js";
import { cancelled_failure } from "../retry.js";
import { redact, type Secret } from "../secret.js";
import { network_code } from "../adapter-common.js";

export { IncompleteStream };

/** What an error message needs to name the setting that fixes it. */
export type OpenAIFailureContext = {
  readonly provider_id: string;
  readonly model_id: string;
  readonly base_url: string;
  /** False for a keyless local server: a 401 then means the server wants one. */
  readonly has_key: boolean;
  readonly secrets: readonly Secret[];
  readonly now: () => number;
};

/**
 * Where the user sets a provider's key or base URL: its environment variable where it has one
 * (PROVIDER_ENV), and always models.yaml.
 */
export function where_to_set(provider_id: string, setting: "api_key" | "base_url"): string {
  const env = (PROVIDER_ENV as Readonly<Record<string, { key?: string; base_url?: string } | undefined>>)[provider_id];
  const variable = setting === "api_key" ? env?.key : env?.base_url;
  const file = `${setting} under providers.${provider_id} in ~/.air/models.yaml`;
  return variable === undefined ? file : `${variable} (or ${file})`;
}

/** Connection failures that no retry fixes: nothing listens there, or the host name does not resolve. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_NONAME"]);

/** In-stream error types that say the request itself is wrong. */
const REQUEST_ERROR_TYPES = new Set(["invalid_request_error", "authentication_error", "permission_error", "not_found_error"]);

function retryability_of_status(status: number): Retryability {
  if (status === 408 || status === 409 || status === 429 || status >= 500) return "retryable";
  return "not_retryable";
}

/**
 * Any error of one attempt as the AirFailure the retry loop and the caller act on, naming the setting
 * that fixes it (the key variable, models.yaml, the base URL, the model id). Messages from the SDK and
 * the server are redacted: a compatible server may echo the request, key included.
 */
export function failure_from_openai_error(error: unknown, context: OpenAIFailureContext): AirFailure {
  if (is_air_failure(error)) return error;
  const clean = (text: string) => redact(text, context.secrets);
  const base = { provider_id: context.provider_id, base_url: context.base_url };

  if (error instanceof OpenAI.APIUserAbortError) return cancelled_failure(error);
  if (error instanceof OpenAI.APIConnectionError) return connection_failure(error, context, clean);
  if (error instanceof OpenAI.APIError) return api_failure(error, context, clean);
  if (error instanceof IncompleteStream) {
    return air_failure(
      {
        kind: "provider_error",
        message: `the model's response stream broke off: ${clean(error.message)}`,
        retryability: "retryable",
        user_action: `air retries by itself; if this persists, check the network or the server at ${context.base_url}.`,
        metadata: { ...base, broken_stream: true },
      },
      error,
    );
  }
  return air_failure(
    {
      kind: "provider_error",
      message: `the model request failed: ${clean(error instanceof Error ? error.message : String(error))}`,
      retryability: "unknown",
      metadata: base,
    },
    error,
  );
}

function connection_failure(error: InstanceType<typeof OpenAI.APIConnectionError>, context: OpenAIFailureContext, clean: (text: string) => string): AirFailure {
  const code = network_code(error.cause);
  const detail = `${clean(error.message)}${code === undefined ? "" : ` (${code})`}`;
  const base = { provider_id: context.provider_id, base_url: context.base_url, connection: true, ...(code === undefined ? {} : { code }) };
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return air_failure(
      {
        kind: "env_error",
        message: `no model server answers at ${context.base_url}: ${detail}`,
        retryability: "not_retryable",
        user_action: `Check the base URL, ${where_to_set(context.provider_id, "base_url")}, and that the server is running there.`,
        metadata: base,
      },
      error,
    );
  }
  return air_failure(
    {
      kind: "provider_error",
      message: `cannot reach the model server at ${context.base_url}: ${detail}`,
      retryability: "retryable",
      user_action: `Check the network and the server at ${context.base_url}; air retries by itself.`,
      metadata: base,
    },
    error,
  );
}

/** The server's own words: the message of an error body, labelled with status and type. */
function server_message_of(error: InstanceType<typeof OpenAI.APIError>): string {
  const inner = (error.error as { message?: unknown } | undefined)?.message;
  if (typeof inner !== "string") return error.message;
  const label = [error.status, error.type ?? error.code].filter((part) => part !== undefined && part !== null).join(" ");
  return label === "" ? inner : `${label}: ${inner}`;
}

function api_failure(error: InstanceType<typeof OpenAI.APIError>, context: OpenAIFailureContext, clean: (text: string) => string): AirFailure {
  const status = error.status;
  const type = error.type ?? undefined;
  // No status: the server sent an error object in the middle of the stream.
  const retryability: Retryability =
    status === undefined ? (type !== undefined && REQUEST_ERROR_TYPES.has(type) ? "not_retryable" : "retryable") : retryability_of_status(status);
  const wait = retry_after_ms(error.headers, context.now);
  const server_says = clean(server_message_of(error));
  const model_unknown = status === 404;
  return air_failure(
    {
      kind: "provider_error",
      message: model_unknown
        ? `the server at ${context.base_url} does not know model "${context.model_id}" (or has no Chat Completions API there): ${server_says}`
        : `the model server refused the request: ${server_says}`,
      retryability,
      user_action: user_action_of(status, retryability, context),
      metadata: {
        provider_id: context.provider_id,
        base_url: context.base_url,
        model_id: context.model_id,
        ...(status === undefined ? { during_stream: true } : { status }),
        ...(type === undefined ? {} : { error_type: type }),
        ...(typeof error.code === "string" ? { error_code: error.code } : {}),
        ...(wait === undefined ? {} : { retry_after_ms: wait }),
        ...(error.requestID ? { request_id: error.requestID } : {}),
      },
    },
    error,
  );
}

function user_action_of(status: number | undefined, retryability: Retryability, context: OpenAIFailureContext): string {
  if (status === 401 || status === 403) {
    const key = where_to_set(context.provider_id, "api_key");
    return context.has_key
      ? `Check ${key}: it must be a valid key for the server at ${context.base_url}.`
      : `The server at ${context.base_url} wants an API key: set ${key}.`;
  }
  if (status === 404) {
    return (
      `Check the model id "${context.model_id}" against the models the server serves (Ollama: \`ollama list\`), ` +
      `and that the base URL ${context.base_url} is the root of its OpenAI-compatible API (it usually ends in /v1): ${where_to_set(context.provider_id, "base_url")}.`
    );
  }
  if (retryability === "retryable") return "air retries by itself; if this persists, the provider is overloaded or down.";
  return "This request cannot succeed as it is; see the message for what the server rejected.";
}

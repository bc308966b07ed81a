import Anthropic from "@anthropic-ai/sdk";
import { air_failure, is_air_failure, type AirFailure, type Retryability } from "../contracts/errors.js";
import { cancelled_failure } from "./retry.js";
import { redact, type Secret } from "./secret.js";
import { network_code } from "./adapter-common.js";

/** The provider answered, but not with a complete message: the stream stopped early or made no sense. */
export class IncompleteStream extends Error {
  override readonly name = "IncompleteStream";
}

export type FailureContext = {
  readonly secrets: readonly Secret[];
  readonly now: () => number;
  /** The server the adapter talks to, named when it cannot be reached. */
  readonly base_url: string;
};

/** Connection failures no retry fixes: nothing listens there, or the host name does not resolve. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_NONAME"]);

const KEY_ACTION =
  "Check ANTHROPIC_API_KEY (or api_key under providers.anthropic in ~/.air/models.yaml): it must be a valid key for the server at ANTHROPIC_BASE_URL.";

/** Error types the API uses in its bodies and in a mid-stream `error` event, by what a retry can do. */
const RETRYABLE_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

function retryability_of_status(status: number): Retryability {
  if (status === 408 || status === 409 || status === 429 || status >= 500) return "retryable";
  return "not_retryable";
}

/** `{ type: "error", error: { type, message } }`, the body of every Anthropic error. */
function error_type_of(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const inner = (body as { error?: unknown }).error;
  if (typeof inner === "object" && inner !== null && typeof (inner as { type?: unknown }).type === "string") {
    return (inner as { type: string }).type;
  }
  return undefined;
}

/** The server's own words: the inner message of an error body, else what the SDK made of it. */
function server_message_of(error: InstanceType<typeof Anthropic.APIError>): string {
  const body = error.error as { error?: { message?: unknown } } | undefined;
  const inner = body?.error?.message;
  if (typeof inner !== "string") return error.message;
  const label = [error.status, error_type_of(body)].filter((part) => part !== undefined).join(" ");
  return label === "" ? inner : `${label}: ${inner}`;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retry_after_ms(headers: Headers | undefined, now: () => number): number | undefined {
  if (headers === undefined) return undefined;
  const millis = headers.get("retry-after-ms");
  if (millis !== null && Number.isFinite(Number(millis)) && millis.trim() !== "") return Math.max(0, Number(millis));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * Any error of one attempt as the AirFailure the retry loop and the caller act on. Messages from the
 * SDK and the server are redacted: a compatible server may echo the request, key included.
 */
export function failure_from_error(error: unknown, context: FailureContext): AirFailure {
  if (is_air_failure(error)) return error;
  const clean = (text: string) => redact(text, context.secrets);

  if (error instanceof Anthropic.APIUserAbortError) return cancelled_failure(error);

  if (error instanceof Anthropic.APIConnectionError) return connection_failure(error, context, clean);

  if (error instanceof Anthropic.APIError) {
    const type = error_type_of(error.error);
    const status = error.status;
    // No status: the server sent an `error` event in the middle of a stream (typically overloaded_error).
    const retryability: Retryability =
      status === undefined ? (type !== undefined && !RETRYABLE_TYPES.has(type) ? "not_retryable" : "retryable") : retryability_of_status(status);
    const wait = retry_after_ms(error.headers, context.now);
    const auth = status === 401 || status === 403 || type === "authentication_error" || type === "permission_error";
    return air_failure(
      {
        kind: "provider_error",
        message: `the model server refused the request: ${clean(server_message_of(error))}`,
        retryability,
        user_action: auth
          ? KEY_ACTION
          : retryability === "retryable"
            ? "air retries by itself; if this persists, the provider is overloaded or down."
            : "This request cannot succeed as it is; see the message for what the server rejected.",
        metadata: {
          provider_id: "anthropic",
          ...(status === undefined ? { during_stream: true } : { status }),
          ...(type === undefined ? {} : { error_type: type }),
          ...(wait === undefined ? {} : { retry_after_ms: wait }),
          ...(error.requestID ? { request_id: error.requestID } : {}),
        },
      },
      error,
    );
  }

  // The SDK's MessageStream wraps whatever breaks a stream in an AnthropicError: a cut connection
  // ("terminated"), an unparseable event, events out of order.
  if (error instanceof IncompleteStream || error instanceof Anthropic.AnthropicError) {
    return broken_stream(clean(error.message), error);
  }

  return air_failure(
    {
      kind: "provider_error",
      message: `the model request failed: ${clean(error instanceof Error ? error.message : String(error))}`,
      retryability: "unknown",
      metadata: { provider_id: "anthropic" },
    },
    error,
  );
}

function connection_failure(error: InstanceType<typeof Anthropic.APIConnectionError>, context: FailureContext, clean: (text: string) => string): AirFailure {
  const code = network_code(error.cause);
  const detail = `${clean(error.message)}${code === undefined ? "" : ` (${code})`}`;
  const metadata = { provider_id: "anthropic", base_url: context.base_url, connection: true, ...(code === undefined ? {} : { code }) };
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return air_failure(
      {
        kind: "env_error",
        message: `no model server answers at ${context.base_url}: ${detail}`,
        retryability: "not_retryable",
        user_action: "Check ANTHROPIC_BASE_URL (or base_url under providers.anthropic in ~/.air/models.yaml) and that the server is running there.",
        metadata,
      },
      error,
    );
  }
  return air_failure(
    {
      kind: "provider_error",
      message: `cannot reach the model server at ${context.base_url}: ${detail}`,
      retryability: "retryable",
      user_action: "Check the network and ANTHROPIC_BASE_URL; air retries by itself.",
      metadata,
    },
    error,
  );
}

function broken_stream(why: string, cause: unknown): AirFailure {
  return air_failure(
    {
      kind: "provider_error",
      message: `the model's response stream broke off: ${why}`,
      retryability: "retryable",
      user_action: "air retries by itself; if this persists, check the network or the server at ANTHROPIC_BASE_URL.",
      metadata: { provider_id: "anthropic", broken_stream: true },
    },
    cause,
  );
}

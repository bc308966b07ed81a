import type { Exchange } from "./exchange.js";

/** What `GET /v1/models` lists when the server is given no list. */
export const SCRIPTED_MODELS: readonly string[] = ["scripted-model"];

/**
 * `GET /v1/models` (and `/models`) in the shape of whichever API asked: the Anthropic SDK sends
 * `anthropic-version`, the OpenAI SDK does not. Uses no turn of the script: a model list is not a turn.
 */
export function answer_models(exchange: Exchange, models: readonly string[], api_key: string | undefined): void {
  const anthropic = exchange.header("anthropic-version") !== undefined;
  exchange.api = anthropic ? "anthropic_messages" : "openai_chat";
  if (api_key !== undefined) {
    if (anthropic && exchange.header("x-api-key") !== api_key) return exchange.reject(401, "authentication_error", "invalid x-api-key");
    if (!anthropic && exchange.header("authorization") !== `Bearer ${api_key}`) {
      return exchange.reject(401, "invalid_request_error", "Incorrect API key provided (Authorization: Bearer <key>)", undefined, "invalid_api_key");
    }
  }
  exchange.record({ kind: "models", count: models.length });
  if (anthropic) {
    const data = models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" }));
    return exchange.json(200, { data, has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null });
  }
  return exchange.json(200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 1735689600, owned_by: "scripted" })) });
}

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { air_failure } from "../../contracts/errors.js";
import { default_redactor } from "../../permissions/secret-redactor.js";
import type { ProviderId } from "../../providers/config.js";

/** Where to ask, and with which key; what the wizard is about to write, before it is written. */
export type ModelListTarget = {
  readonly provider_id: ProviderId;
  readonly base_url: string;
  readonly api_key: string | undefined;
};

/** OpenRouter lists hundreds; a select longer than this is of no use, the user can type any id instead. */
const MAX_MODELS = 200;
const TIMEOUT_MS = 15_000;

async function anthropic_models(target: ModelListTarget, signal: AbortSignal | undefined): Promise<string[]> {
  // authToken null: the SDK would otherwise add ANTHROPIC_AUTH_TOKEN from the environment.
  const client = new Anthropic({ apiKey: target.api_key ?? null, authToken: null, baseURL: target.base_url, maxRetries: 0, timeout: TIMEOUT_MS });
  const ids: string[] = [];
  for await (const model of client.models.list({ limit: 100 }, { signal })) {
    ids.push(model.id);
    if (ids.length >= MAX_MODELS) break;
  }
  return ids;
}

async function openai_models(target: ModelListTarget, signal: AbortSignal | undefined): Promise<string[]> {
  // As the adapter does: nulls keep OPENAI_ORG_ID & co. from the environment off this server.
  const client = new OpenAI({
    apiKey: target.api_key ?? "no-key",
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL: target.base_url,
    defaultHeaders: target.api_key === undefined ? { Authorization: null } : {},
    maxRetries: 0,
    timeout: TIMEOUT_MS,
  });
  const ids: string[] = [];
  for await (const model of client.models.list({ signal })) {
    ids.push(model.id);
    if (ids.length >= MAX_MODELS) break;
  }
  return ids;
}

function status_of(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : undefined;
}

/**
 * The provider's models, through the real SDK against the configured base URL: the cheapest call that
 * proves the URL answers and the key is accepted. Sorted, so the list reads the same each time.
 */
export async function list_models(target: ModelListTarget, signal?: AbortSignal): Promise<string[]> {
  try {
    const ids = target.provider_id === "anthropic" ? await anthropic_models(target, signal) : await openai_models(target, signal);
    return [...new Set(ids)].sort();
  } catch (error) {
    const status = status_of(error);
    const why =
      status === 401 || status === 403
        ? "the server does not accept this key"
        : status !== undefined
          ? `the server answered ${status}`
          : "nothing answers there";
    // An SDK message may quote the request; the key must not reach the screen through it.
    const detail = default_redactor().redact(error instanceof Error ? error.message : String(error));
    throw air_failure({
      kind: status === undefined ? "env_error" : "provider_error",
      message: `cannot list the models of ${target.provider_id} at ${target.base_url}: ${why} (${detail})`,
      retryability: "retryable_after_change",
      user_action: status === 401 || status === 403 ? "Check the key and enter it again." : `Check that the server runs at ${target.base_url}.`,
      metadata: { provider_id: target.provider_id, base_url: target.base_url, ...(status === undefined ? {} : { status }) },
    });
  }
}

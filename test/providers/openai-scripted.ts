/**
 * Shared by the OpenAICompatibleAdapter tests: an adapter pointed at a scripted model server's Chat
 * Completions endpoint, tools to offer, and reply turns written in canonical content.
 */
import { expect } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import type { ContentBlock } from "../../src/contracts/provider.js";
import { OpenAICompatibleAdapter, type OpenAICompatibleAdapterOptions } from "../../src/providers/openai/adapter.js";
import type { TurnInput } from "../../src/providers/scripted/script.js";
import type { ScriptedServer } from "../../src/providers/scripted/server.js";
import { Secret } from "../../src/providers/secret.js";
import { instant_retries } from "./scripted.js";

export const OPENAI_KEY = "sk-openai-test-0123456789abcdef";

export function openai_adapter_for(server: ScriptedServer, options: Partial<OpenAICompatibleAdapterOptions> = {}): OpenAICompatibleAdapter {
  return new OpenAICompatibleAdapter({
    provider_id: "openrouter",
    api_key: new Secret(OPENAI_KEY),
    base_url: `${server.url}/v1`,
    model_id: "gpt-test",
    retry: instant_retries().policy,
    ...options,
  });
}

export async function failure_of(work: Promise<unknown>): Promise<AirFailure> {
  const error = await work.then(
    () => {
      throw new Error("expected an AirFailure, the call succeeded");
    },
    (thrown: unknown) => thrown,
  );
  expect(is_air_failure(error), String(error)).toBe(true);
  return error as AirFailure;
}

const tool = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: "object", properties, required: Object.keys(properties) },
});
export const READ = tool("fs.read", { path: { type: "string" } });
export const WRITE = tool("fs.write", { path: { type: "string" }, content: { type: "string" } });
export const IMAGE = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" } };

/** A reply turn; script content is canonical content, so the blocks a test expects back are the blocks it scripts. */
export const reply = (content: ContentBlock[], extra: Record<string, unknown> = {}): TurnInput => ({ reply: { content, ...extra } }) as TurnInput;
export const text_reply = (text: string, extra: Record<string, unknown> = {}) => reply([{ type: "text", text }], extra);

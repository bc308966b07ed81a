/**
 * ProviderManager over the wire: the adapter picked by provider, a session's capabilities, requests the
 * model cannot take refused before anything reaches the server, and failures whose action names the exact
 * setting behind them (the key's variable or file, the base URL's).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import type { ModelRequest } from "../../src/contracts/provider.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";
import { ask, instant_retries, scripted_server } from "./scripted.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const KEY = "sk-ant-manager-test-0123456789";
const OK = { reply: { content: [{ type: "text" as const, text: "ok" }] } };
const READ_TOOL = { name: "fs.read", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } };

function home_with(text?: string): string {
  const home = dirs.make("air-home-");
  if (text !== undefined) fs.writeFileSync(path.join(home, "models.yaml"), text);
  return home;
}

async function failure_of(work: Promise<unknown>): Promise<AirFailure> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(is_air_failure(error), String(error)).toBe(true);
  return error as AirFailure;
}

/** A manager for Anthropic at `url`, the key in ANTHROPIC_API_KEY, models.yaml holding `text`. */
function anthropic_manager(url: string, text?: string, env: NodeJS.ProcessEnv = {}): ProviderManager {
  return ProviderManager.load({ home: home_with(text), env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: url, ...env }, retry: instant_retries().policy });
}

describe("a session's model", () => {
  it("carries its capabilities, and count_tokens where the provider counts", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const session = anthropic_manager(server.url).for_session("claude-haiku-4-5");

    expect(session).toMatchObject({
      provider_id: "anthropic",
      model_id: "claude-haiku-4-5",
      capabilities: { quality_tier: "standard", context_window: 200_000 },
    });
    expect(await session.count_tokens?.(ask("count me"))).toBeGreaterThan(0);
    expect(server.requests()[0]?.path).toBe("/v1/messages/count_tokens");
  });

  it("has no count_tokens when models.yaml says the model cannot count", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const session = anthropic_manager(server.url, "models:\n  claude-haiku-4-5:\n    supports: { count_tokens: false }\n").for_session("claude-haiku-4-5");

    expect(session.count_tokens).toBeUndefined();
  });

  it("asks for extended thinking when models.yaml gives the model a budget", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await anthropic_manager(server.url, "models:\n  claude-sonnet-4-5:\n    thinking_budget_tokens: 2048\n")
      .for_session()
      .complete(ask("think", { max_tokens: 1000 }), { requester: "main" });

    expect(server.requests()[0]?.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 2048 }, max_tokens: 3048 });
  });

  it("refuses a thinking budget for a model that does not think, before any session starts", () => {
    const home = home_with("models:\n  claude-haiku-4-5:\n    thinking_budget_tokens: 2048\n    supports: { thinking: false }\n");
    const manager = ProviderManager.load({ home, env: { ANTHROPIC_API_KEY: KEY, AIR_MODEL: "claude-haiku-4-5" } });

    const failure = expect_air_failure(() => manager.require_configured());

    expect(failure.kind).toBe("model_capability_error");
    expect(failure.error.user_action).toBe(`Remove or lower thinking_budget_tokens of claude-haiku-4-5 in ${path.join(home, "models.yaml")}.`);
  });

  it("keeps a resumed session's provider and model", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });
    const manager = anthropic_manager(server.url, undefined, { OPENAI_API_KEY: "sk-openai-000000000" });

    const session = manager.for_session("gpt-4o", "openai");

    expect(session).toMatchObject({ provider_id: "openai", model_id: "gpt-4o", capabilities: { context_window: 128_000 } });
    expect(session.count_tokens).toBeUndefined();
    expect(expect_air_failure(() => manager.for_session("m", "gemini")).message).toBe('unknown model provider: "gemini"');
  });
});

describe("a model's context window, for the HUD", () => {
  it("is the capability matrix's for a known family, and models.yaml's correction for another model", () => {
    const manager = anthropic_manager("http://127.0.0.1:9", "models:\n  my-local:\n    context_window: 65536\n");

    expect(manager.context_window("claude-haiku-4-5", "anthropic")).toBe(200_000);
    expect(manager.context_window("gpt-4o", "openai")).toBe(128_000);
    expect(manager.context_window("my-local", "anthropic")).toBe(65_536);
    expect(manager.context_window()).toBe(200_000);
  });

  it("is unknown for a model no family matches and no models.yaml describes", () => {
    const manager = anthropic_manager("http://127.0.0.1:9");

    expect(manager.context_window("someones-model", "anthropic")).toBeUndefined();
    expect(manager.context_window("claude-haiku-4-5", "no-such-provider")).toBeUndefined();
  });
});

describe("a request the model cannot take is refused before any network call", () => {
  it("tools, for a model without tool use: a model_capability_error naming a model that can and the correction", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const home_text = "models:\n  claude-haiku-4-5:\n    supports: { tools: false }\n";
    const manager = anthropic_manager(server.url, home_text, { AIR_MODEL: "claude-haiku-4-5" });

    const failure = await failure_of(manager.for_session().complete(ask("read it", { tools: [READ_TOOL] }), { requester: "main" }));

    expect(server.requests()).toHaveLength(0);
    expect(failure.kind).toBe("model_capability_error");
    expect(failure.error.retryability).toBe("retryable_after_change");
    expect(failure.message).toBe("model claude-haiku-4-5 (anthropic) cannot take this request: it does not call tools and the request offers 1");
    expect(failure.error.user_action).toMatch(
      /^Start a new session with a model that can, e\.g\. claude-sonnet-4-5 or claude-opus-4-5 \(AIR_MODEL, or default_model in .*models\.yaml\)/,
    );
    expect(failure.error.user_action).toContain('models: { "claude-haiku-4-5": { supports: { tools: true } } }');
    expect(failure.error.metadata).toMatchObject({ capability: "tools", model_id: "claude-haiku-4-5" });
  });

  it("images, for a model that sees none", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const manager = anthropic_manager(server.url, undefined, { AIR_MODEL: "some-text-model" });
    const request: ModelRequest = {
      purpose: "answer",
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "text", text: "what is it?" },
          ],
        },
      ],
    };

    const failure = await failure_of(manager.for_session().complete(request, { requester: "main" }));

    expect(server.requests()).toHaveLength(0);
    expect(failure.error.metadata).toMatchObject({ capability: "vision" });
    expect(failure.message).toContain("it does not read images");
  });

  it("a request larger than the context window", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const manager = anthropic_manager(server.url, "models:\n  claude-sonnet-4-5:\n    context_window: 1000\n");

    const failure = await failure_of(manager.for_session().complete(ask("x".repeat(8000)), { requester: "main" }));

    expect(server.requests()).toHaveLength(0);
    expect(failure.error.metadata).toMatchObject({ capability: "context_window" });
    expect(failure.message).toContain("its context window is 1000");
  });

  it("a local model without tools, over the OpenAI-compatible API: only the correction to offer", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const home = home_with(
      `providers:\n  openai_compatible:\n    base_url: ${server.url}/v1\n    default_model: tiny-llm\nmodels:\n  tiny-llm:\n    supports: { tools: false }\n`,
    );

    const failure = await failure_of(
      ProviderManager.load({ home, env: {} })
        .for_session()
        .complete(ask("read", { tools: [READ_TOOL] }), { requester: "main" }),
    );

    expect(server.requests()).toHaveLength(0);
    expect(failure.error.user_action).toMatch(/^Start a new session with a model that can \(AIR_MODEL/);
  });
});

describe("the OpenAI-compatible providers", () => {
  it("an openai_compatible server without a key is reached over Chat Completions", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "local hello" }] } }] } } });
    const home = home_with(
      `providers:\n  openai_compatible:\n    base_url: ${server.url}/v1\n    default_model: qwen2.5-coder:32b\n    headers: { X-Proxy: lab }\n`,
    );

    const response = await ProviderManager.load({ home, env: {}, retry: instant_retries().policy }).for_session().complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "local hello" }]);
    const [request] = server.requests();
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers["x-proxy"]).toBe("lab");
    expect(request?.body).toMatchObject({ model: "qwen2.5-coder:32b" });
  });

  it("OpenRouter's key comes from OPENROUTER_API_KEY, and a 401 says to check it", async () => {
    const server = await scripted_server({ api_key: "sk-or-right-000000000", script: { turns: { main: [OK] } } });
    const home = home_with(`providers:\n  openrouter:\n    base_url: ${server.url}/v1\n`);
    const manager = ProviderManager.load({ home, env: { OPENROUTER_API_KEY: "sk-or-wrong-111111111" }, retry: instant_retries().policy });

    const failure = await failure_of(manager.for_session().complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.metadata).toMatchObject({ status: 401 });
    expect(failure.error.user_action).toBe(`Check OPENROUTER_API_KEY: the server at ${server.url}/v1 does not accept that key.`);
    expect(JSON.stringify(failure.error)).not.toContain("sk-or-wrong-111111111");
    expect(server.requests()).toHaveLength(1);
  });
});

describe("failures name the setting that fixes them", () => {
  it("a 401 for a key from ANTHROPIC_API_KEY says to check ANTHROPIC_API_KEY", async () => {
    const server = await scripted_server({ api_key: "sk-ant-the-right-one-00000", script: { turns: { main: [OK] } } });

    const failure = await failure_of(anthropic_manager(server.url).for_session().complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.user_action).toBe(`Check ANTHROPIC_API_KEY: the server at ${server.url} does not accept that key.`);
    expect(JSON.stringify(failure.error)).not.toContain(KEY);
  });

  it("a 401 for a key from models.yaml names the file", async () => {
    const server = await scripted_server({ api_key: "sk-ant-the-right-one-00000", script: { turns: { main: [OK] } } });
    const home = home_with(`providers:\n  anthropic:\n    api_key: ${KEY}\n    base_url: ${server.url}\n`);

    const failure = await failure_of(
      ProviderManager.load({ home, env: {}, retry: instant_retries().policy }).for_session().complete(ask("hi"), { requester: "main" }),
    );

    expect(failure.error.user_action).toBe(
      `Check api_key under providers.anthropic in ${path.join(home, "models.yaml")}: the server at ${server.url} does not accept that key.`,
    );
  });

  it("a server that refuses the connection is an env_error naming the URL and the variable that set it", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });
    const manager = anthropic_manager(server.url);
    await server.close();

    const failure = await failure_of(manager.for_session().complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toContain(`no model server answers at ${server.url}`);
    expect(failure.error.user_action).toBe(
      `Check ANTHROPIC_BASE_URL: nothing answers at ${server.url}. Start the server there, or point the setting at the right one.`,
    );
  });

  it("a local server that is not running names base_url in models.yaml", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });
    const home = home_with(`providers:\n  openai_compatible:\n    base_url: ${server.url}/v1\n    default_model: m\n`);
    const manager = ProviderManager.load({ home, env: {}, retry: instant_retries().policy });
    await server.close();

    const failure = await failure_of(manager.for_session().complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("env_error");
    expect(failure.error.user_action).toBe(
      `Check base_url under providers.openai_compatible in ${path.join(home, "models.yaml")}: nothing answers at ${server.url}/v1. Start the server there, or point the setting at the right one.`,
    );
  });
});

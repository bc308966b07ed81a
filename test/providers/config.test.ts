/**
 * Where the provider settings come from (environment over ~/.air/models.yaml, setting by setting), what
 * a broken models.yaml or a missing key looks like, and that the key never shows in anything that
 * could end up in an event or a log.
 */
import fs from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL_ID, load_provider_settings } from "../../src/providers/config.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";
import { ask, instant_retries, scripted_server } from "./scripted.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const FILE_KEY = "sk-ant-from-the-file-0000000000";
const ENV_KEY = "sk-ant-from-the-env-1111111111";

/** A fresh air home, with models.yaml holding `text` if given. */
function home_with(text?: string): string {
  const home = dirs.make("air-home-");
  if (text !== undefined) fs.writeFileSync(path.join(home, "models.yaml"), text);
  return home;
}

const FULL_FILE = `default_model: claude-opus-4-1\nproviders:\n  anthropic:\n    api_key: ${FILE_KEY}\n    base_url: https://models.example.com\n`;

describe("load_provider_settings", () => {
  it("takes key, base URL and model from the environment", () => {
    const settings = load_provider_settings({
      home: home_with(),
      env: { ANTHROPIC_API_KEY: ENV_KEY, ANTHROPIC_BASE_URL: "http://127.0.0.1:9999", AIR_MODEL: "claude-haiku-4-5" },
    });

    expect(settings.api_key?.reveal()).toBe(ENV_KEY);
    expect(settings.base_url).toBe("http://127.0.0.1:9999");
    expect(settings.model_id).toBe("claude-haiku-4-5");
    expect(settings.sources).toEqual({ api_key: "env:ANTHROPIC_API_KEY", base_url: "env:ANTHROPIC_BASE_URL", model_id: "env:AIR_MODEL" });
  });

  it("takes them from models.yaml when the environment has none", () => {
    const settings = load_provider_settings({ home: home_with(FULL_FILE), env: {} });

    expect(settings.api_key?.reveal()).toBe(FILE_KEY);
    expect(settings.base_url).toBe("https://models.example.com");
    expect(settings.model_id).toBe("claude-opus-4-1");
    expect(settings.sources).toEqual({ api_key: "models.yaml", base_url: "models.yaml", model_id: "models.yaml" });
  });

  it("lets the environment win, setting by setting", () => {
    const settings = load_provider_settings({ home: home_with(FULL_FILE), env: { ANTHROPIC_API_KEY: ENV_KEY, ANTHROPIC_BASE_URL: "" } });

    expect(settings.api_key?.reveal()).toBe(ENV_KEY);
    // An empty variable counts as unset.
    expect(settings.base_url).toBe("https://models.example.com");
    expect(settings.model_id).toBe("claude-opus-4-1");
  });

  it("falls back to the default model and the Anthropic API", () => {
    const settings = load_provider_settings({ home: home_with(""), env: { ANTHROPIC_API_KEY: ENV_KEY } });

    expect(settings.model_id).toBe(DEFAULT_MODEL_ID);
    expect(settings.base_url).toBeUndefined();
    expect(settings.sources.model_id).toBe("default");
  });

  it("finds models.yaml in AIR_HOME", () => {
    const home = home_with(FULL_FILE);

    const settings = load_provider_settings({ env: { AIR_HOME: home } });

    expect(settings.models_file).toBe(path.join(home, "models.yaml"));
    expect(settings.api_key?.reveal()).toBe(FILE_KEY);
  });

  it("has no key when neither the environment nor a file names one", () => {
    expect(load_provider_settings({ home: home_with(), env: {} }).api_key).toBeUndefined();
  });
});

describe("a broken models.yaml", () => {
  it("that is not YAML is a user_error naming the file, even when the environment has everything", () => {
    const home = home_with(`providers:\n  anthropic:\n    api_key: ${FILE_KEY}: oops\n  - broken\n`);

    const failure = expect_air_failure(() => load_provider_settings({ home, env: { ANTHROPIC_API_KEY: ENV_KEY } }));

    expect(failure.kind).toBe("user_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain(path.join(home, "models.yaml"));
    expect(failure.message).toContain("not valid YAML");
    expect(failure.error.user_action).toContain("providers:");
    expect(JSON.stringify(failure.error)).not.toContain(FILE_KEY);
  });

  it("with a misspelt key says where", () => {
    const home = home_with(`providers:\n  anthropic:\n    apikey: ${FILE_KEY}\n`);

    const failure = expect_air_failure(() => load_provider_settings({ home, env: {} }));

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toContain("providers.anthropic.apikey: unknown key");
    expect(JSON.stringify(failure.error)).not.toContain(FILE_KEY);
  });

  it("with a value of the wrong type says what was expected, never the value", () => {
    const home = home_with("providers:\n  anthropic:\n    api_key: 1234567890123\n    base_url: not a url\n");

    const failure = expect_air_failure(() => load_provider_settings({ home, env: {} }));

    expect(failure.message).toContain("providers.anthropic.api_key: expected string");
    expect(failure.message).toContain("providers.anthropic.base_url");
    expect(failure.message).not.toContain("1234567890123");
  });

  it("that is a list instead of a mapping is refused", () => {
    const failure = expect_air_failure(() => load_provider_settings({ home: home_with("- anthropic\n"), env: {} }));

    expect(failure.message).toContain("it must be a mapping (key: value lines) at the top level");
  });
});

describe("an invalid ANTHROPIC_BASE_URL", () => {
  it("is an env_error naming the variable", () => {
    const failure = expect_air_failure(() => load_provider_settings({ home: home_with(), env: { ANTHROPIC_BASE_URL: "localhost 8080" } }));

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toContain("ANTHROPIC_BASE_URL");
  });
});

describe("ProviderManager", () => {
  it("without a key anywhere, says exactly how to configure one", () => {
    const home = home_with();
    const manager = ProviderManager.load({ home, env: {} });

    const failure = expect_air_failure(() => manager.require_configured());

    expect(manager.is_configured()).toBe(false);
    expect(failure.kind).toBe("env_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.user_action).toBe(
      "Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for an Anthropic-compatible server), " +
        `or write ${path.join(home, "models.yaml")}, for example:\n\n` +
        "default_model: claude-sonnet-4-5\n" +
        "providers:\n" +
        "  anthropic:\n" +
        "    api_key: sk-ant-...\n" +
        "    base_url: https://api.anthropic.com   # optional: an Anthropic-compatible server\n",
    );
    expect(expect_air_failure(() => manager.for_session()).kind).toBe("env_error");
  });

  it("describes the configured provider without its key", () => {
    const manager = ProviderManager.load({ home: home_with(FULL_FILE), env: {} });

    const description = manager.require_configured();

    expect(description).toEqual({
      provider_id: "anthropic",
      model_id: "claude-opus-4-1",
      base_url: "https://models.example.com",
      sources: { api_key: "models.yaml", base_url: "models.yaml", model_id: "models.yaml" },
    });
  });

  it("fixes the model for a session: the one asked for, else the configured default", () => {
    const manager = ProviderManager.load({ home: home_with(FULL_FILE), env: {} });

    expect(manager.for_session().model_id).toBe("claude-opus-4-1");
    expect(manager.for_session("claude-haiku-4-5").model_id).toBe("claude-haiku-4-5");
    expect(Object.isFrozen(manager.for_session())).toBe(true);
  });

  it("never shows the key: not in JSON, not in inspect, not in the settings", () => {
    const manager = ProviderManager.load({ home: home_with(), env: { ANTHROPIC_API_KEY: ENV_KEY } });
    const settings = load_provider_settings({ home: home_with(), env: { ANTHROPIC_API_KEY: ENV_KEY } });
    const session = manager.for_session();

    for (const value of [manager, settings, session, manager.require_configured()]) {
      expect(JSON.stringify(value)).not.toContain(ENV_KEY);
      expect(inspect(value, { depth: 10, showHidden: true })).not.toContain(ENV_KEY);
    }
    expect(`${settings.api_key}`).toBe("[redacted]");
  });

  it("sends a session's requests to the configured server with the key from models.yaml and the base URL from the environment", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "configured" }] } }] } } });
    const manager = ProviderManager.load({
      home: home_with(`providers:\n  anthropic:\n    api_key: ${FILE_KEY}\n`),
      env: { ANTHROPIC_BASE_URL: server.url, AIR_MODEL: "claude-haiku-4-5" },
      retry: instant_retries().policy,
    });

    const response = await manager.for_session().complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "configured" }]);
    expect(server.requests()[0]?.headers["x-api-key"]).toBe(FILE_KEY);
    expect(server.requests()[0]?.body).toMatchObject({ model: "claude-haiku-4-5" });
  });
});

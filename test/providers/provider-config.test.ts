/**
 * Several providers in one configuration: which one is selected (AIR_PROVIDER, default_provider, the first
 * with a key), each provider's own variables and defaults, OpenAI-compatible servers that need no key, and
 * every way the configuration can be wrong — each an AirError whose action names the exact setting.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { load_provider_config, load_provider_settings } from "../../src/providers/config.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

function home_with(text?: string): string {
  const home = dirs.make("air-home-");
  if (text !== undefined) fs.writeFileSync(path.join(home, "models.yaml"), text);
  return home;
}

const OLLAMA = "providers:\n  openai_compatible:\n    base_url: http://127.0.0.1:11434/v1\n    default_model: qwen2.5-coder:32b\n";

describe("selecting the provider", () => {
  it("takes AIR_PROVIDER first", () => {
    const config = load_provider_config({ home: home_with("default_provider: openai\n"), env: { AIR_PROVIDER: "openrouter", OPENROUTER_API_KEY: "sk-or-1" } });

    expect(config.selected).toBe("openrouter");
    expect(config.selected_source).toBe("env:AIR_PROVIDER");
  });

  it("then default_provider in models.yaml", () => {
    const config = load_provider_config({ home: home_with("default_provider: openai\n"), env: { ANTHROPIC_API_KEY: "sk-ant-1" } });

    expect(config.selected).toBe("openai");
    expect(config.selected_source).toBe("models.yaml");
  });

  it("else the first provider that is set up, Anthropic first", () => {
    expect(load_provider_config({ home: home_with(), env: { OPENAI_API_KEY: "sk-1", OPENROUTER_API_KEY: "sk-or-1" } }).selected).toBe("openai");
    expect(load_provider_config({ home: home_with(), env: { OPENAI_API_KEY: "sk-1", ANTHROPIC_API_KEY: "sk-ant-1" } }).selected).toBe("anthropic");
    expect(load_provider_config({ home: home_with(OLLAMA), env: {} }).selected).toBe("openai_compatible");
  });

  it("else Anthropic, so that its missing key is what gets explained", () => {
    const config = load_provider_config({ home: home_with(), env: {} });

    expect(config.selected).toBe("anthropic");
    expect(config.selected_source).toBe("default");
  });
});

describe("each provider's settings", () => {
  it("OpenAI: OPENAI_API_KEY and OPENAI_BASE_URL, else its own API and gpt-4.1", () => {
    const home = home_with();
    const from_env = load_provider_settings({
      home,
      env: { AIR_PROVIDER: "openai", OPENAI_API_KEY: "sk-openai-123456", OPENAI_BASE_URL: "http://127.0.0.1:9000/v1" },
    });
    const plain = load_provider_config({ home, env: { OPENAI_API_KEY: "sk-openai-123456" } }).settings("openai");

    expect(from_env.api_key?.reveal()).toBe("sk-openai-123456");
    expect(from_env.base_url).toBe("http://127.0.0.1:9000/v1");
    expect(from_env.sources).toEqual({ api_key: "env:OPENAI_API_KEY", base_url: "env:OPENAI_BASE_URL", model_id: "default" });
    expect(plain.base_url).toBeUndefined();
    expect(plain.model_id).toBe("gpt-4.1");
  });

  it("OpenRouter: OPENROUTER_API_KEY, headers and a model of its own from models.yaml", () => {
    const home = home_with(
      ["providers:", "  openrouter:", "    default_model: openai/gpt-4o", "    headers: { HTTP-Referer: https://example.com, X-Title: air }"].join("\n"),
    );

    const settings = load_provider_settings({ home, env: { OPENROUTER_API_KEY: "sk-or-123456789" } });

    expect(settings.provider_id).toBe("openrouter");
    expect(settings.model_id).toBe("openai/gpt-4o");
    expect(settings.headers).toEqual({ "HTTP-Referer": "https://example.com", "X-Title": "air" });
    expect(settings.sources.api_key).toBe("env:OPENROUTER_API_KEY");
  });

  it("an OpenAI-compatible server needs no key, and takes one from the variable api_key_env names before api_key", () => {
    const keyless = load_provider_settings({ home: home_with(OLLAMA), env: {} });
    const keyed = load_provider_settings({
      home: home_with(`${OLLAMA}    api_key_env: VLLM_TOKEN\n    api_key: from-the-file-0000\n`),
      env: { VLLM_TOKEN: "vllm-secret-0123456" },
    });

    expect(keyless).toMatchObject({
      provider_id: "openai_compatible",
      base_url: "http://127.0.0.1:11434/v1",
      model_id: "qwen2.5-coder:32b",
      key_required: false,
    });
    expect(keyless.api_key).toBeUndefined();
    expect(keyed.api_key?.reveal()).toBe("vllm-secret-0123456");
    expect(keyed.sources.api_key).toBe("env:VLLM_TOKEN");
  });

  it("the top-level default_model belongs to default_provider, not to a provider AIR_PROVIDER picks", () => {
    const home = home_with("default_provider: anthropic\ndefault_model: claude-opus-4-1\n");

    expect(load_provider_settings({ home, env: { ANTHROPIC_API_KEY: "sk-ant-1" } }).model_id).toBe("claude-opus-4-1");
    expect(load_provider_settings({ home, env: { AIR_PROVIDER: "openai", OPENAI_API_KEY: "sk-1" } }).model_id).toBe("gpt-4.1");
  });

  it("AIR_MODEL names the selected provider's model only", () => {
    const config = load_provider_config({ home: home_with(OLLAMA), env: { AIR_MODEL: "gpt-4o", OPENAI_API_KEY: "sk-1" } });

    expect(config.selected).toBe("openai");
    expect(config.settings("openai").model_id).toBe("gpt-4o");
    expect(config.settings("openai_compatible").model_id).toBe("qwen2.5-coder:32b");
  });
});

describe("a wrong configuration", () => {
  it("an unknown AIR_PROVIDER is an env_error listing the providers", () => {
    const failure = expect_air_failure(() => load_provider_config({ home: home_with(), env: { AIR_PROVIDER: "gemini" } }));

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toContain('AIR_PROVIDER names an unknown provider: "gemini"');
    expect(failure.error.user_action).toBe("Set AIR_PROVIDER to one of anthropic, openai, openrouter, openai_compatible, or unset it.");
  });

  it("an unknown default_provider is a user_error naming the file and the choices", () => {
    const home = home_with("default_provider: gemini\n");

    const failure = expect_air_failure(() => load_provider_config({ home, env: {} }));

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toContain(path.join(home, "models.yaml"));
    expect(failure.message).toContain('default_provider: expected ("anthropic" | "openai" | "openrouter" | "openai_compatible")');
  });

  it("an unknown provider section, or a model entry with an unknown key, is reported where it is", () => {
    const section = expect_air_failure(() => load_provider_config({ home: home_with("providers:\n  gemini:\n    api_key: x\n"), env: {} }));
    const model = expect_air_failure(() => load_provider_config({ home: home_with("models:\n  gpt-4o:\n    context: 9\n"), env: {} }));

    expect(section.message).toContain("providers.gemini: unknown key");
    expect(model.message).toContain("models.gpt-4o.context: unknown key");
  });

  it("an openai_compatible server without base_url, or with a base_url that is no http(s) URL, is refused", () => {
    const missing = expect_air_failure(() => load_provider_config({ home: home_with("providers:\n  openai_compatible:\n    default_model: m\n"), env: {} }));
    const scheme = expect_air_failure(() =>
      load_provider_config({ home: home_with("providers:\n  openai_compatible:\n    base_url: localhost:11434\n"), env: {} }),
    );

    expect(missing.message).toContain("providers.openai_compatible.base_url");
    expect(scheme.message).toContain("providers.openai_compatible.base_url: expected an http:// or https:// URL");
  });

  it("a base URL variable that is not an http(s) URL is an env_error naming it", () => {
    const failure = expect_air_failure(() => load_provider_config({ home: home_with(), env: { AIR_PROVIDER: "openai", OPENAI_BASE_URL: "localhost:8080" } }));

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toContain("OPENAI_BASE_URL is not an http(s) URL");
    expect(failure.error.user_action).toContain("Set OPENAI_BASE_URL to the server's base URL");
  });

  it("openai_compatible selected without a server in models.yaml says what to add", () => {
    const home = home_with();

    const failure = expect_air_failure(() => load_provider_config({ home, env: { AIR_PROVIDER: "openai_compatible" } }));

    expect(failure.kind).toBe("user_error");
    expect(failure.error.user_action).toContain(`Add the server under providers.openai_compatible in ${path.join(home, "models.yaml")}`);
  });

  it("an openai_compatible server without a model asks for one", () => {
    const home = home_with("providers:\n  openai_compatible:\n    base_url: http://127.0.0.1:1234/v1\n");

    const failure = expect_air_failure(() => load_provider_config({ home, env: {} }));

    expect(failure.message).toBe("no model is named for openai_compatible");
    expect(failure.error.user_action).toContain("Set AIR_MODEL, or default_model under providers.openai_compatible");
  });
});

describe("a missing key names the exact place for that provider", () => {
  it.each([
    ["openai", "OPENAI_API_KEY"],
    ["openrouter", "OPENROUTER_API_KEY"],
  ])("%s: %s", (provider, variable) => {
    const home = home_with();
    const manager = ProviderManager.load({ home, env: { AIR_PROVIDER: provider } });

    const failure = expect_air_failure(() => manager.require_configured());

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toBe(`no API key for ${provider}: none in ${variable} or in ${path.join(home, "models.yaml")}`);
    expect(failure.error.user_action).toBe(`Set ${variable}, or api_key under providers.${provider} in ${path.join(home, "models.yaml")}.`);
    expect(manager.is_configured()).toBe(false);
  });

  it("the variable api_key_env names, when it is unset", () => {
    const home = home_with(`${OLLAMA}    api_key_env: VLLM_TOKEN\n`);

    const failure = expect_air_failure(() => ProviderManager.load({ home, env: {} }).for_session());

    expect(failure.message).toContain("none in VLLM_TOKEN");
    expect(failure.error.user_action).toContain("Set VLLM_TOKEN");
  });

  it("but a keyless local server is configured as it is", () => {
    const manager = ProviderManager.load({ home: home_with(OLLAMA), env: {} });

    expect(manager.is_configured()).toBe(true);
    expect(manager.require_configured()).toMatchObject({
      provider_id: "openai_compatible",
      model_id: "qwen2.5-coder:32b",
      base_url: "http://127.0.0.1:11434/v1",
    });
  });
});

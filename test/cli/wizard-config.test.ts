/**
 * How the runtime reads what the wizard wrote (auth_ref → credentials.yaml), when the wizard is due, what
 * it says without a terminal, and its connection test: the model list through the real SDKs.
 */
import fs from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { run_wizard, wizard_unavailable_failure } from "../../src/cli/wizard.js";
import { needs_wizard } from "../../src/cli/wizard/needed.js";
import { list_models } from "../../src/cli/wizard/model-list.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { default_redactor } from "../../src/permissions/secret-redactor.js";
import { load_provider_config, load_provider_settings } from "../../src/providers/config.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";
import { scripted_server } from "../providers/scripted.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const STORED_KEY = "sk-ant-stored-by-name-9876543210";

function home_with(files: Record<string, string>): string {
  const home = dirs.make("air-home-");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(home, name), text);
  return home;
}

const BY_REF = "default_provider: anthropic\nproviders:\n  anthropic:\n    auth_ref: work\n";

describe("auth_ref", () => {
  it("takes the key models.yaml names from credentials.yaml, and the redactor learns it", () => {
    const home = home_with({ "models.yaml": BY_REF, "credentials.yaml": `version: 1\nkeys:\n  work: ${STORED_KEY}\n` });

    const settings = load_provider_settings({ home, env: {} });

    expect(settings.api_key?.reveal()).toBe(STORED_KEY);
    expect(settings.sources.api_key).toBe("credentials.yaml");
    expect(inspect(settings)).not.toContain(STORED_KEY);
    expect(default_redactor().redact(`the key is ${STORED_KEY}`)).not.toContain(STORED_KEY);
  });

  it("yields to the provider's environment variable", () => {
    const home = home_with({ "models.yaml": BY_REF, "credentials.yaml": `keys:\n  work: ${STORED_KEY}\n` });

    const settings = load_provider_settings({ home, env: { ANTHROPIC_API_KEY: "sk-ant-from-env-555555555555" } });

    expect(settings.api_key?.reveal()).toBe("sk-ant-from-env-555555555555");
  });

  it("is an error naming both files when credentials.yaml lacks the key, and never quotes the file", () => {
    const home = home_with({ "models.yaml": BY_REF, "credentials.yaml": `keys:\n  other: ${STORED_KEY}\n` });

    const failure = expect_air_failure(() => load_provider_config({ home, env: {} }));

    expect(failure.error.message).toContain('"work"');
    expect(failure.error.message).toContain(path.join(home, "credentials.yaml"));
    expect(JSON.stringify(failure.error)).not.toContain(STORED_KEY);
  });

  it("is an error when auth_ref is not a plain name", () => {
    const home = home_with({ "models.yaml": "providers:\n  anthropic:\n    auth_ref: ../../etc/passwd\n" });

    expect(expect_air_failure(() => load_provider_config({ home, env: {} })).error.message).toContain("providers.anthropic.auth_ref");
  });
});

describe("needs_wizard", () => {
  it("is true with nothing set up, false once config.yaml records a setup (the demo included)", () => {
    const empty = dirs.make("air-home-");
    const demo = home_with({ "config.yaml": "version: 1\nprovider: scripted_demo\nmodel: scripted-model\npermission_mode: default\n" });

    expect(needs_wizard({ AIR_HOME: empty })).toBe(true);
    expect(needs_wizard({ AIR_HOME: demo })).toBe(false);
  });

  it("is false when a key is in the environment or a server in models.yaml", () => {
    const empty = dirs.make("air-home-");
    const server = home_with({ "models.yaml": "providers:\n  openai_compatible:\n    base_url: http://127.0.0.1:11434/v1\n    default_model: qwen\n" });

    expect(needs_wizard({ AIR_HOME: empty, OPENAI_API_KEY: "sk-openai-env-000000000000" })).toBe(false);
    expect(needs_wizard({ AIR_HOME: server })).toBe(false);
  });
});

describe("run_wizard without a terminal", () => {
  it("never prompts: it throws the guidance of a run without a provider, and writes nothing", async () => {
    const home = dirs.make("air-home-");
    const io = { out: () => undefined, err: () => undefined, cwd: home };

    const failure = await run_wizard(io, { for_init: true, project_root: home, env: { AIR_HOME: home, CI: "true" } }).then(
      () => expect.fail("the wizard prompted"),
      (error: unknown) => error,
    );

    expect(is_air_failure(failure) && failure.error.kind).toBe("env_error");
    const { error } = wizard_unavailable_failure({ AIR_HOME: home, CI: "1" });
    expect(error.message).toContain("no model provider is configured");
    expect(error.message).toContain("CI is set");
    expect(error.user_action).toContain("ANTHROPIC_API_KEY");
    expect(error.user_action).toContain("air init");
    expect(fs.readdirSync(home)).toEqual([]);
  });
});

describe("list_models (the connection test)", () => {
  it("lists the models of the scripted server through the Anthropic SDK and the OpenAI SDK", async () => {
    const server = await scripted_server({ script: { turns: {} }, api_key: "sk-listing-key-1234567890", models: ["b-model", "a-model"] });

    const anthropic = await list_models({ provider_id: "anthropic", base_url: server.url, api_key: "sk-listing-key-1234567890" });
    const openai = await list_models({ provider_id: "openai_compatible", base_url: `${server.url}/v1`, api_key: "sk-listing-key-1234567890" });

    expect(anthropic).toEqual(["a-model", "b-model"]);
    expect(openai).toEqual(["a-model", "b-model"]);
    expect(server.requests().map((request) => [request.method, request.path, request.api])).toEqual([
      ["GET", "/v1/models", "anthropic_messages"],
      ["GET", "/v1/models", "openai_chat"],
    ]);
  });

  it("says the key is refused, without quoting it", async () => {
    const server = await scripted_server({ script: { turns: {} }, api_key: "sk-the-right-key-000000000" });
    const wrong = "sk-the-wrong-key-111111111111";
    default_redactor().add({ label: "test_key", value: wrong });

    const failure = await list_models({ provider_id: "anthropic", base_url: server.url, api_key: wrong }).catch((error: unknown) => error);

    expect(is_air_failure(failure) && failure.error.message).toContain("does not accept this key");
    expect(JSON.stringify(is_air_failure(failure) && failure.error)).not.toContain(wrong);
  });

  it("says nothing answers when no server is there", async () => {
    const server = await scripted_server({ script: { turns: {} } });
    const url = server.url;
    await server.close();

    const failure = await list_models({ provider_id: "openai_compatible", base_url: `${url}/v1`, api_key: undefined }).catch((error: unknown) => error);

    expect(is_air_failure(failure) && failure.error.message).toContain("nothing answers there");
  });
});

/**
 * `air provider list` and `air provider current`: read-only views of the providers, their models and
 * capabilities, where each setting came from — and never a key.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_provider_current, run_provider_list, type CurrentProvider, type ProviderList } from "../../src/cli/commands/provider.js";
import type { Io } from "../../src/cli/output.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";

const ANTHROPIC_KEY = "sk-ant-listed-nowhere-0123456789";
const FILE_KEY = "sk-openai-from-the-file-987654321";

let temp: string;
let project: Project;
let home: string;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-provider-cli-"));
  home = path.join(temp, "air-home");
  fs.mkdirSync(home);
  project = init_project(path.join(temp, "project")).project;
});
afterEach(() => fs.rmSync(temp, { recursive: true, force: true }));

function write_models(text: string): void {
  fs.writeFileSync(path.join(home, "models.yaml"), text);
}

async function run(command: (io: Io) => Promise<number>, cwd = project.layout.root): Promise<string> {
  let out = "";
  const io: Io = { out: (text) => (out += text), err: (text) => (out += text), cwd };
  expect(await command(io)).toBe(0);
  return out;
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ AIR_HOME: home, ...extra });

describe("air provider list", () => {
  it("lists every provider: which is the default, where each setting came from, the models and their capabilities", async () => {
    write_models(
      `providers:\n  openai:\n    api_key: ${FILE_KEY}\n  openai_compatible:\n    base_url: http://127.0.0.1:11434/v1\n    default_model: qwen2.5-coder:32b\n    headers: { Authorization: Bearer proxy-secret-token-42 }\nmodels:\n  qwen2.5-coder:32b:\n    context_window: 65536\n`,
    );
    fs.writeFileSync(path.join(project.layout.shared, "models.yaml"), "models:\n  qwen2.5-coder:32b:\n    supports: { vision: true }\n");

    const json = await run((io) => run_provider_list(io, { json: true, env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, AIR_MODEL: "claude-haiku-4-5" }) }));
    const text = await run((io) => run_provider_list(io, { json: false, env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY }) }));

    const listing = JSON.parse(json) as ProviderList;
    expect(listing).toMatchObject({
      selected: "anthropic",
      selected_source: "default",
      models_file: path.join(home, "models.yaml"),
      project_models_file: path.join(project.layout.shared, "models.yaml"),
    });
    const [anthropic, openai, openrouter, local] = listing.providers;
    expect(anthropic).toMatchObject({
      provider_id: "anthropic",
      default: true,
      configured: true,
      default_model: "claude-haiku-4-5",
      sources: { api_key: "env:ANTHROPIC_API_KEY", base_url: "default", model_id: "env:AIR_MODEL" },
    });
    expect(anthropic?.models.find((model) => model.model_id === "claude-haiku-4-5")).toMatchObject({
      default: true,
      capabilities: { quality_tier: "standard" },
      capability_sources: ["built-in"],
    });
    expect(openai).toMatchObject({ default: false, configured: true, base_url: "https://api.openai.com/v1", sources: { api_key: "models.yaml" } });
    expect(openrouter).toMatchObject({
      configured: false,
      user_action: `Set OPENROUTER_API_KEY, or api_key under providers.openrouter in ${path.join(home, "models.yaml")}.`,
    });
    expect(local).toMatchObject({ configured: true, headers: ["Authorization"], default_model: "qwen2.5-coder:32b" });
    expect(local?.models[0]).toMatchObject({
      model_id: "qwen2.5-coder:32b",
      known: false,
      capabilities: { context_window: 65_536, cost_tier: "free", supports: { vision: true } },
      capability_sources: ["default for unknown models", path.join(home, "models.yaml"), path.join(project.layout.shared, "models.yaml")],
    });

    expect(text).toContain("Default provider: anthropic (default)");
    expect(text).toMatch(
      /\* anthropic: configured, key from env:ANTHROPIC_API_KEY, base URL https:\/\/api\.anthropic\.com \(default\), model claude-sonnet-4-5 \(default\)/,
    );
    expect(text).toMatch(/\*\s+claude-sonnet-4-5\s+frontier\s+medium\s+200000\s+64000\s+yes\s+yes\s+yes\s+yes\s+built-in/);
    expect(text).toContain("openrouter: no key, key not set");
    for (const output of [json, text]) {
      for (const secret of [ANTHROPIC_KEY, FILE_KEY, "proxy-secret-token-42"]) expect(output).not.toContain(secret);
    }
  });

  it("shows a provider whose settings are broken without failing the others", async () => {
    const listing = JSON.parse(
      await run((io) => run_provider_list(io, { json: true, env: env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_BASE_URL: "not a url" }) })),
    ) as ProviderList;

    expect(listing.providers[0]).toMatchObject({ provider_id: "anthropic", configured: true });
    expect(listing.providers[1]?.error).toMatchObject({ kind: "env_error", message: expect.stringContaining("OPENAI_BASE_URL") });
    expect(listing.providers[3]).toMatchObject({
      provider_id: "openai_compatible",
      configured: false,
      user_action: expect.stringContaining("Add the server under providers.openai_compatible"),
    });
  });

  it("reports a broken models.yaml as the AirError naming it", async () => {
    write_models("providers: [anthropic\n");

    const error = await run_provider_list({ out: () => undefined, err: () => undefined, cwd: temp }, { json: true, env: env() }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(error).toMatchObject({ error: { kind: "user_error", message: expect.stringContaining(`${path.join(home, "models.yaml")} is invalid`) } });
  });

  it("works outside a project, without project corrections", async () => {
    const listing = JSON.parse(await run((io) => run_provider_list(io, { json: true, env: env() }), temp)) as ProviderList;

    expect(listing.project_models_file).toBeNull();
    expect(listing.providers[0]).toMatchObject({ provider_id: "anthropic", default: true, configured: false });
  });
});

describe("air provider current", () => {
  it("without a session: what a new session would use, and where that came from", async () => {
    const current = JSON.parse(
      await run((io) => run_provider_current(io, { json: true, env: env({ OPENAI_API_KEY: "sk-openai-0000000000", AIR_MODEL: "gpt-4o" }) })),
    ) as CurrentProvider;
    const text = await run((io) => run_provider_current(io, { json: false, env: env({ OPENAI_API_KEY: "sk-openai-0000000000" }) }));

    expect(current).toEqual({
      from: "configuration",
      provider_id: "openai",
      model_id: "gpt-4o",
      configured: true,
      capabilities: expect.objectContaining({ context_window: 128_000 }),
      sources: { provider: "default", api_key: "env:OPENAI_API_KEY", base_url: "default", model_id: "env:AIR_MODEL" },
    });
    expect(text).toContain("No session yet; a new session would use openai gpt-4.1 (provider from default, model from default)");
    expect(text).not.toContain("sk-openai-0000000000");
  });

  it("with sessions: the latest session's model, fixed whatever the configuration says now; --session picks one", async () => {
    const first = open_session(project, { title: "first", model_provider_id: "anthropic", model_id: "claude-opus-4-1" });
    first.close();
    const second = open_session(project, { title: "second", model_provider_id: "openai_compatible", model_id: "qwen2.5-coder:32b" });
    second.close();
    const settings = env({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, AIR_MODEL: "claude-haiku-4-5" });

    const latest = JSON.parse(await run((io) => run_provider_current(io, { json: true, env: settings }))) as CurrentProvider;
    const chosen = JSON.parse(await run((io) => run_provider_current(io, { json: true, env: settings, session: first.id }))) as CurrentProvider;
    const text = await run((io) => run_provider_current(io, { json: false, env: settings, session: first.id }));

    expect(latest).toMatchObject({
      from: "session",
      session_id: second.id,
      provider_id: "openai_compatible",
      model_id: "qwen2.5-coder:32b",
      capabilities: { cost_tier: "free" },
    });
    expect(chosen).toMatchObject({
      from: "session",
      session_id: first.id,
      provider_id: "anthropic",
      model_id: "claude-opus-4-1",
      capabilities: { quality_tier: "frontier" },
    });
    expect(text).toContain(`Session ${first.id}: anthropic claude-opus-4-1 (fixed for the session`);
  });

  it("an unknown --session is a user_error pointing at air session list", async () => {
    const io: Io = { out: () => undefined, err: () => undefined, cwd: project.layout.root };

    const error = await run_provider_current(io, { json: true, env: env(), session: "ses_01HZZZZZZZZZZZZZZZZZZZZZZZ" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(error).toMatchObject({ error: { kind: "user_error", user_action: "List the sessions with `air session list`." } });
  });
});

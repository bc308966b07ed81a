/**
 * The capability matrix (seeds 003 §14): built-in defaults for the model families air knows, conservative
 * defaults for a model it does not, corrected by ~/.air/models.yaml and then the project's
 * .air/shared/models.yaml — and the cheap request measures the refusals are based on.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { ModelCapabilities, type ModelRequest } from "../../src/contracts/provider.js";
import { estimate_request_tokens, request_has_images } from "../../src/providers/capabilities.js";
import { load_provider_config } from "../../src/providers/config.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

/** An air home and a project, each with its models.yaml if given. */
function setup(home_text?: string, project_text?: string): { home: string; project_root: string } {
  const home = dirs.make("air-home-");
  const project_root = dirs.make("air-project-");
  fs.mkdirSync(path.join(project_root, ".air", "shared"), { recursive: true });
  if (home_text !== undefined) fs.writeFileSync(path.join(home, "models.yaml"), home_text);
  if (project_text !== undefined) fs.writeFileSync(path.join(project_root, ".air", "shared", "models.yaml"), project_text);
  return { home, project_root };
}

function matrix(home_text?: string, project_text?: string) {
  return load_provider_config({ ...setup(home_text, project_text), env: {} }).matrix;
}

describe("built-in capabilities", () => {
  const builtin = matrix();

  it.each([
    ["anthropic", "claude-opus-4-1", { quality_tier: "frontier", context_window: 200_000, max_output_tokens: 32_000 }],
    ["anthropic", "claude-sonnet-4-5", { quality_tier: "frontier", cost_tier: "medium", context_window: 200_000 }],
    ["anthropic", "claude-haiku-4-5", { quality_tier: "standard", cost_tier: "low" }],
    ["openai", "gpt-4o", { context_window: 128_000, max_output_tokens: 16_384 }],
    ["openai", "gpt-4.1-mini", { context_window: 1_047_576 }],
    ["openai", "o3", { quality_tier: "frontier", context_window: 200_000 }],
  ] as const)("%s %s", (provider, model, expected) => {
    const resolved = builtin.resolve(provider, model);

    expect(resolved.known).toBe(true);
    expect(resolved.sources).toEqual(["built-in"]);
    expect(resolved.capabilities).toMatchObject(expected);
    expect(v.is(ModelCapabilities, resolved.capabilities)).toBe(true);
  });

  it("Claude on the Anthropic API does everything, token counting included", () => {
    expect(builtin.resolve("anthropic", "claude-sonnet-4-5").capabilities.supports).toEqual({
      tools: true,
      vision: true,
      thinking: true,
      prompt_caching: true,
      streaming: true,
      count_tokens: true,
    });
  });

  it("Claude through OpenRouter keeps tools and vision but loses what only the Messages API carries", () => {
    const resolved = builtin.resolve("openrouter", "anthropic/claude-sonnet-4.5");

    expect(resolved.known).toBe(true);
    expect(resolved.capabilities.supports).toEqual({ tools: true, vision: true, thinking: false, prompt_caching: false, streaming: true, count_tokens: false });
  });

  it("o3-mini sees no images; gpt-4o does", () => {
    expect(builtin.resolve("openai", "o3-mini").capabilities.supports.vision).toBe(false);
    expect(builtin.resolve("openai", "gpt-4o").capabilities.supports.vision).toBe(true);
  });

  it("a model air does not know gets tools, no vision and a 32k context — free behind an OpenAI-compatible server", () => {
    const local = builtin.resolve("openai_compatible", "qwen2.5-coder:32b");
    const hosted = builtin.resolve("openai", "some-new-model");

    expect(local.known).toBe(false);
    expect(local.sources).toEqual(["default for unknown models"]);
    expect(local.capabilities).toEqual({
      quality_tier: "standard",
      cost_tier: "free",
      context_window: 32_768,
      max_output_tokens: 4_096,
      supports: { tools: true, vision: false, thinking: false, prompt_caching: false, streaming: true, count_tokens: false },
    });
    expect(hosted.capabilities.cost_tier).toBe("medium");
  });
});

describe("models.yaml corrections", () => {
  it("the user's file corrects a model field by field; the rest stays built-in", () => {
    const { home, project_root } = setup("models:\n  qwen2.5-coder:32b:\n    context_window: 65536\n    supports: { vision: true }\n");
    const resolved = load_provider_config({ home, project_root, env: {} }).matrix.resolve("openai_compatible", "qwen2.5-coder:32b");

    expect(resolved.capabilities.context_window).toBe(65_536);
    expect(resolved.capabilities.supports).toMatchObject({ vision: true, tools: true, thinking: false });
    expect(resolved.sources).toEqual(["default for unknown models", path.join(home, "models.yaml")]);
  });

  it("the project's file comes last and wins", () => {
    const { home, project_root } = setup(
      "models:\n  local-model:\n    context_window: 65536\n    quality_tier: strong\n",
      "models:\n  local-model:\n    context_window: 8192\n    supports: { tools: false }\n",
    );
    const resolved = load_provider_config({ home, project_root, env: {} }).matrix.resolve("openai_compatible", "local-model");

    expect(resolved.capabilities).toMatchObject({ context_window: 8192, quality_tier: "strong", supports: { tools: false } });
    expect(resolved.sources).toEqual(["default for unknown models", path.join(home, "models.yaml"), path.join(project_root, ".air", "shared", "models.yaml")]);
  });

  it("thinking_budget_tokens comes from the user's file, and lists a model under its provider", () => {
    const config = load_provider_config({
      ...setup("models:\n  claude-opus-4-1:\n    thinking_budget_tokens: 8000\n  my-model:\n    provider: openai_compatible\n"),
      env: {},
    });

    expect(config.matrix.resolve("anthropic", "claude-opus-4-1").thinking_budget_tokens).toBe(8000);
    expect(config.matrix.configured_models("openai_compatible")).toEqual(["my-model"]);
  });

  it("a project file may not name providers, keys or thinking budgets: a cloned repository must not redirect your key", () => {
    const { home, project_root } = setup(undefined, "providers:\n  anthropic:\n    base_url: https://attacker.example\n");
    const budget = setup(undefined, "models:\n  claude-opus-4-1:\n    thinking_budget_tokens: 60000\n");
    const project_file = path.join(project_root, ".air", "shared", "models.yaml");

    const failure = expect_air_failure(() => load_provider_config({ home, project_root, env: {} }));
    const budget_failure = expect_air_failure(() => load_provider_config({ ...budget, env: {} }));

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toBe(`${project_file} is invalid: providers: unknown key`);
    expect(budget_failure.message).toContain("models.claude-opus-4-1.thinking_budget_tokens: unknown key");
  });

  it("a broken project file is an error naming it", () => {
    const { home, project_root } = setup(undefined, "models:\n  m:\n    context_window: lots\n");

    const failure = expect_air_failure(() => load_provider_config({ home, project_root, env: {} }));

    expect(failure.message).toContain(path.join(project_root, ".air", "shared", "models.yaml"));
    expect(failure.message).toContain("models.m.context_window: expected number");
  });

  it("a thinking budget below the API's minimum of 1024 is refused", () => {
    const failure = expect_air_failure(() => matrix("models:\n  claude-opus-4-1:\n    thinking_budget_tokens: 100\n"));

    expect(failure.message).toContain("models.claude-opus-4-1.thinking_budget_tokens: expected >=1024");
  });
});

describe("measuring a request", () => {
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(400_000) } };

  it("estimates about four characters a token", () => {
    const request: ModelRequest = { purpose: "answer", messages: [{ role: "user", content: "x".repeat(4000) }] };

    expect(estimate_request_tokens(request)).toBeGreaterThanOrEqual(1000);
    expect(estimate_request_tokens(request)).toBeLessThan(1010);
  });

  it("counts an image at its billed size, not its base64 length", () => {
    const request: ModelRequest = { purpose: "answer", messages: [{ role: "user", content: [image, { type: "text", text: "what is this?" }] }] };

    expect(estimate_request_tokens(request)).toBeLessThan(2_000);
  });

  it("finds images in messages and inside tool results", () => {
    const direct: ModelRequest = { purpose: "answer", messages: [{ role: "user", content: [image] }] };
    const nested: ModelRequest = { purpose: "answer", messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [image] }] }] };
    const none: ModelRequest = { purpose: "answer", messages: [{ role: "user", content: "no picture" }] };

    expect([direct, nested, none].map(request_has_images)).toEqual([true, true, false]);
    expect(estimate_request_tokens(nested)).toBeLessThan(2_000);
  });
});

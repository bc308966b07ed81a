/**
 * Shared by the provider tests: a scripted model server per test, an adapter pointed at it, and a retry
 * policy whose sleep only writes down how long it was asked to wait.
 */
import { afterEach } from "vitest";
import type { ModelRequest } from "../../src/contracts/provider.js";
import { AnthropicAdapter, type AnthropicAdapterOptions } from "../../src/providers/anthropic.js";
import type { RetryPolicy } from "../../src/providers/retry.js";
import { start_scripted_server, type ScriptedServer, type ScriptedServerOptions } from "../../src/providers/scripted/server.js";
import { Secret } from "../../src/providers/secret.js";

export const TEST_KEY = "sk-ant-test-0123456789abcdef";

const running: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** A scripted server closed after the test. */
export async function scripted_server(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const server = await start_scripted_server(options);
  running.push(server);
  return server;
}

/** A retry policy that never waits: `waits` lists each delay asked for, in ms. */
export function instant_retries(overrides: Partial<RetryPolicy> = {}): { policy: Partial<RetryPolicy>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    policy: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...overrides,
    },
  };
}

export function adapter_for(server: ScriptedServer, options: Partial<AnthropicAdapterOptions> = {}): AnthropicAdapter {
  return new AnthropicAdapter({
    api_key: new Secret(TEST_KEY),
    base_url: server.url,
    model_id: "claude-sonnet-4-5",
    retry: instant_retries().policy,
    ...options,
  });
}

export function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { purpose: "answer", messages: [{ role: "user", content: text }], ...extra };
}

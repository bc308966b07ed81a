/**
 * OpenAICompatibleAdapter against the scripted model server's Chat Completions endpoint, over real HTTP
 * with the real openai SDK: a tool-using conversation goes out as Chat Completions and comes back as the
 * same canonical content, and every failure is an AirFailure naming the setting that fixes it.
 */
import { describe, expect, it } from "vitest";
import type { CanonicalMessage, ContentBlock, ModelDelta } from "../../src/contracts/provider.js";
import { OpenAICompatibleAdapter } from "../../src/providers/openai/adapter.js";
import type { RetryNotice } from "../../src/providers/retry.js";
import type { ScriptedServer } from "../../src/providers/scripted/server.js";
import { Secret } from "../../src/providers/secret.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { failure_of, IMAGE, OPENAI_KEY, openai_adapter_for as adapter_for, READ, reply, text_reply, WRITE } from "./openai-scripted.js";
import { ask, instant_retries, scripted_server } from "./scripted.js";

describe("a multi-turn tool-using conversation", () => {
  const first_reply: ContentBlock[] = [
    { type: "text", text: "Reading both files at once." },
    { type: "tool_use", id: "call_a", name: "fs.read", input: { path: "src/a.ts" } },
    { type: "tool_use", id: "call_b", name: "fs.read", input: { path: "src/b.ts" } },
  ];
  const second_reply: ContentBlock[] = [
    { type: "text", text: "b.ts is missing; writing it." },
    { type: "tool_use", id: "call_c", name: "fs.write", input: { path: "src/b.ts", content: 'export const b = "ü";\n' } },
  ];
  const third_reply: ContentBlock[] = [{ type: "text", text: "Done: a.ts read, b.ts written, the screenshot shows the same error." }];

  const script = {
    turns: {
      executor: [
        {
          expect: { system_contains: "You are the executor.", last_user_contains: "Fix the failing test", tools: ["fs.read", "fs.write"] },
          ...reply(first_reply, { usage: { input_tokens: 300, output_tokens: 40, cache_read_input_tokens: 1200 } }),
        },
        { expect: { tool_result_contains: "ENOENT" }, ...reply(second_reply) },
        { expect: { tool_result_contains: "wrote 22 bytes", last_user_contains: "also check the screenshot" }, ...reply(third_reply) },
      ],
    },
  };

  async function converse(server: ScriptedServer) {
    const adapter = adapter_for(server);
    const base = {
      purpose: "task_execution" as const,
      system: [
        { type: "text" as const, text: "You are the executor." },
        { type: "text" as const, text: "Rules: keep tests green." },
      ],
      tools: [READ, WRITE],
    };
    const messages: CanonicalMessage[] = [{ role: "user", content: [{ type: "text", text: "Fix the failing test; here is what I see:" }, IMAGE] }];
    const first = await adapter.complete({ ...base, messages }, { requester: "executor" });
    messages.push(
      { role: "assistant", content: first.content },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a", content: [{ type: "text", text: "export const a = 1;" }] },
          { type: "tool_result", tool_use_id: "call_b", content: "ENOENT: src/b.ts does not exist", is_error: true },
        ],
      },
    );
    const second = await adapter.complete({ ...base, messages }, { requester: "executor" });
    messages.push(
      { role: "assistant", content: second.content },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_c", content: "wrote 22 bytes" }, { type: "text", text: "also check the screenshot" }, IMAGE],
      },
    );
    const third = await adapter.complete({ ...base, messages }, { requester: "executor" });
    return { responses: [first, second, third], messages };
  }

  it("comes back as the same canonical content the script sent, with nothing in the conversion report", async () => {
    const server = await scripted_server({ script });

    const { responses } = await converse(server);

    expect(responses.map((response) => response.content)).toEqual([first_reply, second_reply, third_reply]);
    expect(responses.map((response) => response.stop_reason)).toEqual(["tool_use", "tool_use", "end_turn"]);
    for (const response of responses) expect(response.conversion).toEqual({ format: "openai_chat", losses: [] });
    expect(responses[0]?.usage).toEqual({ input_tokens: 300, output_tokens: 40, cache_read_input_tokens: 1200 });
    expect(server.requests().map((request) => [request.api, request.path, request.turn_index, request.outcome.kind])).toEqual([
      ["openai_chat", "/v1/chat/completions", 0, "reply"],
      ["openai_chat", "/v1/chat/completions", 1, "reply"],
      ["openai_chat", "/v1/chat/completions", 2, "reply"],
    ]);
  });

  it("reaches the server as the Chat Completions body that carries all of it", async () => {
    const server = await scripted_server({ script });

    await converse(server);

    const image_part = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" } };
    const call = (id: string, name: string, input: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(input) } });
    expect(server.requests()[2]?.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are the executor.\n\nRules: keep tests green." },
        { role: "user", content: [{ type: "text", text: "Fix the failing test; here is what I see:" }, image_part] },
        {
          role: "assistant",
          content: "Reading both files at once.",
          tool_calls: [call("call_a", "fs-read", { path: "src/a.ts" }), call("call_b", "fs-read", { path: "src/b.ts" })],
        },
        { role: "tool", tool_call_id: "call_a", content: "export const a = 1;" },
        { role: "tool", tool_call_id: "call_b", content: "[tool error] ENOENT: src/b.ts does not exist" },
        {
          role: "assistant",
          content: "b.ts is missing; writing it.",
          tool_calls: [call("call_c", "fs-write", { path: "src/b.ts", content: 'export const b = "ü";\n' })],
        },
        { role: "tool", tool_call_id: "call_c", content: "wrote 22 bytes" },
        { role: "user", content: [{ type: "text", text: "also check the screenshot" }, image_part] },
      ],
      tools: [READ, WRITE].map((schema) => ({
        type: "function",
        function: { name: schema.name.replace(".", "-"), description: schema.description, parameters: schema.input_schema },
      })),
    });
  });

  it("sends each request's bytes starting with the previous request's messages, so the provider's prefix cache holds", async () => {
    const server = await scripted_server({ script });

    await converse(server);

    const bodies = server.requests().map((request) => request.body as { messages: unknown[] });
    for (let turn = 1; turn < bodies.length; turn++) {
      const previous = bodies[turn - 1]!.messages;
      expect(bodies[turn]!.messages.slice(0, previous.length)).toEqual(previous);
    }
  });

  it("streams text and tool arguments as deltas indexed like the final content blocks", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            reply([
              { type: "text", text: "Two reads, in parallel." },
              ...[1, 2].map((n) => ({ type: "tool_use", name: "fs.read", input: { path: `src/deeply/nested/file-${n}.ts` } })),
            ]),
          ],
        },
      },
    });
    const deltas: ModelDelta[] = [];

    const response = await adapter_for(server).complete(ask("read", { tools: [READ] }), { requester: "main", on_delta: (delta) => deltas.push(delta) });

    const text = deltas.filter((delta) => delta.kind === "text");
    expect(text.length).toBeGreaterThan(1);
    expect(text.every((delta) => delta.index === 0)).toBe(true);
    expect(text.map((delta) => delta.text).join("")).toBe("Two reads, in parallel.");
    for (const index of [1, 2]) {
      const pieces = deltas.flatMap((delta) => (delta.kind === "tool_input" && delta.index === index ? [delta.partial_json] : []));
      expect(pieces.length).toBeGreaterThan(1);
      expect(JSON.parse(pieces.join(""))).toEqual(response.content[index]?.input);
    }
    expect(response.content.map((block) => block.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(new Set(response.content.slice(1).map((block) => block.id)).size).toBe(2);
  });
});

describe("the request on the wire", () => {
  it("carries the key as a Bearer token, the requester, the configured headers and max_tokens", async () => {
    const server = await scripted_server({ api_key: OPENAI_KEY, script: { turns: { worker: [text_reply("ok")] } } });
    const adapter = adapter_for(server, { headers: { "HTTP-Referer": "https://air.example", "X-Title": "air" } });

    await adapter.complete(ask("hi", { max_tokens: 300 }), { requester: "worker" });

    const [request] = server.requests();
    expect(request?.headers).toMatchObject({
      authorization: `Bearer ${OPENAI_KEY}`,
      "x-air-requester": "worker",
      "http-referer": "https://air.example",
      "x-title": "air",
    });
    expect(request?.body).toMatchObject({ max_tokens: 300 });
    expect(JSON.stringify(adapter)).not.toContain(OPENAI_KEY);
  });

  it("asks OpenAI itself for max_completion_tokens, the field its reasoning models accept", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("ok")] } } });

    await adapter_for(server, { provider_id: "openai", default_max_tokens: 2048 }).complete(ask("hi"), { requester: "main" });

    const body = server.requests()[0]?.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(2048);
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("sends no Authorization header to a local server configured without a key, nor the OPENAI_* settings of the environment", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("ok")] } } });
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: "sk-from-env-0000000000",
      OPENAI_ORG_ID: "org-env",
      OPENAI_PROJECT_ID: "proj-env",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    try {
      await adapter_for(server, { provider_id: "ollama", api_key: undefined }).complete(ask("hi"), { requester: "main" });
    } finally {
      for (const name of ["OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_BASE_URL"]) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }

    const headers = server.requests()[0]?.headers ?? {};
    expect(headers.authorization).toBeUndefined();
    expect(headers["openai-organization"]).toBeUndefined();
    expect(headers["openai-project"]).toBeUndefined();
  });

  it("works against a server whose API root has no /v1", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("ok")] } } });

    const response = await adapter_for(server, { base_url: server.url }).complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests()[0]?.path).toBe("/chat/completions");
  });
});

describe("failures", () => {
  it("a wrong key: not retried, names the provider's key variable and models.yaml, never shows the key", async () => {
    const server = await scripted_server({ api_key: "sk-the-right-key-000000", script: { turns: { main: [] } } });
    const wrong = "sk-the-wrong-key-111111";

    const failure = await failure_of(adapter_for(server, { api_key: new Secret(wrong) }).complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.user_action).toContain("Check OPENROUTER_API_KEY (or api_key under providers.openrouter in ~/.air/models.yaml)");
    expect(failure.error.metadata).toMatchObject({ status: 401, error_code: "invalid_api_key" });
    expect(JSON.stringify(failure.error)).not.toContain(wrong);
    expect(server.requests()).toHaveLength(1);
  });

  it("a server that wants a key when none is configured says to set one", async () => {
    const server = await scripted_server({ api_key: "sk-the-right-key-000000", script: { turns: { main: [] } } });

    const failure = await failure_of(adapter_for(server, { provider_id: "openai_compatible", api_key: undefined }).complete(ask("hi"), { requester: "main" }));

    expect(failure.error.user_action).toContain("wants an API key: set api_key under providers.openai_compatible in ~/.air/models.yaml");
  });

  it("a key the server echoes back is redacted", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 401, message: `Incorrect API key provided: ${OPENAI_KEY}` } }] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main" }));

    expect(failure.message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(failure.error)).not.toContain(OPENAI_KEY);
  });

  it("a model the server does not know: not retried, names the model id and the base URL", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 404, message: "The model `gpt-test` does not exist" } }] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main" }));

    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain(`the server at ${server.url}/v1 does not know model "gpt-test"`);
    expect(failure.message).toContain("The model `gpt-test` does not exist");
    expect(failure.error.user_action).toContain('Check the model id "gpt-test"');
    expect(failure.error.metadata).toMatchObject({ status: 404, error_code: "model_not_found" });
  });

  it("a base URL that is not an API root (a 404 for the path) says it usually ends in /v1", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const failure = await failure_of(adapter_for(server, { base_url: `${server.url}/api` }).complete(ask("hi"), { requester: "main" }));

    expect(failure.error.metadata).toMatchObject({ status: 404 });
    expect(failure.error.user_action).toContain("it usually ends in /v1");
    expect(server.requests()).toHaveLength(1);
  });

  it("a base URL where nothing listens: an env_error naming the base URL, not retried", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });
    const { policy, waits } = instant_retries();
    const adapter = adapter_for(server, { provider_id: "openai", retry: policy });
    await server.close();

    const failure = await failure_of(adapter.complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("env_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain(`no model server answers at ${server.url}/v1`);
    expect(failure.error.user_action).toContain("OPENAI_BASE_URL (or base_url under providers.openai in ~/.air/models.yaml)");
    expect(failure.error.metadata).toMatchObject({ connection: true, code: "ECONNREFUSED" });
    expect(waits).toEqual([]);
  });

  it.each([
    ["no default base URL and none configured", undefined, "has no base URL"],
    ["a base URL that is no http(s) URL", "localhost:11434/v1", "is not an http(s) URL"],
  ])("a provider with %s is refused when the adapter is made", (_case, base_url, message) => {
    const failure = expect_air_failure(
      () =>
        new OpenAICompatibleAdapter({
          provider_id: "openai_compatible",
          api_key: undefined,
          model_id: "llama3",
          ...(base_url === undefined ? {} : { base_url }),
        }),
    );

    expect(failure.kind).toBe("env_error");
    expect(failure.message).toContain(message);
    expect(failure.error.user_action).toContain("base_url under providers.openai_compatible in ~/.air/models.yaml");
  });

  it("a 429 is retried after the server's retry-after", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 429, retry_after_s: 3 } }, text_reply("after the wait")] } } });
    const { policy, waits } = instant_retries();
    const notices: RetryNotice[] = [];

    const response = await adapter_for(server, { retry: policy }).complete(ask("hi"), { requester: "main", on_retry: (notice) => notices.push(notice) });

    expect(response.content).toEqual([{ type: "text", text: "after the wait" }]);
    expect(waits).toEqual([3000]);
    expect(notices.map((notice) => [notice.attempt, notice.delay_ms, notice.error.metadata?.status])).toEqual([[1, 3000, 429]]);
  });

  it("a 500 and a 503 are retried with exponential backoff and jitter", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 500 } }, { error: { status: 503 } }, text_reply("finally")] } } });
    const { policy, waits } = instant_retries({ base_delay_ms: 1000, random: () => 0 });

    const response = await adapter_for(server, { retry: policy }).complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "finally" }]);
    expect(waits).toEqual([500, 1000]);
  });

  it("an error inside the stream is retried", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 503, in_stream: true } }, text_reply("second try")] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "second try" }]);
    expect(server.requests().map((request) => request.outcome.kind)).toEqual(["error", "reply"]);
  });

  it("a 400 is not retried and says what the server rejected", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ error: { status: 400, message: "messages: tool_call_id not found" } }, text_reply("never")] } },
    });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main" }));

    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain("messages: tool_call_id not found");
    expect(server.requests()).toHaveLength(1);
  });

  it("a stream that breaks off is retried, and the listener learns to start over", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ broken_stream: true }, text_reply("complete answer")] } } });
    let draft = "";

    const response = await adapter_for(server).complete(ask("hi"), {
      requester: "main",
      on_delta: (delta) => {
        if (delta.kind === "text") draft += delta.text;
      },
      on_retry: () => {
        draft = "";
      },
    });

    expect(response.content).toEqual([{ type: "text", text: "complete answer" }]);
    expect(draft).toBe("complete answer");
  });

  it("a stream that keeps breaking off gives up as a retryable broken_stream", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ broken_stream: true }] } } });

    const failure = await failure_of(
      adapter_for(server, { retry: { ...instant_retries().policy, max_attempts: 1 } }).complete(ask("hi"), { requester: "main" }),
    );

    expect(failure.error.retryability).toBe("retryable");
    expect(failure.message).toContain("broke off");
    expect(failure.error.metadata).toMatchObject({ broken_stream: true, attempts: 1 });
  });
});

describe("cancellation and listeners", () => {
  it("aborting while the answer streams in ends the call as cancelled, without a retry", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("a long answer in many pieces"), text_reply("x")] } } });
    const controller = new AbortController();

    const failure = await failure_of(
      adapter_for(server).complete(ask("hi"), { requester: "main", signal: controller.signal, on_delta: () => controller.abort() }),
    );

    expect(failure.error.metadata).toMatchObject({ cancelled: true });
    expect(server.requests()).toHaveLength(1);
  });

  it("an on_delta listener that throws fails the call once, as a system_error", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("hello"), text_reply("x")] } } });

    const failure = await failure_of(
      adapter_for(server).complete(ask("hi"), {
        requester: "main",
        on_delta: () => {
          throw new Error("listener bug");
        },
      }),
    );

    expect(failure.kind).toBe("system_error");
    expect(server.requests()).toHaveLength(1);
  });

  it("a tool name the API cannot carry is refused before anything is sent", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi", { tools: [{ ...READ, name: "fs read!" }] }), { requester: "main" }));

    expect(failure.kind).toBe("model_capability_error");
    expect(server.requests()).toHaveLength(0);
  });
});

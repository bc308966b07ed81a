/**
 * AnthropicAdapter against the scripted model server, over real HTTP with the real SDK: streaming,
 * tool use, usage, stop reasons, and every way a request can fail — retried when a retry can help,
 * reported at once when it cannot, always as an AirFailure.
 */
import net, { type AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import type { ModelDelta } from "../../src/contracts/provider.js";
import type { RetryNotice } from "../../src/providers/retry.js";
import { AnthropicAdapter } from "../../src/providers/anthropic.js";
import { Secret } from "../../src/providers/secret.js";
import { adapter_for, ask, instant_retries, scripted_server, TEST_KEY } from "./scripted.js";

async function failure_of(work: Promise<unknown>): Promise<AirFailure> {
  const error = await work.then(
    () => {
      throw new Error("expected an AirFailure, the call succeeded");
    },
    (thrown: unknown) => thrown,
  );
  expect(is_air_failure(error), String(error)).toBe(true);
  return error as AirFailure;
}

/** A loopback server that accepts each connection and closes it at once, counting them; closed after the test. */
async function dropping_server(): Promise<{ url: string; connections: () => number }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => count };
}

const READ_TOOL = {
  name: "fs.read",
  description: "Read a file",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

describe("a streamed text answer", () => {
  it("arrives as text deltas that add up to the final text, with end_turn", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ reply: { content: [{ type: "text", text: "Hello from the scripted model, in pieces." }] } }] } },
    });
    const deltas: ModelDelta[] = [];

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main", on_delta: (delta) => deltas.push(delta) });

    expect(response.content).toEqual([{ type: "text", text: "Hello from the scripted model, in pieces." }]);
    expect(response.stop_reason).toBe("end_turn");
    expect(response.model_id).toBe("claude-sonnet-4-5");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((delta) => delta.kind === "text" && delta.index === 0)).toBe(true);
    expect(deltas.map((delta) => (delta.kind === "text" ? delta.text : "")).join("")).toBe("Hello from the scripted model, in pieces.");
  });

  it("is requested as a stream, with the system prompt and the conversation tail cached and the requester named", async () => {
    const server = await scripted_server({ script: { turns: { executor: [{ reply: { content: [{ type: "text", text: "ok" }] } }] } } });

    await adapter_for(server).complete(ask("do it", { system: "You are the executor.", max_tokens: 512 }), { requester: "executor" });

    const [request] = server.requests();
    expect(request?.requester).toBe("executor");
    expect(request?.headers["x-air-requester"]).toBe("executor");
    expect(request?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      stream: true,
      system: [{ type: "text", text: "You are the executor.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "do it", cache_control: { type: "ephemeral" } }] }],
    });
  });

  it("reaches the server with the API key as x-api-key, and only there", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "ok" }] } }] } } });
    const adapter = adapter_for(server);

    await adapter.complete(ask("hi"), { requester: "main" });

    const [request] = server.requests();
    expect(request?.headers["x-api-key"]).toBe(TEST_KEY);
    expect(request?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(adapter)).not.toContain(TEST_KEY);
  });
});

describe("tool use", () => {
  it("returns the tool call with its input parsed from several input_json_delta pieces, under the registry name", async () => {
    const input = { path: "src/deeply/nested/folder/file-with-a-long-name.ts", encoding: "utf8" };
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            {
              expect: { tools: ["fs.read"] },
              reply: {
                content: [
                  { type: "text", text: "Let me look." },
                  { type: "tool_use", name: "fs.read", input },
                ],
              },
            },
          ],
        },
      },
    });
    const pieces: string[] = [];

    const response = await adapter_for(server).complete(ask("read it", { tools: [READ_TOOL] }), {
      requester: "main",
      on_delta: (delta) => {
        if (delta.kind === "tool_input") pieces.push(delta.partial_json);
      },
    });

    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(pieces.join(""))).toEqual(input);
    expect(response.stop_reason).toBe("tool_use");
    expect(response.content[1]).toMatchObject({ type: "tool_use", name: "fs.read", input });
    expect(typeof response.content[1]?.id).toBe("string");
    // On the wire the dotted name is not allowed; the server saw the wire form.
    expect(server.requests()[0]?.body).toMatchObject({ tools: [{ name: "fs-read", description: "Read a file" }] });
  });

  it("sends an earlier tool call and its result back, so the next turn sees the result", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            { reply: { content: [{ type: "tool_use", name: "fs.read", input: { path: "a.txt" }, id: "toolu_1" }] } },
            { expect: { tool_result_contains: "contents of a.txt" }, reply: { content: [{ type: "text", text: "The file says hello." }] } },
          ],
        },
      },
    });
    const adapter = adapter_for(server);
    const first = await adapter.complete(ask("read a.txt", { tools: [READ_TOOL] }), { requester: "main" });

    const second = await adapter.complete(
      {
        purpose: "answer",
        tools: [READ_TOOL],
        messages: [
          { role: "user", content: "read a.txt" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "contents of a.txt: hello" }] },
        ],
      },
      { requester: "main" },
    );

    expect(second.content).toEqual([{ type: "text", text: "The file says hello." }]);
    const resent = server.requests()[1]?.body as { messages: { content: unknown }[] };
    expect(resent.messages[1]?.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "fs-read", input: { path: "a.txt" } }]);
  });
});

describe("usage and stop reasons", () => {
  it("reports input, output and cache tokens", async () => {
    const usage = { input_tokens: 1200, output_tokens: 85, cache_creation_input_tokens: 900, cache_read_input_tokens: 4000 };
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "cached" }], usage } }] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.usage).toEqual(usage);
  });

  it("leaves cache figures out when the server sends none", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ reply: { content: [{ type: "text", text: "x" }], usage: { input_tokens: 10, output_tokens: 2 } } }] } },
    });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.usage).toEqual({ input_tokens: 10, output_tokens: 2 });
  });

  it.each(["end_turn", "max_tokens", "stop_sequence", "pause_turn", "refusal"] as const)("passes stop reason %s through", async (stop_reason) => {
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "..." }], stop_reason } }] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.stop_reason).toBe(stop_reason);
  });
});

describe("a request that does not match the script", () => {
  it("fails at once with the server's explanation", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ expect: { last_user_contains: "build the parser" }, reply: { content: [{ type: "text", text: "ok" }] } }] } },
    });

    const failure = await failure_of(adapter_for(server).complete(ask("write a poem"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain('the last user message does not contain "build the parser"');
    expect(failure.message).toContain('"write a poem"');
    expect(server.requests()).toHaveLength(1);
  });
});

describe("retries", () => {
  it("retries a 429 after the server's retry-after, and succeeds", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ error: { status: 429, retry_after_s: 2 } }, { reply: { content: [{ type: "text", text: "after the wait" }] } }] } },
    });
    const { policy, waits } = instant_retries();
    const notices: RetryNotice[] = [];

    const response = await adapter_for(server, { retry: policy }).complete(ask("hi"), { requester: "main", on_retry: (notice) => notices.push(notice) });

    expect(response.content).toEqual([{ type: "text", text: "after the wait" }]);
    expect(waits).toEqual([2000]);
    expect(notices.map((notice) => [notice.attempt, notice.delay_ms, notice.error.metadata?.status])).toEqual([[1, 2000, 429]]);
    expect(server.requests().map((request) => [request.turn_index, request.outcome.kind])).toEqual([
      [0, "error"],
      [1, "reply"],
    ]);
  });

  it("retries 529 overloaded with exponential backoff", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ error: { status: 529 } }, { error: { status: 529 } }, { reply: { content: [{ type: "text", text: "finally" }] } }] } },
    });
    const { policy, waits } = instant_retries({ base_delay_ms: 1000, random: () => 0 });

    const response = await adapter_for(server, { retry: policy }).complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "finally" }]);
    // random() = 0 gives the lower edge of the jitter: half the exponential ceiling.
    expect(waits).toEqual([500, 1000]);
    expect(server.requests()).toHaveLength(3);
  });

  it("retries an overloaded_error that arrives inside the stream", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ error: { status: 529, in_stream: true } }, { reply: { content: [{ type: "text", text: "second try" }] } }] } },
    });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "second try" }]);
    expect(server.requests().map((request) => request.outcome)).toEqual([
      { kind: "error", status: 529, type: "overloaded_error", in_stream: true },
      { kind: "reply", stream: true },
    ]);
  });

  it("retries a 500", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 500 } }, { reply: { content: [{ type: "text", text: "ok" }] } }] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.stop_reason).toBe("end_turn");
    expect(server.requests()).toHaveLength(2);
  });

  it("does not retry a 400", async () => {
    const server = await scripted_server({
      script: {
        turns: { main: [{ error: { status: 400, message: "messages: roles must alternate" } }, { reply: { content: [{ type: "text", text: "never" }] } }] },
      },
    });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain("messages: roles must alternate");
    expect(failure.error.metadata).toMatchObject({ status: 400, error_type: "invalid_request_error" });
    expect(server.requests()).toHaveLength(1);
  });

  it("retries a stream that breaks off, and the listener learns to start over", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ broken_stream: true }, { reply: { content: [{ type: "text", text: "complete answer" }] } }] } },
    });
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
    expect(server.requests().map((request) => request.outcome.kind)).toEqual(["broken_stream", "reply"]);
  });

  it("reports a broken stream as a retryable provider_error", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ broken_stream: true }] } } });

    const failure = await failure_of(
      adapter_for(server, { retry: { ...instant_retries().policy, max_attempts: 1 } }).complete(ask("hi"), { requester: "main" }),
    );

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("retryable");
    expect(failure.message).toContain("broke off");
    expect(failure.error.metadata).toMatchObject({ broken_stream: true, attempts: 1 });
  });

  it("gives up after max_attempts with a failure that is still retryable", async () => {
    const overloaded = { error: { status: 529 as const } };
    const server = await scripted_server({ script: { turns: { main: [overloaded, overloaded, overloaded, overloaded] } } });
    const { policy, waits } = instant_retries({ max_attempts: 3 });

    const failure = await failure_of(adapter_for(server, { retry: policy }).complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("retryable");
    expect(failure.message).toContain("gave up after 3 attempts");
    expect(failure.error.metadata).toMatchObject({ status: 529, attempts: 3 });
    expect(waits).toHaveLength(2);
    expect(server.requests()).toHaveLength(3);
  });

  it("retries a connection the server drops before answering", async () => {
    const dropper = await dropping_server();
    const { policy, waits } = instant_retries({ max_attempts: 2 });
    const adapter = new AnthropicAdapter({ api_key: new Secret(TEST_KEY), base_url: dropper.url, model_id: "claude-sonnet-4-5", retry: policy });

    const failure = await failure_of(adapter.complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("retryable");
    expect(failure.error.metadata).toMatchObject({ connection: true, attempts: 2 });
    expect(waits).toHaveLength(1);
    expect(dropper.connections()).toBe(2);
  });

  it("reports a server that refuses connections as an env_error naming its URL, without retrying", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });
    const { policy, waits } = instant_retries({ max_attempts: 3 });
    const adapter = adapter_for(server, { retry: policy });
    await server.close();

    const failure = await failure_of(adapter.complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("env_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.message).toContain(`no model server answers at ${server.url}`);
    expect(failure.error.user_action).toContain("ANTHROPIC_BASE_URL");
    expect(failure.error.metadata).toMatchObject({ connection: true, code: "ECONNREFUSED", base_url: server.url });
    expect(waits).toHaveLength(0);
  });
});

describe("authentication failures", () => {
  it("are not retried, name ANTHROPIC_API_KEY, and never show the key", async () => {
    const server = await scripted_server({ api_key: "sk-ant-the-right-key-000000", script: { turns: { main: [] } } });
    const wrong = "sk-ant-the-wrong-key-111111";

    const failure = await failure_of(adapter_for(server, { api_key: new Secret(wrong) }).complete(ask("hi"), { requester: "main" }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.user_action).toContain("ANTHROPIC_API_KEY");
    expect(failure.error.metadata).toMatchObject({ status: 401, error_type: "authentication_error" });
    expect(JSON.stringify(failure.error)).not.toContain(wrong);
    expect(server.requests()).toHaveLength(1);
  });

  it("redact the key when a server echoes it back", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 401, message: `invalid x-api-key ${TEST_KEY}` } }] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main" }));

    expect(failure.message).toContain("invalid x-api-key [redacted]");
    expect(JSON.stringify(failure.error)).not.toContain(TEST_KEY);
  });
});

describe("cancellation", () => {
  it("an aborted signal stops the request, and waiting between retries, without a retry", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ error: { status: 529 } }, { reply: { content: [{ type: "text", text: "too late" }] } }] } },
    });
    const controller = new AbortController();
    const adapter = adapter_for(server, {
      retry: {
        sleep: async () => {
          controller.abort();
          throw new DOMException("aborted", "AbortError");
        },
      },
    });

    const failure = await failure_of(adapter.complete(ask("hi"), { requester: "main", signal: controller.signal }));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.metadata).toMatchObject({ cancelled: true });
    expect(server.requests()).toHaveLength(1);
  });

  it("aborting while the answer streams in ends the call as cancelled, without a retry", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [{ reply: { content: [{ type: "text", text: "a long answer in many pieces" }] } }, { reply: { content: [{ type: "text", text: "x" }] } }],
        },
      },
    });
    const controller = new AbortController();

    const failure = await failure_of(
      adapter_for(server).complete(ask("hi"), { requester: "main", signal: controller.signal, on_delta: () => controller.abort() }),
    );

    expect(failure.error.metadata).toMatchObject({ cancelled: true });
    expect(server.requests()).toHaveLength(1);
  });

  it("a signal aborted before the call sends nothing", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ reply: { content: [{ type: "text", text: "x" }] } }] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi"), { requester: "main", signal: AbortSignal.abort() }));

    expect(failure.error.metadata).toMatchObject({ cancelled: true });
    expect(server.requests()).toHaveLength(0);
  });
});

describe("bad requests from our side", () => {
  it("a tool name the API cannot carry is refused before anything is sent", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const failure = await failure_of(adapter_for(server).complete(ask("hi", { tools: [{ ...READ_TOOL, name: "fs read!" }] }), { requester: "main" }));

    expect(failure.kind).toBe("model_capability_error");
    expect(server.requests()).toHaveLength(0);
  });

  it("an on_delta listener that throws fails the call once, as a system_error", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ reply: { content: [{ type: "text", text: "hello" }] } }, { reply: { content: [{ type: "text", text: "x" }] } }] } },
    });

    const failure = await failure_of(
      adapter_for(server).complete(ask("hi"), {
        requester: "main",
        on_delta: () => {
          throw new Error("listener bug");
        },
      }),
    );

    expect(failure.kind).toBe("system_error");
    expect(failure.message).toContain("listener bug");
    expect(server.requests()).toHaveLength(1);
  });
});

/**
 * The OpenAICompatibleAdapter's conversion, both ways: what Chat Completions cannot carry is listed in the
 * conversion report (and left out of the request), stop reasons and usage map to their canonical form,
 * and whatever a misbehaving server streams ends as a canonical response or an AirFailure, never a crash.
 */
import { describe, expect, it } from "vitest";
import type { CanonicalMessage, ModelRequest } from "../../src/contracts/provider.js";
import { IncompleteStream } from "../../src/providers/openai/failure.js";
import { ConversionLosses } from "../../src/providers/openai/report.js";
import { ChatStreamReader } from "../../src/providers/openai/response.js";
import { ToolNameMap } from "../../src/providers/tool-names.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { IMAGE, openai_adapter_for as adapter_for, READ, reply, text_reply } from "./openai-scripted.js";
import { ask, scripted_server } from "./scripted.js";

describe("the conversion report", () => {
  it("lists every request feature Chat Completions cannot carry, and the request goes out without them", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("ok")] } } });
    const cached = { type: "ephemeral" as const };
    const request: ModelRequest = {
      purpose: "answer",
      system: [
        { type: "text", text: "stable layers", cache_control: cached },
        { type: "text", text: "volatile layer" },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look at this", cache_control: cached },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "the user wants…", signature: "sig" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "As the docs say, it works.", citations: [{ type: "char_location", cited_text: "it works" }] },
            { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "x" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "image", source: { type: "file", file_id: "file_1" } },
            { type: "thinking", thinking: "misplaced", signature: "sig" },
            { type: "text", text: "and go on" },
          ],
        },
      ],
    };

    const response = await adapter_for(server).complete(request, { requester: "main" });

    const features = response.conversion?.losses.map((loss) => [loss.feature, loss.direction, loss.count]);
    expect(features).toEqual([
      ["cache_control", "request", 2],
      ["document", "request", 1],
      ["thinking", "request", 2],
      ["redacted_thinking", "request", 1],
      ["citations", "request", 1],
      ["server_tool_use", "request", 1],
      ["image", "request", 1],
    ]);
    expect(response.conversion?.losses.every((loss) => loss.detail.length > 0)).toBe(true);
    expect((server.requests()[0]!.body as { messages: unknown }).messages).toEqual([
      { role: "system", content: "stable layers\n\nvolatile layer" },
      { role: "user", content: "look at this" },
      { role: "assistant", content: "As the docs say, it works." },
      { role: "user", content: "and go on" },
    ]);
  });

  it("reports an image a tool returned, which a tool message cannot carry, and keeps the result's text", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("ok")] } } });
    const messages: CanonicalMessage[] = [
      { role: "user", content: "screenshot it" },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "fs.read", input: { path: "shot.png" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "shot.png, 2 KiB" }, IMAGE] }] },
    ];

    const response = await adapter_for(server).complete({ purpose: "answer", tools: [READ], messages }, { requester: "main" });

    expect(response.conversion?.losses).toEqual([
      { feature: "image", direction: "request", count: 1, detail: expect.stringContaining("inside a tool result") },
    ]);
    expect((server.requests()[0]!.body as { messages: unknown[] }).messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "shot.png, 2 KiB" });
  });

  it("lists what the response could not carry: reasoning, a finish_reason of the server's own, missing usage", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            reply(
              [
                { type: "thinking", thinking: "Let me think about it." },
                { type: "text", text: "42" },
              ],
              { openai: { finish_reason: "eos", omit_usage: true } },
            ),
          ],
        },
      },
    });

    const response = await adapter_for(server).complete(ask("the answer?"), { requester: "main" });

    expect(response.content).toEqual([{ type: "text", text: "42" }]);
    expect(response.stop_reason).toBe("end_turn");
    expect(response.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(response.conversion?.losses.map((loss) => [loss.feature, loss.direction, loss.count])).toEqual([
      ["reasoning", "response", 1],
      ["finish_reason", "response", 1],
      ["usage", "response", 1],
    ]);
    expect(response.conversion?.losses[1]?.detail).toContain('"eos"');
  });
});

describe("stop reasons and usage", () => {
  it.each([
    ["end_turn", "end_turn"],
    ["max_tokens", "max_tokens"],
    ["refusal", "refusal"],
    // Chat Completions says "stop" for both: the stop sequence is not told apart.
    ["stop_sequence", "end_turn"],
  ] as const)("a reply that stops with %s comes back as %s", async (stop_reason, expected) => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("...", { stop_reason })] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.stop_reason).toBe(expected);
    expect(response.conversion?.losses).toEqual([]);
  });

  it("reads a turn that calls tools as tool_use even when the server finishes it with stop", async () => {
    const server = await scripted_server({
      script: { turns: { main: [reply([{ type: "tool_use", name: "fs.read", input: { path: "a" } }], { openai: { finish_reason: "stop" } })] } },
    });

    const response = await adapter_for(server).complete(ask("read a", { tools: [READ] }), { requester: "main" });

    expect(response.stop_reason).toBe("tool_use");
    expect(response.conversion?.losses).toEqual([]);
  });

  it("counts cached prompt tokens apart from input tokens, as canonical usage does", async () => {
    const usage = { input_tokens: 250, output_tokens: 12, cache_read_input_tokens: 4000 };
    const server = await scripted_server({ script: { turns: { main: [text_reply("cached", { usage })] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.usage).toEqual(usage);
  });

  it("leaves the cache figure out when the server reports no cached tokens", async () => {
    const server = await scripted_server({ script: { turns: { main: [text_reply("x", { usage: { input_tokens: 10, output_tokens: 2 } })] } } });

    const response = await adapter_for(server).complete(ask("hi"), { requester: "main" });

    expect(response.usage).toEqual({ input_tokens: 10, output_tokens: 2 });
  });
});

describe("the stream reader, on what a misbehaving server may send", () => {
  const names = new ToolNameMap(["fs.read"]);
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
    ({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason }] }) as never;
  const call = (fields: Record<string, unknown>) => ({ tool_calls: [{ index: 0, ...fields }] });

  function read(chunks: never[]) {
    const reader = new ChatStreamReader("openrouter", undefined);
    for (const piece of chunks) reader.read(piece);
    return () => reader.response(names, "fallback-model", new ConversionLosses());
  }

  it("malformed tool arguments are a retryable provider_error, not a crash", () => {
    const failure = expect_air_failure(read([chunk(call({ id: "c1", function: { name: "fs-read", arguments: '{"path": "a' } })), chunk({}, "tool_calls")]));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.retryability).toBe("retryable");
    expect(failure.message).toContain('malformed JSON as arguments of tool "fs.read"');
  });

  it("arguments cut off at the token limit are not retried and say to raise max_tokens", () => {
    const failure = expect_air_failure(read([chunk(call({ id: "c1", function: { name: "fs-read", arguments: '{"path": "a' } })), chunk({}, "length")]));

    expect(failure.error.retryability).toBe("not_retryable");
    expect(failure.error.user_action).toContain("max_tokens");
  });

  it("arguments that are JSON but not an object, and a call without a name, are refused", () => {
    expect(expect_air_failure(read([chunk(call({ id: "c1", function: { name: "fs-read", arguments: "[1]" } })), chunk({}, "tool_calls")])).message).toContain(
      "not a JSON object",
    );
    expect(expect_air_failure(read([chunk(call({ id: "c1", function: { arguments: "{}" } })), chunk({}, "tool_calls")])).message).toContain(
      "without a function name",
    );
  });

  it("a call without arguments gets an empty input, a call without an id gets a unique one", () => {
    const response = read([chunk(call({ function: { name: "fs-read", arguments: "" } })), chunk({}, "tool_calls")])();
    const again = read([chunk(call({ function: { name: "fs-read" } })), chunk({}, "tool_calls")])();

    expect(response.content).toEqual([{ type: "tool_use", id: expect.stringMatching(/^call_air_/), name: "fs.read", input: {} }]);
    expect(again.content[0]?.id).not.toBe(response.content[0]?.id);
  });

  it("tool calls and choices a server does not number are told apart by their ids", () => {
    const unnumbered = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
      ({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ delta, finish_reason }] }) as never;
    const piece = (fields: Record<string, unknown>) => ({ tool_calls: [fields] });

    const response = read([
      unnumbered(piece({ id: "a", function: { name: "fs-read", arguments: '{"path":' } })),
      unnumbered(piece({ function: { arguments: '"a.ts"}' } })),
      unnumbered(piece({ id: "b", function: { name: "fs-read", arguments: '{"path":"b.ts"}' } })),
      unnumbered({}, "tool_calls"),
    ])();

    expect(response.content).toEqual([
      { type: "tool_use", id: "a", name: "fs.read", input: { path: "a.ts" } },
      { type: "tool_use", id: "b", name: "fs.read", input: { path: "b.ts" } },
    ]);
  });

  it("a stream without a finish_reason is incomplete", () => {
    expect(read([chunk({ content: "half an ans" })])).toThrow(IncompleteStream);
  });

  it("a refusal comes back as text with the refusal stop reason", () => {
    const response = read([chunk({ refusal: "I can't help with that." }), chunk({}, "stop")])();

    expect(response.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(response.stop_reason).toBe("refusal");
  });
});

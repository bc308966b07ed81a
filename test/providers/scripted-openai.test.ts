/**
 * The scripted model server's Chat Completions endpoint on its own, driven by the real openai SDK (and by
 * plain fetch to see the exact bytes, or to send what the SDK would not): the same scripts as the
 * Messages API, answered in OpenAI's wire format, streamed or not, refused with OpenAI-shaped errors.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { ScriptedServer } from "../../src/providers/scripted/server.js";
import { fixture_path } from "../fixtures/processes.js";
import { scripted_server, TEST_KEY } from "./scripted.js";

function client_for(server: ScriptedServer, requester?: string): OpenAI {
  return new OpenAI({
    apiKey: TEST_KEY,
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    ...(requester === undefined ? {} : { defaultHeaders: { "x-air-requester": requester } }),
  });
}

const one_reply = (text: string) => ({ reply: { content: [{ type: "text" as const, text }] } });
const hello = { model: "gpt-test", messages: [{ role: "user" as const, content: "hello" }] };
const READ_TOOL = { type: "function" as const, function: { name: "fs-read", parameters: { type: "object" } } };

/** The `data:` payloads of an SSE response, in order. */
async function sse_data(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((event) => event !== "")
    .map((event) => {
      expect(event.startsWith("data: "), event).toBe(true);
      return event.slice("data: ".length);
    });
}

async function post(server: ScriptedServer, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TEST_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
}

describe("one script, both APIs", () => {
  it("plays the YAML script of the Messages API tests turn by turn per requester, in Chat Completions", async () => {
    const server = await scripted_server({ script: fixture_path("scripts/two-requesters.yaml") });
    const executor = client_for(server, "executor");

    const planned = await client_for(server, "main").chat.completions.create({
      ...hello,
      messages: [
        { role: "system", content: "You are the Main Agent." },
        { role: "user", content: "please add a --verbose flag" },
      ],
    });
    const call = await executor.chat.completions.create({ ...hello, tools: [READ_TOOL] });
    const tool_call = call.choices[0]!.message.tool_calls![0]!;
    const done = await executor.chat.completions.create({
      ...hello,
      tools: [READ_TOOL],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [tool_call] },
        { role: "tool", tool_call_id: tool_call.id, content: "export function main() {}" },
      ],
    });

    expect(planned.choices[0]?.message.content).toBe("I will ask an executor to do this.");
    expect(planned.choices[0]?.finish_reason).toBe("stop");
    expect(tool_call).toEqual({ id: expect.any(String), type: "function", function: { name: "fs-read", arguments: JSON.stringify({ path: "src/cli.ts" }) } });
    expect(call.choices[0]?.finish_reason).toBe("tool_calls");
    // Cache writes have no figure of their own in Chat Completions: they count as prompt tokens.
    expect(call.usage).toMatchObject({ prompt_tokens: 3800, completion_tokens: 40, total_tokens: 3840 });
    expect(call.usage?.prompt_tokens_details).toBeUndefined();
    expect(done.choices[0]?.message.content).toBe("The flag goes into main().");
    expect(done.usage).toMatchObject({ prompt_tokens: 3900, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 1800 } });
    expect(server.requests().map((request) => [request.api, request.requester, request.turn_index, request.outcome.kind])).toEqual([
      ["openai_chat", "main", 0, "reply"],
      ["openai_chat", "executor", 0, "reply"],
      ["openai_chat", "executor", 1, "reply"],
    ]);
  });

  it("shares each requester's turns between the two APIs", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("first, over Messages"), one_reply("second, over Chat Completions")] } } });

    const first = await new Anthropic({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0 }).messages.create({ ...hello, max_tokens: 100 });
    const second = await client_for(server).chat.completions.create(hello);

    expect(first.content).toEqual([{ type: "text", text: "first, over Messages" }]);
    expect(second.choices[0]?.message.content).toBe("second, over Chat Completions");
    expect(server.requests().map((request) => request.api)).toEqual(["anthropic_messages", "openai_chat"]);
  });

  it("sends a scripted thinking block as a thinking block over Messages and as reasoning_content over Chat Completions", async () => {
    const thinking = {
      reply: {
        content: [
          { type: "thinking" as const, thinking: "Weighing it up." },
          { type: "text" as const, text: "Yes." },
        ],
      },
    };
    const server = await scripted_server({ script: { turns: { main: [thinking, thinking] } } });

    const message = await new Anthropic({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0 }).messages.stream({ ...hello, max_tokens: 100 }).finalMessage();
    const completion = await client_for(server).chat.completions.create(hello);

    expect(message.content[0]).toEqual({ type: "thinking", thinking: "Weighing it up.", signature: expect.any(String) });
    expect(message.content[1]).toMatchObject({ type: "text", text: "Yes." });
    expect(completion.choices[0]?.message).toMatchObject({ content: "Yes.", reasoning_content: "Weighing it up." });
  });
});

describe("streaming", () => {
  it("streams text in several content deltas, then finish_reason, then usage, then [DONE]", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ reply: { content: [{ type: "text", text: "Hello in several pieces." }], usage: { input_tokens: 7, output_tokens: 5 } } }] } },
    });

    const response = await post(server, { ...hello, stream: true, stream_options: { include_usage: true } });
    const data = await sse_data(response);

    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((piece) => JSON.parse(piece) as OpenAI.Chat.Completions.ChatCompletionChunk);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.model === "gpt-test")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "" });
    const contents = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? ""));
    expect(contents.filter((piece) => piece !== "").length).toBeGreaterThan(1);
    expect(contents.join("")).toBe("Hello in several pieces.");
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: "stop", logprobs: null }]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } });
  });

  it("sends no usage chunk unless stream_options.include_usage asks for it", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    const data = await sse_data(await post(server, { ...hello, stream: true }));

    expect(data.slice(0, -1).some((piece) => "usage" in (JSON.parse(piece) as object))).toBe(false);
  });

  it("streams parallel tool calls: each opened with index, id and name, its arguments in fragments", async () => {
    const inputs = [{ path: "src/a-long-file-name.ts" }, { path: "src/another-long-file-name.ts" }];
    const server = await scripted_server({
      script: { turns: { main: [{ reply: { content: inputs.map((input, n) => ({ type: "tool_use" as const, name: "fs.read", input, id: `call_${n}` })) } }] } },
    });

    const stream = await client_for(server).chat.completions.create({ ...hello, tools: [READ_TOOL], stream: true });
    const calls = new Map<number, { id?: string; name?: string; fragments: string[] }>();
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { fragments: [] };
        if (call.id !== undefined) entry.id = call.id;
        if (call.function?.name !== undefined) entry.name = call.function.name;
        if (call.function?.arguments) entry.fragments.push(call.function.arguments);
        calls.set(call.index, entry);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }

    expect([...calls.keys()]).toEqual([0, 1]);
    for (const [index, call] of calls) {
      expect(call).toMatchObject({ id: `call_${index}`, name: "fs-read" });
      expect(call.fragments.length).toBeGreaterThan(1);
      expect(JSON.parse(call.fragments.join(""))).toEqual(inputs[index]);
    }
    expect(finish).toBe("tool_calls");
  });

  it("sends a scripted error inside the stream as an error object, which the SDK throws", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 503, in_stream: true, message: "engine overloaded" } }] } } });

    const stream = await client_for(server).chat.completions.create({ ...hello, stream: true });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // drained until the error
      }
    })().catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("engine overloaded");
    expect(server.requests()[0]?.outcome).toEqual({ kind: "error", status: 503, type: "server_error", in_stream: true });
  });
});

describe("errors and refusals", () => {
  it("answers an error turn with OpenAI's error body and retry-after", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 429, retry_after_s: 7 } }] } } });

    const error = await client_for(server)
      .chat.completions.create(hello)
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.error).toEqual({ message: "scripted requests", type: "requests", param: null, code: "rate_limit_exceeded" });
    expect(limited.requestID).toBe("req_scripted_1");
  });

  it("checks the key as a Bearer token, not as x-api-key", async () => {
    const server = await scripted_server({ api_key: TEST_KEY, script: { turns: { main: [one_reply("welcome")] } } });

    const refused = await post(server, hello, { authorization: "Bearer sk-wrong", "x-api-key": TEST_KEY });
    const accepted = await client_for(server).chat.completions.create(hello);

    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_api_key" } });
    expect(accepted.choices[0]?.message.content).toBe("welcome");
  });

  it("matches expectations against the Chat Completions form of the request", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            {
              expect: { system_contains: "Main Agent", last_user_contains: "and go", tools: ["fs.read"], tool_result_contains: "exit code 0" },
              ...one_reply("matched"),
            },
          ],
        },
      },
    });

    const completion = await client_for(server).chat.completions.create({
      ...hello,
      tools: [READ_TOOL],
      messages: [
        { role: "system", content: "You are the Main Agent." },
        { role: "user", content: "build" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "fs-read", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "exit code 0" },
        { role: "user", content: [{ type: "text", text: "and go on" }] },
      ],
    });

    expect(completion.choices[0]?.message.content).toBe("matched");
  });

  it("refuses a request that misses its turn's expectations with an OpenAI-shaped 400 listing each miss", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ expect: { system_contains: "Main Agent", tools: ["shell.run"] }, ...one_reply("x") }] } },
    });

    const error = await client_for(server)
      .chat.completions.create({ ...hello, tools: [READ_TOOL] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const message = (error as InstanceType<typeof OpenAI.BadRequestError>).message;
    expect(message).toContain('the system prompt does not contain "Main Agent"');
    expect(message).toContain("does not offer the tools shell.run (it offers fs-read)");
  });

  it("refuses tool calls left unanswered, and tool messages that answer nothing, as the OpenAI API does", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x"), one_reply("y")] } } });
    const call = { id: "c1", type: "function", function: { name: "fs-read", arguments: "{}" } };

    const unanswered = await post(server, {
      ...hello,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "user", content: "next" },
      ],
    });
    const stray = await post(server, {
      ...hello,
      messages: [
        { role: "user", content: "go" },
        { role: "tool", tool_call_id: "c9", content: "?" },
      ],
    });

    expect(unanswered.status).toBe(400);
    expect(JSON.stringify(await unanswered.json())).toContain("the tool calls c1 were not answered by tool messages");
    expect(stray.status).toBe(400);
    expect(JSON.stringify(await stray.json())).toContain("must answer a tool call of the assistant message before it (tool_call_id c9)");
    expect(server.requests().map((request) => request.outcome.kind)).toEqual(["rejected", "rejected"]);
  });

  it("refuses a function name the OpenAI API would refuse", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    const response = await post(server, { ...hello, tools: [{ type: "function", function: { name: "fs.read" } }] });

    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("function names must match");
  });

  it("serves /chat/completions too, for a base URL without /v1", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("at the root")] } } });

    const completion = await new OpenAI({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0 }).chat.completions.create(hello);

    expect(completion.choices[0]?.message.content).toBe("at the root");
    expect(server.requests()[0]).toMatchObject({ path: "/chat/completions", api: "openai_chat" });
  });
});

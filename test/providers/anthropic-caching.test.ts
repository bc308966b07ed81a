/**
 * What the AnthropicAdapter adds on top of plain messages, as the scripted server receives it over the wire:
 * prompt-cache breakpoints (the caller's, then the conversation tail, never more than the API's four),
 * extended thinking (its budget, and thinking blocks returned and sent back unchanged), and token counting
 * through the provider's own endpoint.
 */
import { describe, expect, it } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import type { CanonicalMessage, ModelRequest, SystemBlock } from "../../src/contracts/provider.js";
import { Secret } from "../../src/providers/secret.js";
import { adapter_for, ask, scripted_server } from "./scripted.js";

const OK = { reply: { content: [{ type: "text" as const, text: "ok" }] } };
const EPHEMERAL = { type: "ephemeral" };

const READ_TOOL = {
  name: "fs.read",
  description: "Read a file",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

type Body = {
  system?: Record<string, unknown>[];
  messages: { role: string; content: string | Record<string, unknown>[] }[];
  max_tokens: number;
  thinking?: unknown;
};

/** Every block of a request body that carries a cache_control breakpoint, as "system[i]" / "messages[m][b]". */
function breakpoints(body: Body): string[] {
  const found: string[] = [];
  for (const [index, block] of (body.system ?? []).entries()) if (block.cache_control !== undefined) found.push(`system[${index}]`);
  for (const [m, message] of body.messages.entries()) {
    if (typeof message.content === "string") continue;
    for (const [b, block] of message.content.entries()) if (block.cache_control !== undefined) found.push(`messages[${m}][${b}]`);
  }
  return found;
}

async function failure_of(work: Promise<unknown>): Promise<AirFailure> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(is_air_failure(error), String(error)).toBe(true);
  return error as AirFailure;
}

const conversation: CanonicalMessage[] = [
  { role: "user", content: "read a.txt" },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "fs.read", input: { path: "a.txt" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hello" }] },
];

describe("prompt caching", () => {
  it("puts one breakpoint on the last block of the conversation tail, beside the system prompt's", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await adapter_for(server).complete({ purpose: "answer", system: "You are careful.", tools: [READ_TOOL], messages: conversation }, { requester: "main" });

    const body = server.requests()[0]?.body as Body;
    expect(breakpoints(body)).toEqual(["system[0]", "messages[2][0]"]);
    expect(body.messages[2]?.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_1", content: "hello", cache_control: EPHEMERAL }]);
    // Earlier turns go out exactly as they were: the cached prefix of the previous request.
    expect(body.messages[0]?.content).toBe("read a.txt");
  });

  it("keeps the caller's system breakpoints where they are", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const system: SystemBlock[] = [
      { type: "text", text: "L0 identity" },
      { type: "text", text: "L1 tools policy", cache_control: { type: "ephemeral" } },
      { type: "text", text: "L5 task" },
    ];

    await adapter_for(server).complete(ask("go", { system }), { requester: "main" });

    const body = server.requests()[0]?.body as Body;
    expect(body.system).toEqual(system);
    expect(breakpoints(body)).toEqual(["system[1]", "messages[0][0]"]);
  });

  it("never sends more than four breakpoints: the earliest of the caller's are dropped, the tail stays", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const system: SystemBlock[] = [1, 2, 3, 4, 5].map((n) => ({ type: "text", text: `layer ${n}`, cache_control: { type: "ephemeral" } }));

    await adapter_for(server).complete(ask("go", { system }), { requester: "main" });

    expect(breakpoints(server.requests()[0]?.body as Body)).toEqual(["system[2]", "system[3]", "system[4]", "messages[0][0]"]);
  });

  it("counts breakpoints already in the messages toward the four", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const marked = (text: string) => ({ type: "text", text, cache_control: { type: "ephemeral" } });
    const messages: CanonicalMessage[] = [
      { role: "user", content: [marked("one")] },
      { role: "assistant", content: [marked("two")] },
      { role: "user", content: [marked("three"), { type: "text", text: "four" }] },
    ];

    await adapter_for(server).complete({ purpose: "answer", system: "sys", messages }, { requester: "main" });

    expect(breakpoints(server.requests()[0]?.body as Body)).toEqual(["messages[0][0]", "messages[1][0]", "messages[2][0]", "messages[2][1]"]);
  });

  it("skips blocks that cannot carry a breakpoint at the tail (empty text)", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await adapter_for(server).complete(
      {
        purpose: "answer",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "text", text: "" },
            ],
          },
        ],
      },
      { requester: "main" },
    );

    expect(breakpoints(server.requests()[0]?.body as Body)).toEqual(["messages[0][0]"]);
  });

  it("leaves the caller's request untouched", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });
    const request: ModelRequest = {
      purpose: "answer",
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      messages: structuredClone(conversation),
    };
    const before = structuredClone(request);

    await adapter_for(server).complete(request, { requester: "main" });

    expect(request).toEqual(before);
  });

  it("adds no breakpoint of its own for a model without prompt caching", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await adapter_for(server, { prompt_caching: false }).complete(ask("go", { system: "plain" }), { requester: "main" });

    const body = server.requests()[0]?.body as Body;
    expect(breakpoints(body)).toEqual([]);
    expect(body.system).toEqual([{ type: "text", text: "plain" }]);
    expect(body.messages).toEqual([{ role: "user", content: "go" }]);
  });
});

describe("extended thinking", () => {
  it("asks for the configured budget on top of the answer's max_tokens", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await adapter_for(server, { thinking_budget_tokens: 2048 }).complete(ask("think", { max_tokens: 512 }), { requester: "main" });

    const body = server.requests()[0]?.body as Body;
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.max_tokens).toBe(2560);
  });

  it("cuts max_tokens to the model's output limit", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    await adapter_for(server, { thinking_budget_tokens: 2048, max_output_tokens: 4096 }).complete(ask("think"), { requester: "main" });

    expect((server.requests()[0]!.body as Body).max_tokens).toBe(4096);
  });

  it("refuses a budget that leaves no room for an answer, before sending anything", async () => {
    const server = await scripted_server({ script: { turns: { main: [OK] } } });

    const failure = await failure_of(
      adapter_for(server, { thinking_budget_tokens: 4096, max_output_tokens: 4096 }).complete(ask("think"), { requester: "main" }),
    );

    expect(failure.kind).toBe("user_error");
    expect(failure.error.user_action).toContain("thinking_budget_tokens");
    expect(server.requests()).toHaveLength(0);
  });

  it("returns thinking blocks in the canonical content and sends them back unchanged on the next turn", async () => {
    const server = await scripted_server({
      script: {
        turns: {
          main: [
            {
              reply: {
                content: [
                  { type: "thinking", thinking: "The file will tell me.", signature: "sig-abc" },
                  { type: "tool_use", name: "fs.read", input: { path: "a.txt" }, id: "toolu_1" },
                ],
              },
            },
            { expect: { tool_result_contains: "hello" }, reply: { content: [{ type: "text", text: "It says hello." }] } },
          ],
        },
      },
    });
    const adapter = adapter_for(server, { thinking_budget_tokens: 1024 });

    const first = await adapter.complete(ask("read a.txt", { tools: [READ_TOOL] }), { requester: "main" });
    await adapter.complete(
      {
        purpose: "answer",
        tools: [READ_TOOL],
        messages: [
          { role: "user", content: "read a.txt" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hello" }] },
        ],
      },
      { requester: "main" },
    );

    expect(first.content[0]).toEqual({ type: "thinking", thinking: "The file will tell me.", signature: "sig-abc" });
    const resent = (server.requests()[1]!.body as Body).messages[1]?.content as Record<string, unknown>[];
    expect(resent[0]).toEqual({ type: "thinking", thinking: "The file will tell me.", signature: "sig-abc" });
  });
});

describe("count_tokens", () => {
  it("asks the provider's endpoint, with system, tools and thinking as complete would send them", async () => {
    const server = await scripted_server({ script: { turns: { main: [] } } });

    const tokens = await adapter_for(server, { thinking_budget_tokens: 1024 }).count_tokens(ask("how big am I?", { system: "sys", tools: [READ_TOOL] }));

    const [request] = server.requests();
    expect(request?.path).toBe("/v1/messages/count_tokens");
    expect(request?.outcome).toEqual({ kind: "count_tokens", input_tokens: tokens });
    expect(tokens).toBeGreaterThan(0);
    expect(request?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: [{ text: "sys" }],
      tools: [{ name: "fs-read" }],
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(request?.body).not.toHaveProperty("max_tokens");
  });

  it("fails like complete does: a wrong key is a provider_error naming ANTHROPIC_API_KEY", async () => {
    const server = await scripted_server({ api_key: "sk-ant-the-right-key-000000", script: { turns: { main: [] } } });

    const failure = await failure_of(adapter_for(server, { api_key: new Secret("sk-ant-the-wrong-key-111111") }).count_tokens(ask("hi")));

    expect(failure.kind).toBe("provider_error");
    expect(failure.error.metadata).toMatchObject({ status: 401 });
    expect(failure.error.user_action).toContain("ANTHROPIC_API_KEY");
  });
});

/**
 * The scripted model server on its own, driven by the real SDK (and by plain fetch where the SDK would
 * refuse to send a bad request): it plays scripts turn by turn per requester, explains every refusal,
 * records every request, and rejects a bad script with a clear AirFailure.
 */
import Anthropic from "@anthropic-ai/sdk";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { is_air_failure, type AirFailure } from "../../src/contracts/errors.js";
import { load_script, parse_script } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { fixture_path, REPO_ROOT, TempDirs } from "../fixtures/processes.js";
import { scripted_server, TEST_KEY } from "./scripted.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

function client_for(server: ScriptedServer, requester?: string): Anthropic {
  return new Anthropic({
    apiKey: TEST_KEY,
    baseURL: server.url,
    maxRetries: 0,
    ...(requester === undefined ? {} : { defaultHeaders: { "x-air-requester": requester } }),
  });
}

/** What the server said when it refused a request (the message of its 400). */
async function refusal(work: Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  const error = await work.then(
    () => {
      throw new Error("expected the server to refuse the request");
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const api_error = error as InstanceType<typeof Anthropic.APIError>;
  const body = api_error.error as { error?: { message?: string } };
  return { status: api_error.status, message: body.error?.message ?? "" };
}

const one_reply = (text: string) => ({ reply: { content: [{ type: "text" as const, text }] } });
const hello = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user" as const, content: "hello" }] };

describe("playing a script", () => {
  it("answers each requester from its own turns, in order (YAML file)", async () => {
    const server = await scripted_server({ script: fixture_path("scripts/two-requesters.yaml") });
    const main = client_for(server, "main");
    const executor = client_for(server, "executor");
    const tools = [{ name: "fs-read", description: "Read a file", input_schema: { type: "object" as const } }];

    const planned = await main.messages.create({
      ...hello,
      system: "You are the Main Agent.",
      messages: [{ role: "user", content: "please add a --verbose flag" }],
    });
    const call = await executor.messages.create({ ...hello, tools });
    const done = await executor.messages.create({
      ...hello,
      tools,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: call.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: (call.content[0] as Anthropic.ToolUseBlock).id, content: "export function main() {}" }] },
      ],
    });

    expect(planned.content).toEqual([{ type: "text", text: "I will ask an executor to do this." }]);
    expect(call.content).toEqual([{ type: "tool_use", id: expect.any(String), name: "fs-read", input: { path: "src/cli.ts" } }]);
    expect(call.stop_reason).toBe("tool_use");
    expect(call.usage).toEqual({ input_tokens: 2000, output_tokens: 40, cache_creation_input_tokens: 1800 });
    expect(done.content).toEqual([{ type: "text", text: "The flag goes into main()." }]);
    expect(done.usage.cache_read_input_tokens).toBe(1800);
    expect(server.requests().map((request) => [request.requester, request.turn_index, request.outcome.kind])).toEqual([
      ["main", 0, "reply"],
      ["executor", 0, "reply"],
      ["executor", 1, "reply"],
    ]);
  });

  it("treats a request without x-air-requester as coming from main", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("for main")] } } });

    const message = await client_for(server).messages.create(hello);

    expect(message.content).toEqual([{ type: "text", text: "for main" }]);
    expect(server.requests()[0]?.requester).toBe("main");
  });

  it("estimates usage when the script gives none", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("short"), one_reply("short")] } } });
    const client = client_for(server);

    const small = await client.messages.create(hello);
    const large = await client.messages.create({ ...hello, messages: [{ role: "user", content: "hello ".repeat(500) }] });

    expect(small.usage.input_tokens).toBeGreaterThan(0);
    expect(small.usage.output_tokens).toBeGreaterThan(0);
    expect(large.usage.input_tokens).toBeGreaterThan(small.usage.input_tokens);
  });

  it("counts tokens without using up a turn", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("still here")] } } });
    const client = client_for(server);

    const counted = await client.messages.countTokens({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hello" }] });
    const message = await client.messages.create(hello);

    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(message.content).toEqual([{ type: "text", text: "still here" }]);
    expect(server.requests().map((request) => request.outcome.kind)).toEqual(["count_tokens", "reply"]);
  });

  it("answers an error turn with the API's error body and retry-after", async () => {
    const server = await scripted_server({ script: { turns: { main: [{ error: { status: 429, retry_after_s: 7 } }] } } });

    const error = await client_for(server)
      .messages.create(hello)
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rate_limited = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rate_limited.headers.get("retry-after")).toBe("7");
    expect(rate_limited.error).toEqual({ type: "error", error: { type: "rate_limit_error", message: "scripted rate_limit_error" } });
  });
});

describe("refusals explain themselves", () => {
  it("a request that misses its turn's expectations gets a 400 listing each miss", async () => {
    const server = await scripted_server({
      script: { turns: { main: [{ expect: { system_contains: "Main Agent", tools: ["fs.read", "shell.run"] }, ...one_reply("x") }] } },
    });

    const { status, message } = await refusal(
      client_for(server).messages.create({ ...hello, system: "You are a poet.", tools: [{ name: "fs-read", input_schema: { type: "object" } }] }),
    );

    expect(status).toBe(400);
    expect(message).toContain('does not match turn 0 of requester "main"');
    expect(message).toContain('the system prompt does not contain "Main Agent" (it is "You are a poet.")');
    expect(message).toContain("does not offer the tools shell.run (it offers fs-read)");
    expect(server.requests()[0]?.outcome).toMatchObject({ kind: "rejected", status: 400 });
  });

  it("a request after the last turn gets a 400 saying the script ran out", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("only one")] } } });
    const client = client_for(server);
    await client.messages.create(hello);

    const { status, message } = await refusal(client.messages.create(hello));

    expect(status).toBe(400);
    expect(message).toContain('no turn left for requester "main" (it has 1; this is request 2 from "main")');
  });

  it("a requester the script does not know gets the same 400", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    const { message } = await refusal(client_for(server, "reviewer").messages.create(hello));

    expect(message).toContain('no turn left for requester "reviewer" (it has 0');
  });

  it("a dotted tool name is refused, as the real API refuses it", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    const { status, message } = await refusal(client_for(server).messages.create({ ...hello, tools: [{ name: "fs.read", input_schema: { type: "object" } }] }));

    expect(status).toBe(400);
    expect(message).toContain("tool names must match");
  });

  it("a body that is not a Messages request, and a path that is not served, are refused", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    const missing_max_tokens = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": TEST_KEY },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    const unknown_path = await fetch(`${server.url}/v1/complete`, { method: "POST", body: "{}" });

    expect(missing_max_tokens.status).toBe(400);
    expect(JSON.stringify(await missing_max_tokens.json())).toContain("max_tokens");
    expect(unknown_path.status).toBe(404);
    expect(server.requests().map((request) => request.outcome.kind)).toEqual(["rejected", "rejected"]);
  });
});

describe("recording", () => {
  it("keeps method, path, api, headers (x-api-key included), body, requester, turn and outcome of every request", async () => {
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } } });

    await client_for(server, "main").messages.create(hello);

    expect(server.requests()).toEqual([
      {
        seq: 1,
        method: "POST",
        path: "/v1/messages",
        api: "anthropic_messages",
        headers: expect.objectContaining({ "x-api-key": TEST_KEY, "x-air-requester": "main", "content-type": "application/json" }),
        body: hello,
        requester: "main",
        turn_index: 0,
        outcome: { kind: "reply", stream: false },
      },
    ]);
  });

  it("appends each request to the record file as a JSON line, with the key redacted", async () => {
    const record_file = path.join(dirs.make("air-record-"), "requests.ndjson");
    const server = await scripted_server({ script: { turns: { main: [one_reply("x")] } }, record_file });
    const client = client_for(server);

    await client.messages.create(hello);
    await client.messages.create(hello).catch(() => undefined);

    const lines = fs
      .readFileSync(record_file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { headers: Record<string, string>; outcome: { kind: string } });
    expect(lines.map((line) => line.outcome.kind)).toEqual(["reply", "rejected"]);
    expect(lines[0]?.headers["x-api-key"]).toBe("[redacted]");
    expect(fs.readFileSync(record_file, "utf8")).not.toContain(TEST_KEY);
  });
});

describe("a bad script", () => {
  function failure_for_file(name: string, text: string): AirFailure {
    const file = path.join(dirs.make("air-script-"), name);
    fs.writeFileSync(file, text);
    const failure = expect_air_failure(() => load_script(file));
    expect(failure.message).toContain(file);
    return failure;
  }

  it("that is not YAML is a user_error naming the file", () => {
    const failure = failure_for_file("script.yaml", "turns:\n  main: [\n");

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toContain("is not valid YAML");
    expect(failure.error.user_action).toContain("turns:");
  });

  it("that is not JSON is a user_error naming the file", () => {
    const failure = failure_for_file("script.json", "{ turns: ");

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toContain("is not valid JSON");
  });

  it("with a turn that both replies and fails says so", () => {
    const failure = failure_for_file("script.yaml", "turns:\n  main:\n    - reply: { content: [ { type: text, text: hi } ] }\n      error: { status: 500 }\n");

    expect(failure.message).toContain("exactly one of reply, error, broken_stream");
  });

  it("with an unknown field or an unsupported status is refused", () => {
    expect(failure_for_file("a.yaml", "turns:\n  main:\n    - reply: { content: [ { type: text, text: hi } ] }\n      expct: {}\n").kind).toBe("user_error");
    expect(failure_for_file("b.yaml", "turns:\n  main:\n    - error: { status: 418 }\n").kind).toBe("user_error");
  });

  it("that does not exist is a user_error", () => {
    const failure = expect_air_failure(() => load_script(path.join(dirs.make("air-script-"), "missing.yaml")));

    expect(failure.kind).toBe("user_error");
    expect(failure.message).toContain("ENOENT");
  });

  it("given inline stops the server from starting", async () => {
    const error = await start_scripted_server({ script: { turns: { main: [{ reply: { content: [] } }] } } }).catch((thrown: unknown) => thrown);

    expect(is_air_failure(error)).toBe(true);
    expect((error as AirFailure).kind).toBe("user_error");
  });

  it("is not among the e2e fixtures' scripts (fixtures/*/script.yaml): each of them loads", () => {
    const root = path.join(REPO_ROOT, "fixtures");
    const files = fs.existsSync(root)
      ? fs
          .readdirSync(root)
          .map((name) => path.join(root, name, "script.yaml"))
          .filter((file) => fs.existsSync(file))
      : [];

    for (const file of files) expect(() => load_script(file), file).not.toThrow();
  });

  it("loaded once, can start any number of servers", async () => {
    const script = load_script(fixture_path("scripts/two-requesters.yaml"));

    const server = await scripted_server({ script });

    expect(Object.keys(script.turns)).toEqual(["main", "executor"]);
    expect(parse_script(script)).toBe(script);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

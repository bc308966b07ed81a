/**
 * `-c/--continue` and `-r/--resume [ID]` headless, as in the peers: the built CLI against the scripted model
 * server. A continued session keeps its id, and its Main Agent is asked with the conversation so far — the
 * scripted conversations below match a request by its first user message, so a request that lost the earlier
 * conversation would find no turn and fail.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/providers/scripted/exchange.js";
import type { ScriptInput, TurnInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { air, air_env, copy_fixture_project, require_build, session_ids, temp_dir } from "../e2e/helpers.js";

const KEY = "sk-continue-test";

const chat = (expected: string, answer: string): TurnInput => ({
  expect: { last_user_contains: expected },
  reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "chat", answer } }] },
});

const SCRIPT: ScriptInput = {
  conversations: [
    {
      name: "first",
      match: { requester: "main", first_user_contains: "What is the answer?" },
      turns: [chat("What is the answer?", "Forty-two."), chat("And doubled?", "Eighty-four.")],
    },
    {
      name: "second",
      match: { requester: "main", first_user_contains: "Another question." },
      turns: [chat("Another question.", "Sure."), chat("Anything else?", "Nothing else."), chat("Picked by a bare -r.", "Still the second.")],
    },
  ],
};

type RunJson = { session_id: string; code: number; summary: string };

let server: ScriptedServer;
let work: { dir: string; cleanup: () => void };
let project: string;
let env: NodeJS.ProcessEnv;

async function run_json(args: readonly string[]): Promise<RunJson> {
  const run = await air([...args, "--output-format", "json"], { cwd: project, env });
  expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
  return JSON.parse(run.stdout) as RunJson;
}

/** The messages of the Main Agent's request that the scripted conversation answered with its turn `turn`. */
function main_request(conversation: string, turn: number): { role: string; content: unknown }[] {
  const request = server.requests().find((entry: RecordedRequest) => entry.conversation === conversation && entry.turn_index === turn);
  if (request === undefined) throw new Error(`no request answered by ${conversation}[${turn}]`);
  return (request.body as { messages: { role: string; content: unknown }[] }).messages;
}

const text_of = (content: unknown): string =>
  typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");

let first: RunJson;
let second: RunJson;

beforeAll(async () => {
  require_build();
  work = temp_dir("air-continue-");
  server = await start_scripted_server({ script: SCRIPT, api_key: KEY });
  project = copy_fixture_project("worker", work.dir);
  env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });
  first = await run_json(["run", "-p", "What is the answer?"]);
  second = await run_json(["run", "-p", "Another question."]);
}, 120_000);

afterAll(async () => {
  await server?.close();
  work?.cleanup();
});

describe("air -r ID -p", () => {
  it("puts the message into that session, whose Main Agent sees the conversation so far", async () => {
    const resumed = await run_json(["-r", first.session_id, "-p", "And doubled?"]);
    expect(resumed).toMatchObject({ session_id: first.session_id, code: 0, summary: "Eighty-four." });
    expect(main_request("first", 1).map((message) => [message.role, text_of(message.content)])).toEqual([
      ["user", "What is the answer?"],
      ["assistant", "Forty-two."],
      ["user", "And doubled?"],
    ]);
    expect(session_ids(project)).toEqual([first.session_id, second.session_id].sort());
  }, 60_000);
});

describe("air -c -p", () => {
  it("continues the project's latest session", async () => {
    const continued = await run_json(["-c", "-p", "Anything else?"]);
    expect(continued).toMatchObject({ session_id: second.session_id, code: 0, summary: "Nothing else." });
    expect(main_request("second", 1).map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  }, 60_000);
});

describe("air run -r -p (no id, headless)", () => {
  it("continues the latest session, as nobody can pick one", async () => {
    const resumed = await run_json(["run", "-r", "-p", "Picked by a bare -r."]);
    expect(resumed).toMatchObject({ session_id: second.session_id, code: 0, summary: "Still the second." });
    expect(session_ids(project)).toHaveLength(2);
  }, 60_000);
});

describe("a session that cannot be continued", () => {
  it("is a user error naming an unknown id, pointing at `air session list`, with nothing started", async () => {
    const unknown = "ses_01ZZZZZZZZZZZZZZZZZZZZZZZZ";
    const before = server.requests().length;
    const run = await air(["run", "-r", unknown, "-p", "Hello?"], { cwd: project, env });
    expect(run.result.code).toBe(1);
    expect(run.stderr).toContain(`air: user_error: no session ${unknown} in this project`);
    expect(run.stderr).toContain("air session list");
    expect(run.stdout).toBe("");
    expect(server.requests()).toHaveLength(before);
    expect(session_ids(project)).toHaveLength(2);
  }, 60_000);

  it("is a user error in a folder with no air project", async () => {
    const empty = temp_dir("air-continue-empty-");
    try {
      const run = await air(["-c", "-p", "Hello?"], { cwd: empty.dir, env });
      expect(run.result.code).toBe(1);
      expect(run.stderr).toMatch(/air: user_error: no air project at or above .*, so no session to continue/);
    } finally {
      empty.cleanup();
    }
  }, 60_000);

  it("refuses -c and -r together", async () => {
    const run = await air(["-c", "-r", first.session_id, "-p", "Hello?"], { cwd: project, env });
    expect(run.result.code).toBe(1);
    expect(run.stderr).toContain("-c/--continue and -r/--resume cannot be used together");
  }, 60_000);
});

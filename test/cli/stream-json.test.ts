/**
 * `air run -p --output-format stream-json` read by a consumer written against Claude Code's stream-json
 * message shapes (the Agent SDK's SDKSystemMessage, SDKAssistantMessage, SDKUserMessage, SDKResultMessage),
 * not against air's code: every line of a real run of the built CLI against the scripted model server parses,
 * in the order Claude Code writes them, and what the result says agrees with the session's rows.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { air, air_env, copy_fixture_project, fixture_requirement, require_build, SHIPPED_FIXTURES, temp_dir } from "../e2e/helpers.js";

// ---------------------------------------------------------------------------------------------------
// Claude Code's stream-json shapes, as its consumers read them (unknown fields are ignored)
// ---------------------------------------------------------------------------------------------------

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Text = v.pipe(v.string(), v.minLength(1));
const Uuid = v.pipe(v.string(), v.uuid());

const Usage = v.object({ input_tokens: Count, output_tokens: Count, cache_creation_input_tokens: Count, cache_read_input_tokens: Count });

const TextBlock = v.object({ type: v.literal("text"), text: v.string() });
const ToolUseBlock = v.object({ type: v.literal("tool_use"), id: Text, name: Text, input: v.record(v.string(), v.unknown()) });
const ToolResultBlock = v.object({
  type: v.literal("tool_result"),
  tool_use_id: Text,
  content: v.union([v.string(), v.array(v.object({ type: Text }))]),
  is_error: v.boolean(),
});

const SystemInit = v.object({
  type: v.literal("system"),
  subtype: v.literal("init"),
  uuid: Uuid,
  session_id: Text,
  cwd: Text,
  model: Text,
  tools: v.array(Text),
  mcp_servers: v.array(v.object({ name: Text, status: Text })),
  permissionMode: v.picklist(["default", "acceptEdits", "bypassPermissions", "plan"]),
  apiKeySource: v.string(),
  slash_commands: v.array(v.string()),
  output_style: v.string(),
});

const AssistantMessage = v.object({
  type: v.literal("assistant"),
  uuid: Uuid,
  session_id: Text,
  parent_tool_use_id: v.nullable(Text),
  message: v.object({
    id: Text,
    type: v.literal("message"),
    role: v.literal("assistant"),
    model: Text,
    content: v.array(v.variant("type", [TextBlock, ToolUseBlock])),
    stop_reason: v.nullable(v.string()),
    usage: Usage,
  }),
});

const UserMessage = v.object({
  type: v.literal("user"),
  uuid: v.optional(Uuid),
  session_id: Text,
  parent_tool_use_id: v.nullable(Text),
  message: v.object({ role: v.literal("user"), content: v.union([v.string(), v.array(v.variant("type", [TextBlock, ToolResultBlock]))]) }),
});

const ResultCommon = {
  type: v.literal("result"),
  uuid: Uuid,
  session_id: Text,
  is_error: v.boolean(),
  duration_ms: Count,
  duration_api_ms: Count,
  num_turns: Count,
  total_cost_usd: v.pipe(v.number(), v.minValue(0)),
  usage: Usage,
  modelUsage: v.record(v.string(), v.object({ inputTokens: Count, outputTokens: Count, costUSD: v.number() })),
  permission_denials: v.array(v.object({ tool_name: Text, tool_use_id: Text, tool_input: v.record(v.string(), v.unknown()) })),
};
const ResultMessage = v.variant("subtype", [
  v.object({ ...ResultCommon, subtype: v.literal("success"), result: v.string() }),
  v.object({ ...ResultCommon, subtype: v.picklist(["error_max_turns", "error_during_execution"]), errors: v.array(v.string()) }),
]);

const SDKMessage = v.variant("type", [SystemInit, AssistantMessage, UserMessage, ResultMessage]);
type SDKMessage = v.InferOutput<typeof SDKMessage>;

/** The consumer: one message a line, each parsed against the shapes above. */
function read_stream(stdout: string): SDKMessage[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line, index) => {
      const parsed = v.safeParse(SDKMessage, JSON.parse(line));
      if (!parsed.success) throw new Error(`line ${index + 1} is no Claude Code message (${v.summarize(parsed.issues)}): ${line}`);
      return parsed.output;
    });
}

type Block = { type: string; id?: string; tool_use_id?: string; name?: string };
const blocks_of = (message: SDKMessage): Block[] =>
  message.type === "assistant" || (message.type === "user" && typeof message.message.content !== "string") ? (message.message.content as Block[]) : [];

// ---------------------------------------------------------------------------------------------------

const KEY = "sk-stream-json-test";
let server: ScriptedServer;
let work: { dir: string; cleanup: () => void };
let project: string;
let env: NodeJS.ProcessEnv;
let messages: SDKMessage[];

beforeAll(async () => {
  require_build();
  work = temp_dir("air-stream-json-");
  server = await start_scripted_server({ script: path.join(SHIPPED_FIXTURES, "worker", "script.yaml"), api_key: KEY });
  project = copy_fixture_project("worker", work.dir);
  env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });
  const run = await air(["run", "-p", fixture_requirement("worker"), "--output-format", "stream-json", "--permission-mode", "accept-edits"], {
    cwd: project,
    env,
  });
  expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
  messages = read_stream(run.stdout);
}, 120_000);

afterAll(async () => {
  await server?.close();
  work?.cleanup();
});

describe("air run -p --output-format stream-json", () => {
  it("opens with the init message and ends with the result, one of each", () => {
    expect(messages[0]?.type).toBe("system");
    expect(messages.at(-1)?.type).toBe("result");
    expect(messages.filter((message) => message.type === "system")).toHaveLength(1);
    expect(messages.filter((message) => message.type === "result")).toHaveLength(1);
    const init = messages[0] as v.InferOutput<typeof SystemInit>;
    expect(init).toMatchObject({ cwd: project, model: "claude-sonnet-4-5", permissionMode: "acceptEdits", apiKeySource: "ANTHROPIC_API_KEY" });
    expect(init.tools).toEqual(expect.arrayContaining(["fs.write", "shell.run"]));
  });

  it("names one session on every line: the one `air session list --json` lists", async () => {
    const listed = await air(["session", "list", "--json"], { cwd: project, env });
    const { sessions } = JSON.parse(listed.stdout) as { sessions: { id: string }[] };
    expect(sessions.map((session) => session.id)).toEqual([messages[0]?.session_id]);
    expect(new Set(messages.map((message) => message.session_id))).toEqual(new Set([sessions[0]?.id]));
  });

  it("answers every tool_use with exactly one tool_result, after it", () => {
    const used = new Map<string, number>();
    const answered = new Map<string, number>();
    messages.forEach((message, index) => {
      for (const block of blocks_of(message)) {
        if (block.type === "tool_use") used.set(block.id ?? "", index);
        if (block.type === "tool_result") {
          expect(answered.has(block.tool_use_id ?? ""), `tool_use ${block.tool_use_id} answered twice`).toBe(false);
          answered.set(block.tool_use_id ?? "", index);
        }
      }
    });
    expect(used.size).toBeGreaterThanOrEqual(2);
    expect([...answered.keys()].sort()).toEqual([...used.keys()].sort());
    for (const [id, at] of used) expect(answered.get(id)).toBeGreaterThan(at);
  });

  it("shows the worker as a subagent: its messages carry the id of the Task tool_use that handed it the task", () => {
    const tasks = messages.flatMap((message, index) =>
      message.type === "assistant" && message.parent_tool_use_id === null
        ? blocks_of(message)
            .filter((block) => block.type === "tool_use" && block.name === "Task")
            .map((block) => ({ id: block.id ?? "", at: index }))
        : [],
    );
    expect(tasks).toHaveLength(1);
    const task = tasks[0]!;
    const nested = messages.flatMap((message, index) => ("parent_tool_use_id" in message && message.parent_tool_use_id !== null ? [{ message, index }] : []));
    expect(nested.every(({ message }) => "parent_tool_use_id" in message && message.parent_tool_use_id === task.id)).toBe(true);
    const ended = messages.findIndex((message) => blocks_of(message).some((block) => block.type === "tool_result" && block.tool_use_id === task.id));
    expect(nested.every(({ index }) => index > task.at && index < ended)).toBe(true);
    // The worker's own model turns: the fs.write call, then its closing words.
    const worker_turns = nested
      .filter(({ message }) => message.type === "assistant")
      .map(({ message }) => blocks_of(message).map((block) => block.name ?? block.type));
    expect(worker_turns).toEqual([["fs.write"], ["text"]]);
  });

  it("ends with a success result whose text is the Main Agent's last message", () => {
    const result = messages.at(-1);
    if (result?.type !== "result" || result.subtype !== "success") throw new Error(`no success result: ${JSON.stringify(result)}`);
    expect(result.is_error).toBe(false);
    const last_main = messages.filter((message) => message.type === "assistant" && message.parent_tool_use_id === null).at(-1);
    expect(blocks_of(last_main!)).toEqual([{ type: "text", text: result.result }]);
    // The executor's own closing words, then the facts of its task.
    expect(result.result).toMatch(/^Wrote greeting\.txt; the verification command checks its content\.\n\n- Task "Add the greeting file" is completed\./);
  });

  it("reports the usage, cost, turns and time that the session's rows (`air tasks --json`) add up to", async () => {
    const result = messages.at(-1);
    if (result?.type !== "result") throw new Error("no result");
    const tasks = await air(["tasks", "--session", result.session_id, "--json"], { cwd: project, env });
    const { total } = JSON.parse(tasks.stdout) as { total: { turns: number; input_tokens: number; output_tokens: number; cost_usd: number } };
    const { usage } = result;
    expect(result.num_turns).toBe(total.turns);
    expect(usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens).toBe(total.input_tokens);
    expect(usage.output_tokens).toBe(total.output_tokens);
    expect(result.total_cost_usd).toBeCloseTo(total.cost_usd, 9);
    expect(result.total_cost_usd).toBeGreaterThan(0);
    expect(Object.values(result.modelUsage).reduce((sum, model) => sum + model.outputTokens, 0)).toBe(usage.output_tokens);
    // Every model message's own usage is part of the total.
    const told = messages.flatMap((message) => (message.type === "assistant" ? [message.message.usage.output_tokens] : []));
    expect(told.reduce((sum, tokens) => sum + tokens, 0)).toBeLessThanOrEqual(usage.output_tokens);
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(result.duration_ms).toBeGreaterThanOrEqual(result.duration_api_ms);
  });

  it("leaves the work done, as any other format would", () => {
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air");
  });
});

describe("the result of a stream-json run that fails", () => {
  async function failed_run(script: ScriptInput | string, args: readonly string[]): Promise<{ code: number | null; messages: SDKMessage[] }> {
    const scratch = temp_dir("air-stream-json-failed-");
    const failing = await start_scripted_server({ script, api_key: KEY });
    try {
      const root = copy_fixture_project("worker", scratch.dir);
      const run_env = air_env(path.join(scratch.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: failing.url });
      const run = await air(["run", "-p", fixture_requirement("worker"), "--output-format", "stream-json", "--permission-mode", "accept-edits", ...args], {
        cwd: root,
        env: run_env,
      });
      return { code: run.result.code, messages: read_stream(run.stdout) };
    } finally {
      await failing.close();
      scratch.cleanup();
    }
  }

  it("is error_during_execution, with the error, when the model refuses the request", async () => {
    const { code, messages: lines } = await failed_run({ turns: { main: [{ error: { status: 400, message: "the request is malformed (scripted)" } }] } }, []);
    expect(code).toBe(1);
    expect(lines.map((line) => line.type)).toEqual(["system", "result"]);
    expect(lines[1]).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      errors: [expect.stringContaining("the request is malformed (scripted)")],
    });
  }, 60_000);

  it("is error_max_turns when a worker spent its turn budget", async () => {
    const { code, messages: lines } = await failed_run(path.join(SHIPPED_FIXTURES, "worker", "script.yaml"), ["--max-turns", "1"]);
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "error_max_turns", is_error: true });
  }, 60_000);
});

/**
 * Direct mode (seeds 003 §10.5): `/direct`, then the Main Agent runs the model ↔ tools loop itself in the main
 * workspace, every call judged by the session's permissions; `/done` collects the evidence, summarises, idle.
 * The real AnthropicAdapter over loopback against the scripted model server, or a server that never answers.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime, type Runtime } from "../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import type { PermissionMode } from "../../src/contracts/events/permission.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { TurnInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { silent_server } from "../fixtures/silent-server.js";

const KEY = "sk-direct-mode-test";
const WRITE_HELLO: TurnInput = {
  expect: { last_user_contains: "write hello.txt", tools: ["fs.write", "shell.run"] },
  reply: {
    content: [
      { type: "text", text: "Writing it." },
      { type: "tool_use", name: "fs.write", input: { path: "hello.txt", content: "hello\n" } },
    ],
  },
};
const text = (answer: string, expect: TurnInput["expect"] = {}): TurnInput => ({ expect, reply: { content: [{ type: "text", text: answer }] } });
const TWO_FILE_PATCH = [
  "--- a/src/greet.txt",
  "+++ b/src/greet.txt",
  "@@ -1 +1 @@",
  "-hello",
  "+hello, world",
  "--- a/src/count.txt",
  "+++ b/src/count.txt",
  "@@ -1,2 +1,3 @@",
  " one",
  " two",
  "+three",
  "",
].join("\n");
const PATCH_TWO_FILES: TurnInput[] = [
  {
    expect: { last_user_contains: "patch both", tools: ["fs.read", "fs.patch", "shell.run"] },
    reply: {
      content: [
        { type: "tool_use", name: "fs.read", input: { path: "src/greet.txt" } },
        { type: "tool_use", name: "fs.read", input: { path: "src/count.txt" } },
      ],
    },
  },
  { expect: { tool_result_contains: "two" }, reply: { content: [{ type: "tool_use", name: "fs.patch", input: { patch: TWO_FILE_PATCH } }] } },
  {
    expect: { tool_result_contains: "src/count.txt" },
    reply: { content: [{ type: "tool_use", name: "shell.run", input: { command: "grep -c three src/count.txt" } }] },
  },
  text("Patched both files.", { tool_result_contains: "exit_code" }),
];

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function session(): TempSession {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  return temp;
}

async function runtime_against(temp: TempSession, base_url: string, mode: PermissionMode): Promise<Runtime> {
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: base_url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
  });
  cleanups.push(() => runtime.stop());
  return runtime;
}

async function scripted(main: TurnInput[]): Promise<string> {
  const server = await start_scripted_server({ script: { turns: { main } }, api_key: KEY });
  cleanups.push(() => server.close());
  return server.url;
}

function payloads(temp: TempSession, type: string): Record<string, unknown>[] {
  return temp.session.store.query({ types: [type] as never }).map(({ event }) => event.payload as Record<string, unknown>);
}

function contents(temp: TempSession, type: "user.message.created" | "assistant.message.created"): unknown[] {
  return payloads(temp, type).map((payload) => payload.content);
}

async function rejection(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("direct mode", () => {
  it("runs the model's fs.write in the main workspace with no agent, answers, and /done summarises back to idle", async () => {
    const temp = session();
    const runtime = await runtime_against(temp, await scripted([WRITE_HELLO, text("Wrote hello.txt.", { tool_result_contains: "hello.txt" })]), "accept-edits");

    runtime.enter_direct();
    expect(runtime.in_direct_mode()).toBe(true);
    expect(await runtime.submit("please write hello.txt")).toEqual({ kind: "answered", answer: "Wrote hello.txt." });
    expect(fs.readFileSync(path.join(temp.project.layout.root, "hello.txt"), "utf8")).toBe("hello\n");
    expect(runtime.main_agent.getSnapshot().value).toEqual({ direct_mode: "awaiting_message" });

    const writes = payloads(temp, "tool.started").filter((payload) => payload.tool_name === "fs.write");
    expect(writes).toHaveLength(1);
    const tool_events = temp.session.store.query({ types: ["tool.started", "tool.completed"] });
    expect(tool_events.length).toBeGreaterThanOrEqual(2);
    for (const { event } of tool_events) {
      expect(event.payload).not.toHaveProperty("agent_id");
      expect(event.payload).not.toHaveProperty("task_id");
    }
    for (const payload of [...payloads(temp, "user.message.created"), ...payloads(temp, "assistant.message.created")]) {
      expect(payload).not.toHaveProperty("agent_id");
      expect(payload).not.toHaveProperty("task_id");
    }
    expect(payloads(temp, "task.created")).toEqual([]);

    const done = await runtime.leave_direct();
    expect(done.kind).toBe("answered");
    const summary = done.kind === "answered" ? done.answer : "";
    expect(summary).toMatch(/^Direct mode ended: 1 message, 1 tool run, 1 evidence record\./);
    expect(summary).toMatch(/Changed hello\.txt \(diff art_/);
    expect(contents(temp, "assistant.message.created").at(-1)).toBe(summary);
    expect(runtime.main_agent.getSnapshot().value).toBe("idle");
    expect(runtime.in_direct_mode()).toBe(false);
  });

  it("/done names every file one fs.patch changed with its diff, and the command that ran with its exit code", async () => {
    const temp = session();
    fs.mkdirSync(path.join(temp.project.layout.root, "src"));
    fs.writeFileSync(path.join(temp.project.layout.root, "src/greet.txt"), "hello\n");
    fs.writeFileSync(path.join(temp.project.layout.root, "src/count.txt"), "one\ntwo\n");
    const runtime = await runtime_against(temp, await scripted(PATCH_TWO_FILES), "accept-edits");

    runtime.enter_direct();
    expect(await runtime.submit("please patch both files")).toEqual({ kind: "answered", answer: "Patched both files." });
    expect(fs.readFileSync(path.join(temp.project.layout.root, "src/count.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    const diffs = temp.session.store
      .query({ types: ["artifact.created"] })
      .flatMap(({ event }) => (event.type === "artifact.created" && event.payload.artifact.type === "diff" ? [event.payload.artifact.id] : []));
    expect(diffs).toHaveLength(2);

    const done = await runtime.leave_direct();
    const summary = done.kind === "answered" ? done.answer : "";
    expect(summary).toMatch(/^Direct mode ended: 1 message, 4 tool runs, \d+ evidence records\./);
    expect(summary).toContain(`\nChanged src/greet.txt, src/count.txt (diffs ${diffs.join(", ")}).`);
    expect(summary).toContain("\nRan `grep -c three src/count.txt` (exit 0).");
    expect(summary).not.toContain("No file changed.");
  });

  it("keeps one conversation across the direct session's messages: the model sees what came before", async () => {
    const temp = session();
    const runtime = await runtime_against(temp, await scripted([text("First answer."), text("Second answer.", { last_user_contains: "second" })]), "default");
    runtime.enter_direct();
    await runtime.submit("first message");
    await runtime.submit("second message");
    const model_calls = payloads(temp, "tool.started").filter((payload) => payload.tool_name === "model.complete");
    const second = model_calls[1]?.input as { messages: { role: string; content: unknown }[] };
    expect(second.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(second.messages[0])).toContain("first message");
    expect(second.messages[1]?.content).toEqual([{ type: "text", text: "First answer." }]);
    expect(contents(temp, "user.message.created")).toEqual(["first message", "second message"]);
  });

  it("lets the session's permission engine judge each call: in default mode an unanswered write is refused and nothing is written", async () => {
    const temp = session();
    const runtime = await runtime_against(temp, await scripted([WRITE_HELLO, text("I could not write it.", { tool_result_contains: "error" })]), "default");
    runtime.enter_direct();
    expect(await runtime.submit("please write hello.txt")).toEqual({ kind: "answered", answer: "I could not write it." });
    expect(fs.existsSync(path.join(temp.project.layout.root, "hello.txt"))).toBe(false);
    const done = await runtime.leave_direct();
    expect(done.kind === "answered" && done.answer).toMatch(/1 tool run \(1 failed\).*\nNo file changed\./);
  });

  it("refuses /done outside direct mode and /direct while a direct turn runs; an interrupt ends the turn, not direct mode", async () => {
    const temp = session();
    const model = await silent_server();
    cleanups.push(() => model.close());
    const runtime = await runtime_against(temp, model.url, "default");
    expect(is_air_failure(await rejection(() => runtime.leave_direct()))).toBe(true);

    runtime.enter_direct();
    const running = runtime.submit("work that never ends");
    await until(() => model.requests() > 0);
    expect(runtime.busy()).toBe(true);
    expect(await rejection(() => runtime.enter_direct())).toMatchObject({ error: { message: "a turn is still running; the message was not sent" } });
    expect(await rejection(() => runtime.leave_direct())).toMatchObject({ error: { kind: "user_error" } });

    runtime.cancel("interrupted by the user");
    expect((await running).kind).toBe("failed");
    expect(runtime.busy()).toBe(false);
    expect(runtime.in_direct_mode()).toBe(true);
    const done = await runtime.leave_direct();
    expect(done.kind === "answered" && done.answer).toMatch(/^Direct mode ended: 1 message, 0 tool runs/);
    expect(runtime.main_agent.getSnapshot().value).toBe("idle");
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

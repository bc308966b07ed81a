/**
 * The interactive runtime: several messages in one session, one turn at a time, and an interrupt that
 * reaches the Main Agent's own model call. The real AnthropicAdapter over loopback: the scripted model
 * server, or a server that accepts the request and never answers (a model still thinking).
 */
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime, type Runtime } from "../../src/actors/runtime/runtime.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { silent_server } from "../fixtures/silent-server.js";

const KEY = "sk-runtime-turns-test";
const chat = (answer: string) => ({ reply: { content: [{ type: "tool_use" as const, name: "classify_request", input: { intent: "chat", answer } }] } });

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function runtime_against(temp: TempSession, base_url: string): Promise<Runtime> {
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: base_url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, {}),
    task_defaults: DEFAULT_TASK_DEFAULTS,
  });
  cleanups.push(() => runtime.stop());
  return runtime;
}

function user_messages(temp: TempSession): string[] {
  return temp.session.store.query({ types: ["user.message.created"] }).map(({ event }) => String((event.payload as { content: string }).content));
}

describe("Runtime turns", () => {
  it("answers several messages of one session, each in its own turn", async () => {
    const temp = open_temp_session();
    cleanups.push(() => temp.cleanup());
    const server = await start_scripted_server({ script: { turns: { main: [chat("first answer"), chat("second answer")] } }, api_key: KEY });
    cleanups.push(() => server.close());
    const runtime = await runtime_against(temp, server.url);

    expect(await runtime.submit("first question")).toEqual({ kind: "answered", answer: "first answer" });
    expect(runtime.busy()).toBe(false);
    expect(await runtime.submit("second question")).toEqual({ kind: "answered", answer: "second answer" });
    expect(user_messages(temp)).toEqual(["first question", "second question"]);
  });

  it("refuses a message while a turn runs, before recording it", async () => {
    const temp = open_temp_session();
    cleanups.push(() => temp.cleanup());
    const model = await silent_server();
    cleanups.push(() => model.close());
    const runtime = await runtime_against(temp, model.url);

    const running = runtime.submit("first question");
    expect(runtime.busy()).toBe(true);
    const refused = await runtime.submit("too soon").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(is_air_failure(refused) && refused.error).toMatchObject({ kind: "user_error", message: "a turn is still running; the message was not sent" });
    expect(user_messages(temp)).toEqual(["first question"]);
    runtime.cancel("test over");
    await running;
  });

  it("interrupts a turn whose model call is still waiting: the turn fails as cancelled and the next message runs", async () => {
    const temp = open_temp_session();
    cleanups.push(() => temp.cleanup());
    const model = await silent_server();
    cleanups.push(() => model.close());
    const runtime = await runtime_against(temp, model.url);

    const running = runtime.submit("a question the model never answers");
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (model.requests() > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    runtime.cancel("interrupted by the user");
    const outcome = await running;
    expect(outcome.kind).toBe("failed");
    expect(runtime.busy()).toBe(false);
    const cancelled = temp.session.store.query({ types: ["tool.cancelled"] }).map(({ event }) => event.payload);
    expect(cancelled).toEqual([expect.objectContaining({ reason: "interrupted by the user" })]);
    // The session goes on: the next message gets its own turn (refused only while one runs).
    const next = runtime.submit("another question");
    expect(runtime.busy()).toBe(true);
    runtime.cancel("test over");
    expect((await next).kind).toBe("failed");
  });
});

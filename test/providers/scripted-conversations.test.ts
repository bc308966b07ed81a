/**
 * Conversations of the scripted model server, driven by the real SDKs over loopback: each request is
 * answered by the conversation its matcher selects (a worker by its task), in that conversation's order
 * whatever other requests come in between, after the configured delay; a request nothing answers is
 * refused with a 400 that names it.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { AirFailure } from "../../src/contracts/errors.js";
import { refines } from "../../src/providers/scripted/conversation.js";
import { parse_script, type ScriptInput } from "../../src/providers/scripted/script.js";
import type { ScriptedServer } from "../../src/providers/scripted/server.js";
import { TurnPicker } from "../../src/providers/scripted/turn-picker.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { scripted_server, TEST_KEY } from "./scripted.js";

const text = (value: string) => ({ reply: { content: [{ type: "text" as const, text: value }] } });

/** Two workers keyed by their task, and the Main Agent answered from its own turns. */
const TEAM: ScriptInput = {
  turns: { main: [text("plan: alpha and beta")] },
  conversations: [
    { name: "alpha", match: { requester: "executor", task_title: "Fix alpha" }, turns: [text("alpha 1"), text("alpha 2")] },
    { name: "beta", match: { requester: "executor", task_title: "Fix beta" }, turns: [text("beta 1"), text("beta 2")] },
  ],
};

function spec_of(title: string): string {
  return `You are an executor.\n\n# Task specification: ${title}\n\nMake the tests pass.`;
}

function anthropic(server: ScriptedServer, requester: string): Anthropic {
  return new Anthropic({ apiKey: TEST_KEY, baseURL: server.url, maxRetries: 0, defaultHeaders: { "x-air-requester": requester } });
}

function openai(server: ScriptedServer, requester: string): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${server.url}/v1`, maxRetries: 0, defaultHeaders: { "x-air-requester": requester } });
}

async function worker_says(server: ScriptedServer, title: string): Promise<string> {
  const message = await anthropic(server, "executor").messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    system: spec_of(title),
    messages: [{ role: "user", content: `# Task: ${title}` }],
  });
  const [block] = message.content;
  return block?.type === "text" ? block.text : "";
}

async function refusal_of(work: Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  const error = await work.then(
    () => {
      throw new Error("expected the server to refuse the request");
    },
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Anthropic.APIError || error instanceof OpenAI.APIError)) throw error;
  const body = error.error as { error?: { message?: string }; message?: string } | undefined;
  return { status: error.status, message: body?.error?.message ?? body?.message ?? error.message };
}

describe("conversations keyed by a request matcher", () => {
  it("answers each worker from the conversation of its task, in its order, under any interleaving", async () => {
    const orders = [
      ["Fix alpha", "Fix alpha", "Fix beta", "Fix beta"],
      ["Fix beta", "Fix alpha", "Fix beta", "Fix alpha"],
      ["Fix beta", "Fix beta", "Fix alpha", "Fix alpha"],
    ];
    for (const order of orders) {
      const server = await scripted_server({ script: TEAM });
      const heard: Record<string, string[]> = { "Fix alpha": [], "Fix beta": [] };
      for (const title of order) heard[title]?.push(await worker_says(server, title));

      expect(heard, order.join(" → ")).toEqual({ "Fix alpha": ["alpha 1", "alpha 2"], "Fix beta": ["beta 1", "beta 2"] });
    }
  });

  it("keeps each conversation's order when its workers ask at the same time", async () => {
    const server = await scripted_server({ script: TEAM });

    const first = await Promise.all([worker_says(server, "Fix beta"), worker_says(server, "Fix alpha")]);
    const second = await Promise.all([worker_says(server, "Fix alpha"), worker_says(server, "Fix beta")]);

    expect([first, second]).toEqual([
      ["beta 1", "alpha 1"],
      ["alpha 2", "beta 2"],
    ]);
  });

  it("records which conversation answered, and leaves the requester's own turns to the requests no conversation selects", async () => {
    const server = await scripted_server({ script: TEAM });

    await worker_says(server, "Fix beta");
    const plan = await anthropic(server, "main").messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "fix both" }] });

    expect(plan.content).toEqual([{ type: "text", text: "plan: alpha and beta" }]);
    expect(server.requests().map(({ requester, conversation, turn_index }) => ({ requester, conversation, turn_index }))).toEqual([
      { requester: "executor", conversation: "beta", turn_index: 0 },
      { requester: "main", conversation: undefined, turn_index: 0 },
    ]);
  });

  it("selects by a regular expression over the system prompt and by the first user message", async () => {
    const server = await scripted_server({
      script: {
        conversations: [
          { name: "by-regex", match: { system_matches: "^# Task specification: Fix (gamma|delta)$" }, turns: [text("regex")] },
          { name: "by-request", match: { first_user_contains: "add a --verbose flag" }, turns: [text("first user")] },
        ],
      },
    });

    const regex = await worker_says(server, "Fix delta");
    const request = await anthropic(server, "main").messages.create({
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "user", content: "please add a --verbose flag" },
        { role: "assistant", content: "Which file?" },
        { role: "user", content: "src/cli.ts" },
      ],
    });

    expect(regex).toBe("regex");
    expect(request.content).toEqual([{ type: "text", text: "first user" }]);
  });

  it("checks a conversation turn's expectations like any turn's", async () => {
    const server = await scripted_server({
      script: {
        conversations: [{ name: "alpha", match: { task_title: "Fix alpha" }, turns: [{ expect: { last_user_contains: "never sent" }, ...text("x") }] }],
      },
    });

    const { status, message } = await refusal_of(worker_says(server, "Fix alpha"));

    expect(status).toBe(400);
    expect(message).toContain('does not match turn 0 of conversation "alpha"');
    expect(message).toContain('the last user message does not contain "never sent"');
  });
});

describe("refines", () => {
  const task = { requester: "executor", task_title: "Fix alpha" };

  it("holds when a matcher has every condition of the other, with the same values, and more", () => {
    expect(refines({ ...task, first_user_contains: "# The previous attempt failed" }, task)).toBe(true);
  });

  it("never holds for the same conditions, fewer ones, a different value, or conditions on other keys", () => {
    expect(refines(task, task)).toBe(false);
    expect(refines(task, { ...task, first_user_contains: "x" })).toBe(false);
    expect(refines({ requester: "executor", task_title: "Fix beta", first_user_contains: "x" }, task)).toBe(false);
    expect(refines({ task_title: "Fix alpha", system_contains: "y" }, { requester: "executor" })).toBe(false);
  });
});

describe("requests no conversation answers", () => {
  it("an unmatched worker gets a 400 naming its requester and task, and what each conversation matches (Messages API)", async () => {
    const server = await scripted_server({ script: TEAM });

    const { status, message } = await refusal_of(worker_says(server, "Fix gamma"));

    expect(status).toBe(400);
    expect(message).toContain('no turn left for requester "executor" (it has 0; this is request 1 from "executor")');
    expect(message).toContain(
      'no conversation matches it ("alpha": requester "executor", task_title "Fix alpha"; "beta": requester "executor", task_title "Fix beta")',
    );
    expect(message).toContain('The request: requester "executor", task_title "Fix gamma"');
    expect(message).toContain('first user message "# Task: Fix gamma"');
    expect(server.requests()[0]?.outcome).toMatchObject({ kind: "rejected", status: 400, type: "invalid_request_error" });
  });

  it("an unmatched worker gets the same refusal in OpenAI's error shape (Chat Completions)", async () => {
    const server = await scripted_server({ script: TEAM });

    const error = await openai(server, "executor")
      .chat.completions.create({
        model: "gpt-test",
        messages: [
          { role: "system", content: spec_of("Fix gamma") },
          { role: "user", content: "# Task: Fix gamma" },
        ],
      })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad_request = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad_request.error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
    expect(bad_request.message).toContain('task_title "Fix gamma"');
    expect(bad_request.message).toContain('no conversation matches it ("alpha"');
  });

  it("a request two conversations select goes to the one whose matcher refines the other's: a task's retry to its retry conversation", async () => {
    const server = await scripted_server({
      script: {
        conversations: [
          { name: "alpha", match: { requester: "executor", task_title: "Fix alpha" }, turns: [text("first attempt")] },
          {
            name: "alpha-retry",
            match: { requester: "executor", task_title: "Fix alpha", first_user_contains: "# The previous attempt failed" },
            turns: [text("retry")],
          },
        ],
      },
    });
    const ask = (first_user: string) =>
      anthropic(server, "executor").messages.create({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        system: spec_of("Fix alpha"),
        messages: [{ role: "user", content: first_user }],
      });

    const retry = await ask("# Task: Fix alpha\n\n# The previous attempt failed\nIt ended with a merge_error");
    const first = await ask("# Task: Fix alpha");

    expect([retry.content[0], first.content[0]]).toEqual([
      { type: "text", text: "retry" },
      { type: "text", text: "first attempt" },
    ]);
    expect(server.requests().map((request) => request.conversation)).toEqual(["alpha-retry", "alpha"]);
  });

  it("a request two conversations select is refused, naming both", async () => {
    const server = await scripted_server({
      script: {
        conversations: [
          { name: "any-executor", match: { requester: "executor" }, turns: [text("a")] },
          { name: "alpha", match: { task_title: "Fix alpha" }, turns: [text("b")] },
        ],
      },
    });

    const { message } = await refusal_of(worker_says(server, "Fix alpha"));

    expect(message).toContain('matches more than one conversation ("any-executor", "alpha") and no one of them refines all the others');
  });

  it("a conversation that ran out says so", async () => {
    const server = await scripted_server({ script: TEAM });
    await worker_says(server, "Fix alpha");
    await worker_says(server, "Fix alpha");

    const { message } = await refusal_of(worker_says(server, "Fix alpha"));

    expect(message).toContain('conversation "alpha" has no turn left (it has 2; this is its request 3)');
    expect(server.requests().map((request) => [request.conversation, request.turn_index, request.outcome.kind])).toEqual([
      ["alpha", 0, "reply"],
      ["alpha", 1, "reply"],
      ["alpha", 2, "rejected"],
    ]);
  });
});

describe("the Chat Completions route", () => {
  it("selects the conversation by the task title of the system message", async () => {
    const server = await scripted_server({ script: TEAM });
    const client = openai(server, "executor");
    const ask = (title: string) =>
      client.chat.completions.create({
        model: "gpt-test",
        messages: [
          { role: "system", content: spec_of(title) },
          { role: "user", content: `# Task: ${title}` },
        ],
      });

    const beta = await ask("Fix beta");
    const alpha = await ask("Fix alpha");

    expect([alpha.choices[0]?.message.content, beta.choices[0]?.message.content]).toEqual(["alpha 1", "beta 1"]);
    expect(server.requests().map((request) => [request.api, request.conversation])).toEqual([
      ["openai_chat", "beta"],
      ["openai_chat", "alpha"],
    ]);
  });
});

describe("delays", () => {
  it("a turn's delay_ms beats its conversation's, which beats the script's", () => {
    const script = parse_script({
      delay_ms: 300,
      turns: { main: [text("script default"), { ...text("own"), delay_ms: 5 }] },
      conversations: [{ name: "alpha", match: { task_title: "Fix alpha" }, delay_ms: 40, turns: [text("conversation"), { ...text("own"), delay_ms: 0 }] }],
    });
    const picker = new TurnPicker(script);
    const view = (system: string) => ({ system, last_user_text: "", first_user_text: "", tool_results: [], tools: [] });
    const delay_of = (requester: string, system: string) => {
      const pick = picker.pick({ requester, view: view(system) });
      return pick.ok ? pick.picked.delay_ms : pick.refusal.reason;
    };

    expect([delay_of("main", ""), delay_of("main", ""), delay_of("executor", spec_of("Fix alpha")), delay_of("executor", spec_of("Fix alpha"))]).toEqual([
      300, 5, 40, 0,
    ]);
  });

  it("the server's delay_ms stands in for a script that sets none, and gives way to one that does", () => {
    const turns = { main: [text("x")] };
    const pick_delay = (script: ScriptInput) => {
      const pick = new TurnPicker(parse_script(script), 250).pick({
        requester: "main",
        view: { system: "", last_user_text: "", first_user_text: "", tool_results: [], tools: [] },
      });
      return pick.ok ? pick.picked.delay_ms : pick.refusal.reason;
    };

    expect([pick_delay({ turns }), pick_delay({ delay_ms: 10, turns })]).toEqual([250, 10]);
  });

  it("a delayed answer lets a later request without delay overtake it", async () => {
    const server = await scripted_server({
      script: {
        conversations: [
          { name: "slow", match: { task_title: "Fix alpha" }, delay_ms: 1500, turns: [text("slow")] },
          { name: "fast", match: { task_title: "Fix beta" }, turns: [text("fast")] },
        ],
      },
    });
    const finished: string[] = [];

    const slow = worker_says(server, "Fix alpha").then((said) => finished.push(said));
    const fast = worker_says(server, "Fix beta").then((said) => finished.push(said));
    await Promise.all([slow, fast]);

    expect(finished).toEqual(["fast", "slow"]);
  });

  it("a hold keeps a turn's answer back until its promise settles, and sees which turn it holds", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: unknown[] = [];
    const server = await scripted_server({
      script: TEAM,
      hold: (turn) => {
        held.push(turn);
        return turn.conversation === "alpha" ? gate : undefined;
      },
    });
    const finished: string[] = [];

    const alpha = worker_says(server, "Fix alpha").then((said) => finished.push(said));
    await worker_says(server, "Fix beta").then((said) => finished.push(said));
    await worker_says(server, "Fix beta").then((said) => finished.push(said));
    const before_release = [...finished];
    release();
    await alpha;

    expect(before_release).toEqual(["beta 1", "beta 2"]);
    expect(finished).toEqual(["beta 1", "beta 2", "alpha 1"]);
    expect(held).toEqual([
      { requester: "executor", conversation: "alpha", index: 0 },
      { requester: "executor", conversation: "beta", index: 0 },
      { requester: "executor", conversation: "beta", index: 1 },
    ]);
  });

  it("closing the server drops the answers still waiting", async () => {
    const server = await scripted_server({ script: { delay_ms: 60_000, turns: { main: [text("never")] } } });
    const waiting = anthropic(server, "main")
      .messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((thrown: unknown) => thrown);
    // Answered at once, so by then the delayed request has very likely arrived and is waiting.
    await fetch(`${server.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } });

    await server.close();

    expect(await waiting).toBeInstanceOf(Anthropic.APIConnectionError);
  });
});

describe("a bad conversation script", () => {
  function failure_for(script: unknown): AirFailure {
    return expect_air_failure(() => parse_script(script));
  }

  it("is refused with the reason: duplicate names, an empty matcher, a bad regex, no turns, a negative delay", () => {
    const turn = text("x");
    const cases: [unknown, string][] = [
      [
        {
          conversations: [
            { name: "a", match: { requester: "executor" }, turns: [turn] },
            { name: "a", match: { requester: "main" }, turns: [turn] },
          ],
        },
        "conversation names must be unique",
      ],
      [{ conversations: [{ name: "a", match: {}, turns: [turn] }] }, "a matcher needs at least one condition"],
      [{ conversations: [{ name: "a", match: { system_matches: "(" }, turns: [turn] }] }, "not a valid regular expression"],
      [{ conversations: [{ name: "a", match: { requester: "executor" }, turns: [] }] }, "turns"],
      [{ delay_ms: -1, turns: {} }, "delay_ms"],
    ];
    for (const [script, reason] of cases) {
      const failure = failure_for(script);
      expect(failure.kind, reason).toBe("user_error");
      expect(failure.message, reason).toContain(reason);
    }
  });
});

import { describe, expect, it } from "vitest";
import { AgentContext, type AgentContextOptions, type PersistedMessage } from "../../src/context/agent-context.js";
import { make_layer } from "../../src/context/layers.js";
import { AirFailure } from "../../src/contracts/errors.js";
import type { ContentBlock, ModelResponse } from "../../src/contracts/provider.js";

const LAYERS = [make_layer("runtime_invariant", "runtime-invariant", "You are an agent of air."), make_layer("task_spec", "task/t", "# Task specification: t")];

function reply(index: number, output_chars = 0): { response: ModelResponse; results: ContentBlock[] } {
  const id = `toolu_${index}`;
  return {
    response: {
      model_id: "scripted",
      content: [{ type: "tool_use", id, name: "fs.read", input: { path: `f${index}` } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    results: [{ type: "tool_result", tool_use_id: id, content: "r".repeat(output_chars) }],
  };
}

function agent(options: Partial<AgentContextOptions> = {}): { context: AgentContext; persisted: PersistedMessage[] } {
  const persisted: PersistedMessage[] = [];
  const context = new AgentContext({
    purpose: "task_execution",
    layers: LAYERS,
    tools: [],
    context_window: 10_000,
    token_budget: 9_000,
    persist: (message) => persisted.push(message),
    ...options,
  });
  return { context, persisted };
}

/** `turns` tool round trips of `chars` characters of output each. */
function fill(context: AgentContext, turns: number, chars: number): void {
  for (let index = 1; index <= turns; index += 1) {
    const { response, results } = reply(index, chars);
    context.add_assistant(response);
    context.add_user(results);
  }
}

describe("AgentContext", () => {
  it("persists every message as it is added, under the id the conversation keeps", async () => {
    const { context, persisted } = agent();
    const task = context.add_user("# Task: t");
    const { response, results } = reply(1);
    const answer = context.add_assistant(response);
    const tools = context.add_user(results);
    expect(persisted).toEqual([
      { role: "user", message_id: task, content: "# Task: t" },
      { role: "assistant", message_id: answer, response },
      { role: "user", message_id: tools, content: results },
    ]);
    expect(context.conversation.entries.map((entry) => entry.id)).toEqual([task, answer, tools]);
    for (const id of [task, answer, tools]) expect(id).toMatch(/^msg_/);
    const { request } = await context.next_request(2);
    expect(request.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });

  it("compacts when the policy says so: the covered messages give way to the summary", async () => {
    const reasons: string[] = [];
    let covered: string[] = [];
    const { context } = agent({
      compaction: { threshold_ratio: 0.5, circuit_breaker: { max_compactions: 2, min_turns_between: 1 } },
      compact: async (reason) => {
        reasons.push(reason);
        covered = context.conversation.entries.slice(0, -2).map((entry) => entry.id);
        return {
          summary_id: "sum_01J00000000000000000000000",
          summary: "Read f1–f5; next: f6.",
          covered_message_ids: covered,
          tokens_before: 6000,
          tokens_after: 900,
        };
      },
    });
    context.add_user("# Task: t");
    fill(context, 6, 4_000);
    const { request, token_estimate } = await context.next_request(7);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/compaction threshold/);
    expect(request.messages[0]).toEqual({ role: "user", content: "# Summary of the conversation so far\n\nRead f1–f5; next: f6." });
    expect(request.messages).toHaveLength(3);
    expect(token_estimate).toBeLessThan(5_000);
  });

  it("goes on uncompacted when context.compact fails, and the circuit breaker stops it from retrying at once", async () => {
    let calls = 0;
    const { context } = agent({
      compaction: { threshold_ratio: 0.5, circuit_breaker: { max_compactions: 3, min_turns_between: 5 } },
      compact: async () => {
        calls += 1;
        return undefined;
      },
    });
    context.add_user("# Task: t");
    fill(context, 6, 4_000);
    const first = await context.next_request(7);
    expect(first.request.messages).toHaveLength(13);
    await context.next_request(8);
    expect(calls).toBe(1);
  });

  it("does not ask for compaction when the parent offers no context.compact", async () => {
    const { context } = agent({ compaction: { threshold_ratio: 0.1, circuit_breaker: { max_compactions: 3, min_turns_between: 0 } } });
    context.add_user("# Task: t");
    fill(context, 3, 4_000);
    const { request } = await context.next_request(4);
    expect(request.messages).toHaveLength(7);
  });

  it("ends the task with a context_error when the request cannot fit the window at all", async () => {
    const { context } = agent({ layers: [...LAYERS, make_layer("project_rules", "AGENTS.md", "q".repeat(60_000))] });
    context.add_user("# Task: t");
    const failure = await context.next_request(1).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AirFailure);
    expect((failure as AirFailure).error).toMatchObject({ kind: "context_error", user_action: expect.stringMatching(/larger context window/) });
  });
});

/**
 * `model.complete` holds the budgets: a worker's call past a reached limit of its task, and any call past the
 * run's, is refused before it reaches the model, with the limit named; 80 % records one warning per limit.
 * Real AnthropicAdapter over the wire to the scripted server.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunBudget, TaskBudget } from "../../src/contracts/budget.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, type AgentId, type TaskId } from "../../src/contracts/ids.js";
import { run_budget_left } from "../../src/orchestration/budget/enforce.js";
import { budget_refusal_of } from "../../src/orchestration/budget/refusal.js";
import { usage_of } from "../../src/orchestration/budget/usage.js";
import { AnthropicAdapter } from "../../src/providers/anthropic.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { Secret } from "../../src/providers/secret.js";
import { model_complete_tool } from "../../src/tools/model/complete.js";
import { task_created_event } from "../fixtures/events.js";
import { error_of, output_of, tool_harness, type ToolHarness } from "./helpers.js";

const KEY = "sk-model-complete-budget-test";
const REQUEST = { purpose: "task_execution", messages: [{ role: "user", content: "go on" }] };
const reply = (input_tokens: number, output_tokens: number) => ({
  reply: { content: [{ type: "text" as const, text: "still working" }], usage: { input_tokens, output_tokens } },
});

let h: ToolHarness;
let server: ScriptedServer;
afterEach(async () => {
  h.cleanup();
  await server.close();
});

async function start(turns: { executor?: ReturnType<typeof reply>[]; main?: ReturnType<typeof reply>[] }, run_budget: RunBudget = {}) {
  server = await start_scripted_server({ script: { turns: { executor: turns.executor ?? [], main: turns.main ?? [] } }, api_key: KEY });
  h = tool_harness();
  const adapter = new AnthropicAdapter({ api_key: new Secret(KEY), base_url: server.url, model_id: "claude-sonnet-4-5" });
  h.registry.register(model_complete_tool(adapter, { run_budget }));
}

/** A running executor agent of a task with `max_turns` and `budget`. */
function worker(max_turns: number, budget?: TaskBudget): { task_id: TaskId; agent_id: AgentId } {
  const { session } = h.temp;
  const created = task_created_event(session.origin, {
    constraints: {
      max_turns,
      soft_timeout_ms: 60_000,
      hard_timeout_ms: 120_000,
      retry_budget: 0,
      model_policy: "agent_select",
      ...(budget === undefined ? {} : { budget }),
    },
  });
  session.ingestor.ingest(created);
  const task_id = created.payload.task.id as TaskId;
  const agent_id = new_id("agent");
  session.ingestor.ingest(make_event("agent.started", { agent_id, agent_type: "executor", status: "running", task_id }, session.origin));
  return { task_id, agent_id };
}

function payloads(type: "budget.warning" | "budget.exceeded") {
  return h.temp.session.store.query({ types: [type] }).map(({ event }) => event.payload);
}

/** Calls until the first refusal; how many calls went through. */
async function call_until_refused(ids: { task_id?: TaskId; agent_id?: AgentId }, most: number) {
  for (let call = 0; call < most; call += 1) {
    const outcome = await h.call("model.complete", REQUEST, ids);
    if (!outcome.ok) return { answered: call, error: error_of(outcome) };
  }
  throw new Error(`no refusal in ${most} calls`);
}

describe("model.complete under a budget", () => {
  it("refuses a worker's call past its turn limit before it reaches the model, naming the limit", async () => {
    await start({ executor: [reply(10, 5), reply(10, 5), reply(10, 5), reply(10, 5)] });
    const ids = worker(3);
    const { answered, error } = await call_until_refused(ids, 4);
    expect(answered).toBe(3);
    expect(server.requests()).toHaveLength(3);
    expect(error).toMatchObject({ kind: "policy_error", retryability: "not_retryable", metadata: { budget: "task", limit: "turns", used: 3, of: 3 } });
    expect(error.message).toContain("turns budget is used up (3 of 3 turns)");
    expect(payloads("budget.exceeded")).toEqual([{ budget: "task", limit: "turns", used: 3, of: 3, ...ids }]);
  });

  it("stops a worker at its input-token budget with at most one call over", async () => {
    await start({ executor: Array.from({ length: 10 }, () => reply(400, 10)) });
    const ids = worker(50, { input_tokens: 1000 });
    const { answered, error } = await call_until_refused(ids, 10);
    const spent = usage_of(h.temp.session.connection, { agent_id: ids.agent_id });
    expect(answered).toBe(3);
    expect(spent.input_tokens).toBe(1200);
    expect(spent.input_tokens - 400).toBeLessThan(1000);
    expect(budget_refusal_of(error)).toEqual({ budget: "task", limit: "input_tokens", used: 1200, of: 1000 });
  });

  it("records one warning per limit once it is 80 % used", async () => {
    await start({ executor: Array.from({ length: 6 }, () => reply(10, 200)) });
    const ids = worker(5, { output_tokens: 1000 });
    await call_until_refused(ids, 6);
    expect(payloads("budget.warning")).toEqual([
      { budget: "task", limit: "turns", used: 4, of: 5, ...ids },
      { budget: "task", limit: "output_tokens", used: 800, of: 1000, ...ids },
    ]);
  });

  it("holds the run's budget over every call, the Main Agent's too, and tells the Scheduler it is spent", async () => {
    await start({ main: [reply(300, 100), reply(300, 100), reply(300, 100)], executor: [reply(300, 100)] }, { tokens: 1000 });
    const { connection } = h.temp.session;
    output_of(await h.call("model.complete", REQUEST));
    output_of(await h.call("model.complete", REQUEST, worker(10)));
    expect(run_budget_left(connection, { tokens: 1000 })).toEqual({ kind: "ok" });
    output_of(await h.call("model.complete", REQUEST));
    expect(run_budget_left(connection, { tokens: 1000 })).toMatchObject({
      kind: "exhausted",
      refusal: { budget: "run", limit: "tokens", used: 1200, of: 1000 },
    });
    const refused = error_of(await h.call("model.complete", REQUEST));
    expect(budget_refusal_of(refused)).toEqual({ budget: "run", limit: "tokens", used: 1200, of: 1000 });
    expect(server.requests()).toHaveLength(3);
  });

  it("limits no call of the Main Agent by a task's budget", async () => {
    await start({ main: [reply(10, 5), reply(10, 5)] });
    worker(1);
    output_of(await h.call("model.complete", REQUEST));
    output_of(await h.call("model.complete", REQUEST));
    expect(payloads("budget.exceeded")).toEqual([]);
  });
});

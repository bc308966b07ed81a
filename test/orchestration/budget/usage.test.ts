import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { make_event } from "../../../src/contracts/events/registry.js";
import { type AgentId, new_id, TaskId } from "../../../src/contracts/ids.js";
import { CONTEXT_COMPACT_TOOL, MODEL_COMPLETE_TOOL } from "../../../src/contracts/tool.js";
import { usage_of } from "../../../src/orchestration/budget/usage.js";
import { request_cost_usd } from "../../../src/providers/pricing.js";
import { task_created_event } from "../../fixtures/events.js";
import { open_temp_session, type TempSession } from "../../fixtures/session.js";

let temp: TempSession | undefined;
afterEach(() => temp?.cleanup());

const MODEL = "claude-sonnet-4-5";

/** One finished tool run of the agent, as the registry records it. */
function tool_run(session: TempSession["session"], ids: { task_id: TaskId; agent_id: AgentId }, tool_name: string, output: unknown) {
  const tool_run_id = new_id("tool_run");
  session.ingestor.ingest(make_event("tool.started", { tool_run_id, tool_name, tool_version: 1, input: {}, ...ids }, session.origin));
  session.ingestor.ingest(make_event("tool.completed", { tool_run_id, output, duration_ms: 5 }, session.origin));
}

describe("usage_of", () => {
  it("counts a compaction of the agent's conversation in its tokens and cost, not as a turn or a tool call", () => {
    temp = open_temp_session();
    const { session } = temp;
    const created = task_created_event(session.origin);
    session.ingestor.ingest(created);
    const task_id = v.parse(TaskId, created.payload.task.id);
    const agent_id = new_id("agent");
    session.ingestor.ingest(make_event("agent.started", { agent_id, agent_type: "executor", status: "running", task_id }, session.origin));
    const turn = { input_tokens: 1_000, output_tokens: 200 };
    const summary = { input_tokens: 3_000, output_tokens: 400 };
    tool_run(session, { task_id, agent_id }, MODEL_COMPLETE_TOOL, { model_id: MODEL, content: [], stop_reason: "end_turn", usage: turn });
    tool_run(session, { task_id, agent_id }, CONTEXT_COMPACT_TOOL, { model_id: MODEL, summary: "…", usage: summary });
    tool_run(session, { task_id, agent_id }, "fs.read", { content: "x" });

    const used = usage_of(session.connection, { agent_id });
    expect(used).toMatchObject({ turns: 1, input_tokens: 4_000, output_tokens: 600, tokens: 4_600, tool_calls: 1 });
    expect(used.cost_usd).toBeCloseTo((request_cost_usd(MODEL, turn) ?? Number.NaN) + (request_cost_usd(MODEL, summary) ?? Number.NaN), 9);
    expect(usage_of(session.connection, { task_id }).tokens).toBe(4_600);
  });
});

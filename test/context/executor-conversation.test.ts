/**
 * The executor's side of context assembly with a real worker process: the stable layers the parent sends are
 * its system prompt, every message of its conversation lands in `messages`, each request starts with the
 * previous one, and `context.compact` replaces what a summary covers.
 */
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { make_layer } from "../../src/context/layers.js";
import { new_id } from "../../src/contracts/ids.js";
import { ModelRequest } from "../../src/contracts/provider.js";
import type { ToolCall, ToolOutcome } from "../../src/contracts/tool.js";
import { query } from "../e2e/helpers.js";
import { calls, says, test_tools, tool_results_of, WorkerHarness, type ModelTurn } from "../workers/harness.js";

let harness: WorkerHarness;
beforeEach(() => {
  harness = new WorkerHarness();
});
afterEach(() => harness.cleanup());

const LAYERS = [
  make_layer("runtime_invariant", "runtime-invariant", "You are an agent of air."),
  make_layer("role", "role/executor", "You are an executor agent."),
  make_layer("project_rules", "AGENTS.md", "# Project rules: AGENTS.md\n\nShout."),
];

const upper_turns = (count: number): ModelTurn[] => [
  ...Array.from({ length: count }, (_, index) => () => calls("text.upper", { text: `word ${index}` })),
  () => says("done"),
];

function serialized_prefix(request: ModelRequest, messages: number): string {
  return JSON.stringify([request.tools, request.system, request.messages.slice(0, messages)]);
}

describe("the executor's conversation", () => {
  it("prompts with the parent's layers, keeps each request's prefix, and stores every message", async () => {
    const report = await harness.run({ brief: { layers: LAYERS }, script: upper_turns(4) });
    expect(report.output.result?.status, JSON.stringify(report.output.error ?? report.output.result?.summary)).toBe("completed");
    const requests = report.tools[0]!.model_requests;
    expect(requests).toHaveLength(5);
    const system = requests[0]!.system as { text: string; cache_control?: unknown }[];
    expect(system.map((block) => block.text)).toEqual(["You are an agent of air.", "You are an executor agent.", "# Project rules: AGENTS.md\n\nShout."]);
    expect(system.map((block) => block.cache_control)).toEqual([undefined, undefined, { type: "ephemeral" }]);
    for (let index = 1; index < requests.length; index += 1) {
      const previous = requests[index - 1]!;
      expect(serialized_prefix(requests[index]!, previous.messages.length)).toBe(serialized_prefix(previous, previous.messages.length));
    }
    const rows = query(harness.session.connection, "SELECT id, role, content_json, task_id, agent_id, model_id, stop_reason FROM messages ORDER BY rowid");
    expect(rows.map((row) => row.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]);
    for (const row of rows) expect(row).toMatchObject({ task_id: report.task.id, agent_id: report.agent_id });
    // What the model was sent is what was stored, message for message.
    expect(rows.slice(0, -1).map((row) => row.content_json)).toEqual(JSON.parse(JSON.stringify(requests.at(-1)!.messages.map((message) => message.content))));
    expect(String(rows[0]!.content_json)).toContain("# Task: worker test task");
    expect(rows.filter((row) => row.role === "assistant").every((row) => row.model_id === "scripted")).toBe(true);
    expect(rows.at(-1)).toMatchObject({ stop_reason: "end_turn" });
  });

  it("prompts with its task specification alone when the parent sends no layers", async () => {
    const report = await harness.run({ script: [() => says("nothing to do")] });
    const [request] = report.tools[0]!.model_requests;
    const system = request!.system as { text: string }[];
    expect(system).toHaveLength(1);
    expect(system[0]!.text).toMatch(/^# Task specification: worker test task/);
  });

  it("hands the parent's extra instructions to the model with its task instruction", async () => {
    const report = await harness.run({ brief: { layers: LAYERS, instructions: "Prefer small diffs." }, script: [() => says("nothing to do")] });
    const [request] = report.tools[0]!.model_requests;
    expect(request!.messages[0]!.content).toMatch(/^# Task: worker test task\n\n[\s\S]*\n\nPrefer small diffs\.$/);
  });

  it("calls context.compact past the threshold, then prompts with the summary and the uncovered tail", async () => {
    const compactions: ToolCall[] = [];
    const tools = test_tools(harness.root, upper_turns(6));
    const call_tool = async (call: ToolCall, context: Parameters<typeof tools>[1], on_stream: (chunk: unknown) => void): Promise<ToolOutcome> => {
      if (call.tool_name !== "context.compact") return tools(call, context, on_stream);
      compactions.push(call);
      const covered = query(harness.session.connection, "SELECT id FROM messages ORDER BY rowid")
        .slice(0, -2)
        .map((row) => String(row.id));
      return {
        ok: true,
        tool_run_id: new_id("tool_run"),
        output: { summary_id: new_id("summary"), summary: "Upper-cased words 0–3.", covered_message_ids: covered, tokens_before: 900, tokens_after: 100 },
      };
    };
    const log: ModelRequest[] = [];
    const report = await harness.run({
      brief: {
        layers: LAYERS,
        context_window: 1_000,
        token_budget: 900,
        internal_tools: ["context.compact"],
        compaction: { threshold_ratio: 0.25, circuit_breaker: { max_compactions: 1, min_turns_between: 1 } },
      },
      services: {
        call_tool: async (call, context, on_stream) => {
          if (call.tool_name === "model.complete") log.push(v.parse(ModelRequest, call.input));
          return call_tool(call, context, on_stream);
        },
      },
    });
    expect(report.output.result?.status, JSON.stringify(report.output.error ?? report.output.result?.summary)).toBe("completed");
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.input).toMatchObject({ agent_id: report.agent_id, task_id: report.task.id, reason: expect.stringMatching(/threshold/) });
    const after = log.findIndex((request) => String(JSON.stringify(request.messages[0])).includes("Upper-cased words 0–3."));
    expect(after).toBeGreaterThan(0);
    const compacted = log[after]!;
    expect(compacted.messages[0]).toEqual({ role: "user", content: "# Summary of the conversation so far\n\nUpper-cased words 0–3." });
    expect(compacted.messages[1]!.role).toBe("assistant");
    expect(tool_results_of(compacted)).toHaveLength(1);
    // The originals stay in the session database.
    expect(query(harness.session.connection, "SELECT count(*) AS n FROM messages")[0]!.n).toBe(14);
  });
});

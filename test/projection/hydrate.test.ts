/**
 * ProjectionStore, hydration against incremental application: the same committed events give the same
 * state whether they are folded one by one off the bus or read back from the session's rows.
 */
import { describe, expect, it } from "vitest";
import { empty_state, fold, summarize } from "../../src/projection/apply.js";
import { hydrate_state } from "../../src/projection/hydrate.js";
import { ProjectionStore, type ProjectionStoreOptions } from "../../src/projection/store.js";
import type { ProjectionState } from "../../src/projection/types.js";
import { DEFAULT_UI_STATE } from "../../src/projection/ui-state.js";
import { DEFAULT_TAIL_CHARS, type Pricer } from "../../src/projection/views.js";
import { new_id } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { minimal_task_spec, step } from "../fixtures/events.js";
import { temp_session_per_test } from "../fixtures/session.js";
import { case_context, every_durable_event, ingest_all, usage_steps } from "./helpers.js";

let session: Session;
temp_session_per_test((temp) => {
  session = temp.session;
});

/** $3 per million input tokens, $15 per million output tokens, cache reads at a tenth. */
const price: Pricer = (_model, usage) => (usage.input_tokens * 3 + usage.output_tokens * 15 + (usage.cache_read_input_tokens ?? 0) * 0.3) / 1_000_000;
const options = { price, context_window: 200_000 };

function hydrated(with_options: ProjectionStoreOptions = options): ProjectionState {
  const store = new ProjectionStore(session, with_options);
  store.hydrate();
  return store.snapshot();
}

describe("ProjectionStore hydration", () => {
  it("equals the incremental fold of every durable event type, off the real bus", () => {
    const live = new ProjectionStore(session, options);
    live.attach(session.bus);
    ingest_all(session, [...usage_steps(), ...every_durable_event(case_context(session))]);
    const state = live.snapshot();
    // The comparison covers every part: none of them is empty.
    for (const part of [
      state.conversation.messages,
      state.conversation.drafts,
      state.tasks,
      state.agents,
      state.tool_runs,
      state.command_runs,
      state.permission_prompts,
      state.artifacts,
      state.evidence,
      state.blockers,
      state.workspaces,
      state.team_lines,
    ]) {
      expect(part.length).toBeGreaterThan(0);
    }
    expect(state.session.status).toBe("deleted");
    expect(hydrated()).toEqual(state);
    live.close();
  });

  it("equals folding the stored events from an empty state", () => {
    ingest_all(session, [...usage_steps(), ...every_durable_event(case_context(session))]);
    const stored = session.store.query({ limit: 100_000 }).map(({ event }) => event);
    const folded = summarize(
      stored.reduce((state, event) => fold(state, event, { tail_chars: DEFAULT_TAIL_CHARS, price }), empty_state(session.id, DEFAULT_UI_STATE)),
      options,
    );
    expect(hydrate_state(session, DEFAULT_UI_STATE, options).state).toEqual(folded);
  });

  it("shows what a UI needs of each part: conversation, tasks, tools, prompts, usage and the HUD", () => {
    const live = new ProjectionStore(session, options);
    live.attach(session.bus);
    ingest_all(session, usage_steps());
    const state = live.snapshot();
    const answer = state.conversation.messages.at(-1)!;
    expect(answer).toMatchObject({ role: "assistant", text: "The tests pass now.", stop_reason: "tool_use", agent_id: null });
    expect(answer.tool_uses).toEqual([{ id: "toolu_1", name: "fs.read", input_summary: "src/a.ts" }]);
    expect(state.conversation.drafts).toEqual([]);
    expect(state.tool_runs[0]).toMatchObject({ tool_name: "model.complete", status: "ok", duration_ms: 812, input_summary: "task_execution" });
    // The worker's request and the Main Agent's answer: 500 + 1000 (+3000 cached) in, 40 + 200 out.
    expect(state.usage).toMatchObject({ requests: 2, input_tokens: 1500, output_tokens: 240, cache_read_input_tokens: 3000, context_tokens: 4200 });
    expect(state.hud).toMatchObject({
      session_id: session.id,
      title: "fixture session",
      total_tokens: 4740,
      context_tokens: 4200,
      context_used_percent: 2.1,
      cost_usd: (1500 * 3 + 240 * 15 + 3000 * 0.3) / 1_000_000,
    });
    live.close();
  });

  it("takes the context used from the latest model run, the Main Agent's as well as a worker's", () => {
    const live = new ProjectionStore(session, options);
    live.attach(session.bus);
    const tool_run_id = new_id("tool_run");
    const usage = { input_tokens: 2_000, cache_read_input_tokens: 40_000, cache_creation_input_tokens: 8_000, output_tokens: 1_000 };
    ingest_all(session, [
      ...usage_steps(),
      step("tool.started", { tool_run_id, tool_name: "model.complete", tool_version: 1, input: { purpose: "routing", messages: [] } }),
      step("tool.completed", { tool_run_id, output: { model_id: "model-large", content: [], stop_reason: "end_turn", usage }, duration_ms: 400 }),
    ]);
    // 2,000 + 40,000 + 8,000 read and 1,000 written of a 200,000-token window.
    expect(live.snapshot().hud).toMatchObject({ context_window: 200_000, context_tokens: 51_000, context_used_percent: 25.5 });
    expect(hydrated()).toEqual(live.snapshot());
    live.close();
  });

  it("keeps tasks, blockers and prompts as the UI shows them", () => {
    const live = new ProjectionStore(session, { permission_mode: "accept-edits" });
    live.attach(session.bus);
    const task_id = new_id("task");
    const prompt_id = new_id("permission_prompt");
    ingest_all(session, [
      step("task.created", { task: minimal_task_spec({ id: task_id, title: "Fix the parser" }), priority: 2 }),
      step("task.started", { task_id, attempt_id: new_id("attempt") }),
      step("task.blocked", { task_id, reason: "which of the two parsers is meant?" }),
      step("permission.prompt.requested", {
        prompt_id,
        question: "Run `git push`?",
        risk_level: "medium",
        offered_scopes: ["once", "session"],
        tool_name: "shell.run",
        subjects: [{ kind: "command", command: "git push" }],
        categories: ["git_write", "network"],
        commands: ["git push"],
        mode: "default",
      }),
    ]);
    const state = live.snapshot();
    expect(state.tasks).toEqual([expect.objectContaining({ id: task_id, title: "Fix the parser", status: "blocked", attempt: 1, priority: 2 })]);
    expect(state.blockers).toEqual([expect.objectContaining({ task_id, title: "Fix the parser", reason: "which of the two parsers is meant?" })]);
    expect(state.permission_prompts).toEqual([
      expect.objectContaining({
        prompt_id,
        status: "pending",
        categories: ["git_write", "network"],
        commands: ["git push"],
        subjects: [{ kind: "command", command: "git push" }],
      }),
    ]);
    expect(state.hud).toMatchObject({ pending_prompts: 1, blocked_tasks: 1, permission_mode: "accept-edits", context_used_percent: null, cost_usd: null });
    expect(hydrated({ permission_mode: "accept-edits" })).toEqual(live.snapshot());
    live.close();
  });
});

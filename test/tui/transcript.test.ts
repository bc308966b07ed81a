/**
 * The transcript of a worker's run on ink's real renderer: each agent's words as a labelled message with the
 * tool runs it made folded beneath, a command once, evidence collapsed to a count that Ctrl+O prints in full.
 */
import { cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import type { MessageView, ProjectionState } from "../../src/projection/types.js";
import { agent, base_state, command_run, evidence, message, render_app, state_with, task, tool_run, until } from "./fixtures.js";

afterEach(() => cleanup());

const CTRL_O = "\x0f";

/** An executor on "Fix the loop": it reads, says why, edits, runs the tests, and closes with its summary. */
function executor_run(): { state: ProjectionState; closing: MessageView } {
  // Made in the order they happen: each fixture takes the next timestamp.
  const asked = message("user", "Fix the loop");
  const fix = task("Fix the loop", { status: "completed", summary: "The loop now stops at n.", completed_at: "2026-01-01T01:00:00.000Z" });
  const executor = agent({ task_id: fix.id, status: "completed" });
  const ids = { task_id: fix.id, agent_id: executor.id };
  const said = (text: string, tool: string | null): MessageView => ({
    ...message("assistant", text),
    ...ids,
    tool_uses: tool === null ? [] : [{ id: new_id("tool_run"), name: tool, input_summary: "" }],
  });
  const first = said("Let me read the implementation first.", "fs.read");
  const read = tool_run("fs.read", "src/calc.cpp", { ...ids, status: "ok", duration_ms: 3 });
  const second = said("The loop stops before n.\n\nI will make it inclusive.", "shell.run");
  const test = tool_run("shell.run", "make test", { ...ids, status: "ok", duration_ms: 1200 });
  const make = command_run("make test", { ...ids, tool_run_id: test.id, status: "ok", exit_code: 0, duration_ms: 1200 });
  const closing = said("The loop now stops at n.", null);
  const state = state_with(base_state(), {
    conversation: { messages: [asked, first, second, closing], drafts: [] },
    tasks: [fix],
    agents: [executor],
    tool_runs: [read, test],
    command_runs: [make],
    evidence: [
      evidence({ ...ids, ref: make.id, command_run_id: make.id, tool_run_id: test.id, claim: "`make test` exited with code 0" }),
      evidence({ ...ids, kind: "tool_run", ref: test.id, tool_run_id: test.id, claim: "the suite passed" }),
    ],
  });
  return { state, closing };
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe("the transcript of an agent's run", () => {
  it("keeps each of the agent's words as a labelled message, its tool runs folded beneath, and leaves its closing words to the final message", () => {
    const frame = render_app(executor_run().state).lastFrame() ?? "";
    expect(frame).toContain("⏺ executor · Fix the loop");
    expect(frame).toMatch(/› Fix the loop\n\s*\n⏺ executor · Fix the loop\n\s+Let me read the implementation first\.\n\s+⎿ ✓ fs\.read src\/calc\.cpp {2}3 ms/);
    // Separate paragraphs stay separate: never "n.I will".
    expect(frame).toMatch(/The loop stops before n\.\n\s*\n\s+I will make it inclusive\./);
    expect(frame).toMatch(/I will make it inclusive\.\n\s+⎿ ✓ shell\.run make test {2}exit 0 · 1\.2 s/);
    expect(frame).not.toContain("The loop now stops at n.");
  });

  it("shows a command once: on its tool run's line, with its exit code and duration", () => {
    const frame = render_app(executor_run().state).lastFrame() ?? "";
    expect(occurrences(frame, "make test")).toBe(1);
    expect(frame).not.toContain("$ make test");
  });

  it("prints a worker's closing words when its role does not summarize with them (a reviewer)", () => {
    const { state, closing } = executor_run();
    const reviewer = { ...state.agents[0]!, agent_type: "reviewer" as const };
    const frame = render_app(state_with(state, { agents: [reviewer] })).lastFrame() ?? "";
    expect(frame).toContain(closing.text);
    expect(frame).toContain("⏺ reviewer · Fix the loop");
  });

  it("collapses evidence to a count; Ctrl+O prints the newest collapsed evidence in full, then the one before", async () => {
    const rendered = render_app(executor_run().state);
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toMatch(/shell\.run make test.*\n\s+evidence: 2 items \(ctrl\+o to expand\)/);
    expect(frame).toContain("✓ Task completed: Fix the loop  evidence: 2 items (ctrl+o to expand)");
    expect(frame).not.toContain("exited with code 0");

    rendered.stdin.write(CTRL_O);
    await until(
      () => (rendered.lastFrame() ?? "").includes('evidence of task "Fix the loop":'),
      () => rendered.lastFrame() ?? "",
    );
    const task_evidence = rendered.lastFrame() ?? "";
    // A claim that names its command stands alone; another is labelled with what it is about.
    expect(task_evidence).toContain("◆ command_run — `make test` exited with code 0");
    expect(task_evidence).toContain("◆ tool_run shell.run make test — the suite passed");

    rendered.stdin.write(CTRL_O);
    await until(
      () => (rendered.lastFrame() ?? "").includes("evidence of shell.run make test:"),
      () => rendered.lastFrame() ?? "",
    );
    rendered.stdin.write(CTRL_O);
    await until(
      () => (rendered.lastFrame() ?? "").includes("No collapsed evidence to expand."),
      () => rendered.lastFrame() ?? "",
    );
  });
});

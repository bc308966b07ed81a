import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput, TurnInput } from "../../src/providers/scripted/script.js";
import { tui_project } from "../fixtures/tui-project.js";
import { leave_with_ctrl_c_twice, screen_shows, tmux_available } from "../fixtures/tmux.js";
import { air as run_air, session_ids } from "./helpers.js";

const KEY = "sk-e2e-picker";
const chat = (answer: string): TurnInput => ({ reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "chat", answer } }] } });
const SCRIPT: ScriptInput = { turns: { main: [chat("Forty-two."), chat("Sure.")] } };

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A project with two sessions made headless ("What is the answer?" first), and a tmux server for it. */
async function two_sessions() {
  const { project, tmux, air, env } = await tui_project(SCRIPT, KEY, cleanups, "picker");
  for (const question of ["What is the answer?", "Another question."]) {
    const run = await run_air(["run", "-p", question], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(0);
  }
  return { project, tmux, air };
}

describe.skipIf(!tmux_available)("air -r in a terminal (tmux)", () => {
  it("lists the sessions newest first by title and opens the one picked with its conversation", async () => {
    const { project, tmux, air } = await two_sessions();
    tmux.start("pick", project, `${air} -r`);
    const picker = await screen_shows(tmux, "pick", "the picker with both sessions", /Resume which session\?[\s\S]*What is the answer\?/);
    expect(picker.indexOf("Another question.")).toBeLessThan(picker.indexOf("What is the answer?"));
    tmux.keys("pick", "Down");
    tmux.keys("pick", "Enter");
    await screen_shows(tmux, "pick", "the older session's conversation in the TUI", /Forty-two\./);
    await leave_with_ctrl_c_twice(tmux, "pick");
    await screen_shows(tmux, "pick", "air's exit", /\[air exited 0\]/);
    expect(session_ids(project)).toHaveLength(2);
  }, 120_000);

  it("opens nothing when the picker is left", async () => {
    const { project, tmux, air } = await two_sessions();
    tmux.start("leave", project, `${air} run -r`);
    await screen_shows(tmux, "leave", "the picker", /Resume which session\?[\s\S]*What is the answer\?/);
    tmux.keys("leave", "Escape");
    await screen_shows(tmux, "leave", "air's exit", /\[air exited 130\]/);
    expect(session_ids(project)).toHaveLength(2);
  }, 120_000);
});

/**
 * `air -r` with no id on a terminal: a picker of the project's sessions, newest first, by title; the one
 * picked opens in the TUI with its conversation, and leaving the picker opens nothing. The built CLI in a
 * tmux pane against the scripted model server; only skipped where tmux is not installed.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput, TurnInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { leave_with_ctrl_c_twice, screen_shows, Tmux, tmux_available } from "../fixtures/tmux.js";
import { AIR_BIN, air as run_air, air_env, copy_fixture_project, require_build, session_ids, temp_dir } from "./helpers.js";

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
  require_build();
  const work = temp_dir("air-e2e-picker-");
  cleanups.push(work.cleanup);
  const server = await start_scripted_server({ script: SCRIPT, api_key: KEY });
  cleanups.push(() => server.close());
  const project = copy_fixture_project("worker", work.dir);
  const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, TERM: "xterm-256color" });
  delete env.CI;
  delete env.TMUX;
  for (const question of ["What is the answer?", "Another question."]) {
    const run = await run_air(["run", "-p", question], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(0);
  }
  const tmux = new Tmux(env);
  cleanups.push(() => tmux.kill());
  return { project, tmux, air: `${JSON.stringify(process.execPath)} ${JSON.stringify(AIR_BIN)}` };
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

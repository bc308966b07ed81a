/**
 * The interactive `air run` end to end, in a real terminal: the built CLI in a tmux pane of fixed size
 * against the scripted model server. A requirement is typed, the permission prompt for the file write is
 * answered by key, the diff and the final summary appear, Ctrl+C twice leaves; then `air resume` in the
 * same kind of pane shows the session's history. Only skipped where tmux is not installed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { session_lock_path, project_layout } from "../../src/project/layout.js";
import { run_air } from "../fixtures/cli.js";
import { CLASSIFY_GREETING, fixture_requirement, pid_alive, session_ids, wait_until } from "./helpers.js";
import { tui_project } from "../fixtures/tui-project.js";
import { leave_with_ctrl_c_twice, screen_shows, type Tmux, tmux_available } from "../fixtures/tmux.js";

const KEY = "sk-e2e-tui";
const WRITE_GREETING = { type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air\n" } } as const;
const SCRIPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [{ reply: { content: [WRITE_GREETING] } }, { reply: { content: [{ type: "text", text: "Wrote greeting.txt with the greeting." }] } }],
  },
};
/** Attempt 1 asks to write and is killed at the question; the resumed attempt asks the same and finishes. */
const KILLED_AT_THE_PROMPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [
      { reply: { content: [WRITE_GREETING] } },
      { expect: { last_user_contains: "# Task: Add the greeting file" }, reply: { content: [WRITE_GREETING] } },
      { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } },
    ],
  },
};
let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Starts `air run` and sends the worker fixture's requirement once the TUI shows its prompt line. */
async function run_and_ask(tmux: Tmux, air: string, project: string): Promise<void> {
  tmux.start("run", project, `${air} run --permission-mode default`);
  await screen_shows(tmux, "run", "the TUI's first frame", /mode default[\s\S]*›/);
  // Enter is its own key press once the text is on screen, as a person types (a burst reads as a paste).
  tmux.type("run", fixture_requirement("worker"));
  await screen_shows(tmux, "run", "the typed requirement", /› Add the greeting file described in README\.md\./);
  tmux.keys("run", "Enter");
}

describe.skipIf(!tmux_available)("air run in a terminal (tmux)", () => {
  it("takes a requirement, asks before writing, shows the diff and the summary, answers /compact, leaves on Ctrl+C twice; air resume shows the session", async () => {
    const { project, tmux, air, env } = await tui_project(SCRIPT, KEY, cleanups, "tui");
    await run_and_ask(tmux, air, project);

    const asked = await screen_shows(tmux, "run", "the permission prompt", /fs\.write[\s\S]*greeting\.txt/);
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);
    expect(asked).toMatch(/once/i);
    tmux.keys("run", "y");

    const done = await screen_shows(
      tmux,
      "run",
      "the diff and the final summary",
      /\+hello from air[\s\S]*Task "Add the greeting file" is completed\./,
      60_000,
    );
    expect(done).toContain("+hello from air");
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air\n");

    // /compact runs the compaction of the conversation: this one is too short, and says so.
    tmux.type("run", "/compact");
    await screen_shows(tmux, "run", "the typed command", /› \/compact/);
    tmux.keys("run", "Enter");
    await screen_shows(tmux, "run", "the compaction's answer", /Compaction did not run: nothing to compact/);

    await leave_with_ctrl_c_twice(tmux, "run");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
    const [session_id] = session_ids(project);
    expect(session_id).toBeDefined();
    // The run recorded its project in ~/.air/project-index.db: listed from any folder.
    const listed = run_air(["session", "list", "--all-projects", "--json"], { cwd: path.dirname(project), env });
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { projects: { root: string; sessions: { id: string }[] }[] }).projects).toEqual([
      expect.objectContaining({ root: project, sessions: [expect.objectContaining({ id: session_id })] }),
    ]);

    tmux.start("resume", project, `${air} resume --permission-mode default`);
    const resumed = await screen_shows(
      tmux,
      "resume",
      "the session's history",
      /Add the greeting file described in README\.md\.[\s\S]*Task "Add the greeting file" is completed\./,
    );
    expect(resumed).toContain("+hello from air");
    expect(resumed).toMatch(/allowed once: fs\.write/);
    await leave_with_ctrl_c_twice(tmux, "resume");
    await screen_shows(tmux, "resume", "air leaving", /\[air exited 0\]/);
  }, 180_000);

  it("asks a prompt left open by a killed run again in air resume's TUI, takes the answer by key and finishes the task", async () => {
    const { project, tmux, air } = await tui_project(KILLED_AT_THE_PROMPT, KEY, cleanups, "tui");
    await run_and_ask(tmux, air, project);
    await screen_shows(tmux, "run", "the permission prompt", /fs\.write[\s\S]*greeting\.txt/);
    const [session_id] = session_ids(project);
    const lock = JSON.parse(fs.readFileSync(session_lock_path(project_layout(project), session_id!), "utf8")) as { pid: number };
    process.kill(lock.pid, "SIGKILL");
    await wait_until("the killed air to be gone", () => !pid_alive(lock.pid));
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);

    tmux.start("resume", project, `${air} resume --permission-mode default`);
    await screen_shows(tmux, "resume", "the prompt asked again", /fs\.write[\s\S]*greeting\.txt[\s\S]*once/i);
    tmux.keys("resume", "y");
    const done = await screen_shows(tmux, "resume", "the task finished", /Task completed: Add the greeting file/, 60_000);
    expect(done).toMatch(/allowed once: fs\.write/);
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air\n");
    await leave_with_ctrl_c_twice(tmux, "resume");
    await screen_shows(tmux, "resume", "air leaving", /\[air exited 0\]/);
  }, 180_000);

  it("interrupts the running task with Esc while its permission prompt is open: nothing is written, the task is cancelled, air stays", async () => {
    const { project, tmux, air } = await tui_project(KILLED_AT_THE_PROMPT, KEY, cleanups, "tui");
    await run_and_ask(tmux, air, project);
    await screen_shows(tmux, "run", "the permission prompt", /fs\.write[\s\S]*greeting\.txt/);
    tmux.keys("run", "Escape");
    const after = await screen_shows(tmux, "run", "the cancelled task", /Task "Add the greeting file" is cancelled/);
    expect(after).not.toMatch(/allowed once: fs\.write/);
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);
    await leave_with_ctrl_c_twice(tmux, "run");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
  }, 180_000);
});

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { run_air } from "../fixtures/cli.js";
import { tui_project } from "../fixtures/tui-project.js";
import { leave_with_ctrl_c_twice, screen_shows, tmux_available } from "../fixtures/tmux.js";

const KEY = "sk-e2e-tui-queue";
const FIRST = "What does the greeting file say when the task is done?";
const QUEUED = "And in French?";
/** Long enough to see the first message on screen unanswered and to type the second one meanwhile. */
const THINKING_MS = 4000;

const chat = (answer: string) => ({ content: [{ type: "tool_use" as const, name: "classify_request", input: { intent: "chat", answer } }] });
const SCRIPT: ScriptInput = {
  turns: {
    main: [
      { expect: { last_user_contains: FIRST }, delay_ms: THINKING_MS, reply: chat("It says hello from air.") },
      // The model sees the queued message as the user's latest: any other request is refused with a 400.
      { expect: { last_user_contains: QUEUED }, reply: chat("Bonjour de la part d'air.") },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe.skipIf(!tmux_available)("messages in air run's terminal (tmux)", () => {
  it("echoes the first message before the answer, names the session after it, queues a message typed during the turn and sends it after", async () => {
    const { project, tmux, air, env, server } = await tui_project(SCRIPT, KEY, cleanups, "tui-queue");

    tmux.start("run", project, `${air} run --permission-mode default`);
    await screen_shows(tmux, "run", "the TUI's first frame", /ctx –[\s\S]*›/);
    tmux.type("run", FIRST);
    await screen_shows(tmux, "run", "the typed message", /› What does the greeting file say/);
    tmux.keys("run", "Enter");

    // On screen at once, and the prompt line empty again, while the model is still thinking.
    const sent = await screen_shows(tmux, "run", "the message echoed", /› What does the greeting file say when the task is done\?[\s\S]*\n› *\n/, 2000);
    expect(sent).not.toContain("It says hello from air.");

    tmux.type("run", QUEUED);
    await screen_shows(tmux, "run", "the second message typed", /› And in French\?/);
    tmux.keys("run", "Enter");
    const queued = await screen_shows(tmux, "run", "the second message queued", /queued: And in French\?/);
    expect(queued).not.toContain("It says hello from air.");
    expect(queued).not.toContain("a turn is still running");

    const answered = await screen_shows(
      tmux,
      "run",
      "both answers",
      /It says hello from air\.[\s\S]*› And in French\?[\s\S]*Bonjour de la part d'air\./,
      30_000,
    );
    expect(answered).not.toContain("queued:");
    // The HUD's context used, against the default model's window in the capability matrix.
    expect(answered).toMatch(/ctx \d+%/);
    expect(server.requests().filter((request) => request.path === "/v1/messages")).toHaveLength(2);

    await leave_with_ctrl_c_twice(tmux, "run");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
    const listed = run_air(["session", "list", "--json"], { cwd: project, env });
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { sessions: { title: string }[] }).sessions).toEqual([expect.objectContaining({ title: FIRST })]);
  }, 120_000);
});

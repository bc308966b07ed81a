/**
 * The transcript of `air run` in a real terminal: the built CLI in a tmux pane against the scripted model
 * server, an executor that talks between its tool calls. After the run the agent's words are still on screen
 * with its tool runs folded beneath them, every command shows once, the final message is the executor's own
 * summary with the facts under it, and Ctrl+O prints the collapsed evidence in full. Only skipped where tmux
 * is not installed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { tui_project } from "../fixtures/tui-project.js";
import { leave_with_ctrl_c_twice, screen_shows, taking_keys, tmux_available } from "../fixtures/tmux.js";
import { CLASSIFY_GREETING, fixture_requirement } from "./helpers.js";

const KEY = "sk-e2e-tui-transcript";
const COMMAND = "wc -l README.md";
const CLOSING = "I wrote greeting.txt with the exact greeting the README asks for. The task's check greps for that line.";
const SCRIPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [
      {
        reply: {
          content: [
            { type: "text", text: "Let me read the README first." },
            { type: "tool_use", name: "fs.read", input: { path: "README.md" } },
          ],
        },
      },
      {
        reply: {
          content: [
            { type: "text", text: "The README asks for one file." },
            { type: "text", text: "I will count its lines before writing." },
            { type: "tool_use", name: "shell.run", input: { command: COMMAND } },
          ],
        },
      },
      { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air\n" } }] } },
      { reply: { content: [{ type: "text", text: CLOSING }] } },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe.skipIf(!tmux_available)("the transcript of air run in a terminal (tmux)", () => {
  it("keeps the executor's words with its tool runs beneath, shows a command once, ends with the executor's summary and its facts, and expands evidence on Ctrl+O", async () => {
    const { project, tmux, air } = await tui_project(SCRIPT, KEY, cleanups, "tui-transcript");

    tmux.start("run", project, `${air} run --permission-mode accept-edits`);
    await screen_shows(tmux, "run", "the TUI's first frame", /mode [\w-]+[\s\S]*›/);
    tmux.type("run", fixture_requirement("worker"));
    await screen_shows(tmux, "run", "the typed requirement", /› Add the greeting file described in README\.md\./);
    tmux.keys("run", "Enter");

    const done = await screen_shows(tmux, "run", "the final summary", /• Cost: [^\n]*model calls/, 60_000);
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air\n");

    // The agent's words stay after their turns, labelled, each turn's tool runs folded beneath it.
    expect(done).toMatch(/⏺ executor · Add the greeting file\n\s+Let me read the README first\.\n\s+⎿ ✓ fs\.read README\.md/);
    // Two text blocks of one reply are two paragraphs, never glued into "file.I will".
    expect(done).toMatch(/The README asks for one file\.\n\s*\n\s+I will count its lines before writing\.\n\s+⎿ ✓ shell\.run wc -l README\.md {2}exit 0/);
    expect(done).toMatch(/⎿ ✓ fs\.write greeting\.txt {2}\+1 −0/);

    // A command once: its tool run's line, no `$ …` line beside it.
    expect(occurrences(done, COMMAND)).toBe(1);

    // The final message is the executor's own summary, said once, with the facts under it.
    expect(occurrences(done, CLOSING)).toBe(1);
    expect(done).toMatch(
      new RegExp(
        `${CLOSING.replace(/\./g, "\\.")}\\n\\s*\\n\\s*• Task "Add the greeting file" is completed\\.\\n\\s*• Files changed: greeting\\.txt\\n\\s*• Verification: 1 of 1 passed — grep -qx "hello from air" greeting\\.txt passed\\n\\s*• Cost: `,
      ),
    );
    expect(done).not.toContain("The model finished the task after");

    // Evidence is a count until Ctrl+O prints it, each item named readably.
    expect(done).toContain("✓ Task completed: Add the greeting file  evidence:");
    expect(done).not.toContain("artifact://");
    await taking_keys(tmux, "run");
    tmux.keys("run", "C-o");
    const expanded = await screen_shows(tmux, "run", "the task's evidence in full", /evidence of task "Add the greeting file":[\s\S]*◆ /);
    expect(expanded).toContain("◆ artifact_excerpt greeting.txt.diff — created greeting.txt");
    expect(expanded).toContain(`◆ command_run — \`${COMMAND}\` exited with code 0`);
    expect(expanded).not.toContain("artifact://");

    await leave_with_ctrl_c_twice(tmux, "run");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
  }, 180_000);
});

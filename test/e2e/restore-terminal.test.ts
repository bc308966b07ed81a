/**
 * `air restore` on a terminal (tmux): the diff drawn in the TUI's diff colours, a y/n question, and the
 * restore applied on `y` — the path a person at a terminal takes, where a pipe needs `--yes`.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { screen_shows, tmux_available } from "../fixtures/tmux.js";
import { tui_project } from "../fixtures/tui-project.js";
import { CLASSIFY_GREETING, air as run_air } from "./helpers.js";

const KEY = "sk-e2e-restore-terminal";
const SCRIPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [
      { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air\n" } }] } },
      { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe.skipIf(!tmux_available)("air restore file in a terminal (tmux)", () => {
  it("draws the diff in colour, asks, and restores on y", async () => {
    const { project, tmux, air, env } = await tui_project(SCRIPT, KEY, cleanups, "restore-terminal");
    const run = await run_air(["run", "-p", "Add the greeting file", "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(0);
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air\n");

    tmux.start("restore", project, `${air} restore file greeting.txt`);
    const asked = await screen_shows(
      tmux,
      "restore",
      "the diff and the question",
      /\+\+\+ \/dev\/null[\s\S]*-hello from air[\s\S]*Restore 1 file\(s\) as shown\?/,
    );
    expect(asked).toContain("deleted file mode 100644");
    // The removed line in the diff view's red (SGR 31), as the permission prompt draws a proposed change.
    expect(tmux.run("capture-pane", "-p", "-e", "-J", "-S", "-2000", "-t", "restore")).toMatch(/\x1b\[31m-hello from air/);
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(true);

    tmux.type("restore", "y");
    tmux.keys("restore", "Enter");
    await screen_shows(
      tmux,
      "restore",
      "the restore applied",
      /Restored 1 file\(s\)[\s\S]*To undo this restore: air restore session ses_\w+[\s\S]*\[air exited 0\]/,
    );
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);
  }, 120_000);
});

/**
 * The change before approval, end to end in a real terminal: the built CLI in a tmux pane against the scripted
 * model server. The executor edits an existing file and then writes a long new one; each permission dialog
 * shows the diff while nothing is written yet, the long one with its size, and scrolls by key.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { tui_project } from "../fixtures/tui-project.js";
import { leave_with_ctrl_c_twice, screen_shows, type Tmux, tmux_available } from "../fixtures/tmux.js";
import { CLASSIFY_GREETING, fixture_requirement, wait_until } from "./helpers.js";

const KEY = "sk-e2e-tui-dialog";
const TABLE = Array.from({ length: 200 }, (_, index) => `row ${index + 1}`).join("\n");
const SCRIPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [
      { reply: { content: [{ type: "tool_use", name: "fs.read", input: { path: "README.md" } }] } },
      {
        reply: {
          content: [
            {
              type: "tool_use",
              name: "fs.edit",
              input: { path: "README.md", old_string: "A project that needs a greeting file.", new_string: "A project that greets everyone." },
            },
          ],
        },
      },
      { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "table.txt", content: `${TABLE}\n` } }] } },
      { reply: { content: [{ type: "text", text: "Edited the README and wrote the table." }] } },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** The pane as it is now, without the scrollback: what the user sees. */
function visible(tmux: Tmux): string {
  return tmux.run("capture-pane", "-p", "-J", "-t", "run");
}

async function visible_shows(tmux: Tmux, what: string, pattern: RegExp): Promise<string> {
  let last = "";
  try {
    return await wait_until(
      what,
      () => {
        last = visible(tmux);
        return pattern.test(last) ? last : undefined;
      },
      30_000,
      100,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- screen ---\n${last}`);
  }
}

describe.skipIf(!tmux_available)("the permission dialog in a terminal (tmux)", () => {
  it("shows an edit's diff and a long write's sized, scrolling diff while each prompt waits and nothing is written", async () => {
    const { project, tmux, air } = await tui_project(SCRIPT, KEY, cleanups, "tui-dialog");
    const readme = fs.readFileSync(path.join(project, "README.md"), "utf8");

    tmux.start("run", project, `${air} run --permission-mode default`);
    await screen_shows(tmux, "run", "the TUI's first frame", /mode default[\s\S]*›/);
    tmux.type("run", fixture_requirement("worker"));
    await screen_shows(tmux, "run", "the typed requirement", /› Add the greeting file described in README\.md\./);
    tmux.keys("run", "Enter");

    const edit = await visible_shows(tmux, "the edit's dialog with its diff", /fs\.edit[\s\S]*\+1 −1 · \d+ lines[\s\S]*\+A project that greets everyone\./);
    expect(edit).toContain("-A project that needs a greeting file.");
    expect(edit).toContain("write README.md · project source");
    expect(fs.readFileSync(path.join(project, "README.md"), "utf8")).toBe(readme);
    tmux.keys("run", "y");

    const long = await visible_shows(tmux, "the write's dialog with its size", /fs\.write[\s\S]*\+200 −0 · (\d+) lines · lines 1–(\d+) of \1/);
    const [, total, window] = /\+200 −0 · (\d+) lines · lines 1–(\d+) of/.exec(long) ?? [];
    expect(long).toContain("+row 1");
    expect(long).not.toContain("+row 150");
    // The whole dialog fits the pane with the prompt line under it: its top border, its answers, its bottom.
    expect(long).toMatch(/╔[\s\S]*Permission needed[\s\S]*\[n\] Deny[\s\S]*╚[\s\S]*›/);
    expect(fs.existsSync(path.join(project, "table.txt"))).toBe(false);
    tmux.keys("run", "j", "j", "j");
    await visible_shows(tmux, "the diff scrolled by three lines", new RegExp(`lines 4–${Number(window) + 3} of ${total}`));
    tmux.keys("run", "PageDown");
    const paged = await visible_shows(tmux, "the diff scrolled by a page", new RegExp(`lines ${Number(window) + 4}–`));
    expect(paged).not.toMatch(/\+row 1\s/);
    tmux.keys("run", "y");

    await wait_until("the table to be written once allowed", () => fs.existsSync(path.join(project, "table.txt")) || undefined, 60_000, 100);
    expect(fs.readFileSync(path.join(project, "README.md"), "utf8")).toContain("A project that greets everyone.");
    expect(fs.readFileSync(path.join(project, "table.txt"), "utf8")).toBe(`${TABLE}\n`);
    await leave_with_ctrl_c_twice(tmux, "run");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
  }, 180_000);
});

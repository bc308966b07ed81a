/**
 * No flicker (issue 6): finished items are written to the terminal once, live updates are throttled to
 * 30 frames a second, the live region stays shorter than the terminal and the screen is never cleared.
 * Drives ink's real renderer (not the test library's debug mode, which reprints everything every frame).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Keyboard, Terminal } from "./terminal.js";

// ink renders only the last frame when it believes it runs in CI (is-in-ci reads CI when ink loads); these
// tests are about the frames, so ink is loaded only after CI is set aside for this file.
const ci = process.env.CI;
process.env.CI = "false";
afterAll(() => {
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});
const { cleanup } = await import("ink-testing-library");
const { mount_tui } = await import("../../src/tui/mount.js");
const { base_state, command_run, draft, message, prompt, recording_channel, render_app, StateHolder, state_with, until } = await import("./fixtures.js");

afterEach(() => cleanup());

function on_terminal(holder: InstanceType<typeof StateHolder>, rows = 30, on_exit = () => {}) {
  const stdout = new Terminal(100, rows);
  const keyboard = new Keyboard();
  const mounted = mount_tui(
    { client: holder, sender: recording_channel().channel, read_artifact: () => "", list_sessions: () => [], on_exit },
    { stdout: stdout as never, stdin: keyboard as never, stderr: new Terminal(100, rows) as never },
  );
  return { stdout, keyboard, unmount: () => mounted.unmount(), exited: mounted.exited };
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the screen", () => {
  it("writes a finished message once, however often the live region below it redraws", async () => {
    const reply = draft("streaming 0");
    const holder = new StateHolder(state_with(base_state(), { conversation: { messages: [message("assistant", "FINISHED-ONE")], drafts: [reply] } }));
    const terminal = on_terminal(holder);
    for (let index = 1; index <= 20; index += 1) {
      holder.update({ conversation: { messages: holder.snapshot().conversation.messages, drafts: [{ ...reply, text: `streaming ${index}` }] } });
      await sleep(40);
    }
    await until(() => terminal.stdout.text().includes("streaming 20"));
    holder.update({ conversation: { messages: [...holder.snapshot().conversation.messages, message("assistant", "FINISHED-TWO")], drafts: [] } });
    await until(() => terminal.stdout.text().includes("FINISHED-TWO"));
    await sleep(100);
    terminal.unmount();
    await terminal.exited;
    const written = terminal.stdout.text();
    expect(occurrences(written, "streaming 1")).toBeGreaterThan(0);
    expect(occurrences(written, "FINISHED-ONE")).toBe(1);
    expect(occurrences(written, "FINISHED-TWO")).toBe(1);
  });

  it("writes a streaming reply's settled lines once above the live region, and the final message with only the rest", async () => {
    const reply = draft("");
    const holder = new StateHolder(state_with(base_state(), { conversation: { messages: [], drafts: [reply] } }));
    const terminal = on_terminal(holder, 20);
    const row = (index: number) => `row-${String(index).padStart(3, "0")}`;
    let text = "";
    for (let index = 0; index < 60; index += 1) {
      text += `${row(index)}\n`;
      holder.update({ conversation: { messages: [], drafts: [{ ...reply, text: `${text}partial ${index}` }] } });
      await sleep(15);
    }
    await until(() => terminal.stdout.text().includes(row(59)));
    const final = { ...message("assistant", `${text}the end`), id: reply.message_id };
    holder.update({ conversation: { messages: [final], drafts: [] } });
    await until(() => terminal.stdout.text().includes("the end"));
    await sleep(100);
    terminal.unmount();
    const written = terminal.stdout.text();
    for (let index = 0; index < 60; index += 1) expect(occurrences(written, row(index))).toBe(1);
    expect(occurrences(written, "the end")).toBe(1);
    expect(written.indexOf(row(59))).toBeLessThan(written.indexOf("the end"));
  });

  it("leaves Ctrl+C to the App when mounted: the first press warns, the second exits", async () => {
    let exits = 0;
    const terminal = on_terminal(new StateHolder(base_state()), 30, () => {
      exits += 1;
    });
    await sleep(30);
    terminal.keyboard.write("\u0003");
    await until(() => terminal.stdout.text().includes("Press Ctrl+C again"));
    expect(exits).toBe(0);
    terminal.keyboard.write("\u0003");
    await terminal.exited;
    expect(exits).toBe(1);
  });

  it("never clears the screen, even while a reply far taller than the terminal streams", async () => {
    const reply = draft("");
    const holder = new StateHolder(state_with(base_state(), { conversation: { messages: [], drafts: [reply] } }));
    const terminal = on_terminal(holder, 20);
    let text = "";
    for (let index = 0; index < 60; index += 1) {
      text += `line ${index}\n`.repeat(5);
      holder.update({ conversation: { messages: [], drafts: [{ ...reply, text }] } });
      await sleep(15);
    }
    await until(() => terminal.stdout.text().includes("line 59"));
    terminal.unmount();
    const written = terminal.stdout.text();
    for (const clear of ["\u001b[2J", "\u001b[3J", "\u001bc"]) expect(written).not.toContain(clear);
  });

  it("keeps the live region shorter than the terminal", () => {
    // A code block still open cannot be printed above yet: its lines stay in the live region.
    const lines = ["```", ...Array.from({ length: 300 }, (_, index) => `line ${index}`)].join("\n");
    const rendered = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [draft(lines)] } }));
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("line 299");
    expect(frame).toContain("lines above");
    expect(frame.split("\n").length).toBeLessThan(24);
  });

  it("gives a streaming reply only the rows that progress and a permission dialog leave", () => {
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index}`).join("\n");
    const rendered = render_app(
      state_with(base_state(), {
        conversation: { messages: [], drafts: [draft(lines)] },
        command_runs: [command_run("make", { stdout_tail: "a\nb\nc\nd\n", stderr_tail: "e\nf\n" })],
        permission_prompts: [prompt()],
      }),
    );
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("line 299");
    expect(frame).toContain("$ rm -rf build");
    expect(frame.split("\n").length).toBeLessThan(24);
  });

  it("renders a burst of projection updates at no more than 30 frames a second", async () => {
    const reply = draft("");
    const rendered = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [reply] } }));
    const before = rendered.frames.length;
    const started = Date.now();
    let text = "";
    for (let index = 0; index < 2000; index += 1) {
      text += `${index} `;
      rendered.holder.update({ conversation: { messages: [], drafts: [{ ...reply, text }] } });
      if (index % 20 === 19) await sleep(5);
    }
    await until(
      () => (rendered.lastFrame() ?? "").includes("1999"),
      () => rendered.lastFrame() ?? "",
    );
    const seconds = (Date.now() - started) / 1000;
    const frames = rendered.frames.length - before;
    // Spinner ticks go through the same throttle, so they count within the 30.
    expect(frames).toBeLessThanOrEqual(Math.ceil(seconds * 30) + 2);
    expect(rendered.holder.notifications).toBe(2000);
  });
});

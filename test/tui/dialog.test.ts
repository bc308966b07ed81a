/**
 * The permission dialog on ink's real renderer, in colour: the change shown before it is approved (coloured,
 * sized, scrolled, never taller than the terminal) and no key lost as a dialog opens or closes.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ProposedChange } from "../../src/contracts/events/permission.js";
import { Keyboard, Terminal } from "./terminal.js";

// ink renders only the last frame under CI, and chalk colours only a terminal it believes in: both are read
// when they load, so they load after this.
const saved = { CI: process.env.CI, FORCE_COLOR: process.env.FORCE_COLOR };
process.env.CI = "false";
process.env.FORCE_COLOR = "1";
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
const { mount_tui } = await import("../../src/tui/mount.js");
const { proposed_change } = await import("../../src/permissions/proposed-change.js");
const { base_state, prompt, recording_channel, StateHolder, state_with, until } = await import("./fixtures.js");

const ROWS = 30;
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function on_terminal(holder: InstanceType<typeof StateHolder>) {
  const stdout = new Terminal(100, ROWS);
  const keyboard = new Keyboard();
  const { channel, commands } = recording_channel();
  const mounted = mount_tui(
    { client: holder, sender: channel, read_artifact: () => "", list_sessions: () => [], on_exit: () => {} },
    { stdout: stdout as never, stdin: keyboard as never, stderr: new Terminal(100, ROWS) as never },
  );
  /** The live region as last drawn: ink writes each frame whole (after erasing the one before), then moves the cursor. */
  const drawn = (): string => stdout.writes.findLast((write) => write.replace(ANSI, "").trim() !== "") ?? "";
  const frame = (): string => drawn().replace(ANSI, "");
  const answers = () => commands.filter((command) => command.type === "answer_permission");
  return { stdout, keyboard, drawn, frame, answers, unmount: () => mounted.unmount() };
}

type Screen = ReturnType<typeof on_terminal>;

async function shows(screen: Screen, text: string): Promise<void> {
  await until(() => screen.frame().includes(text), screen.frame);
}

async function press(screen: Screen, ...chunks: string[]): Promise<void> {
  for (const chunk of chunks) {
    screen.keyboard.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

function change_of(diff: string): ProposedChange {
  const change = proposed_change(diff);
  if (change === undefined) throw new Error("an empty diff");
  return change;
}

const EDIT = ["--- a/src/calc.cpp", "+++ b/src/calc.cpp", "@@ -1,3 +1,3 @@", " int sum(int n) {", "-  return n;", "+  return n * (n + 1) / 2;", " }"].join(
  "\n",
);

function edit_prompt(diff = EDIT) {
  return prompt({
    tool_name: "fs.edit",
    question: "Allow fs.edit? writing src/calc.cpp (project_source)",
    risk_level: "low",
    subjects: [{ kind: "path", op: "write", path: "src/calc.cpp" }],
    categories: ["write"],
    commands: [],
    command_parts: [],
    paths: [{ op: "write", path: "src/calc.cpp", category: "project_source" }],
    change: change_of(diff),
  });
}

/** A new file of `count` lines, as fs.write's diff shows it. */
function long_write(count: number): string {
  const lines = Array.from({ length: count }, (_, index) => `+line ${index + 1}`);
  return ["--- /dev/null", "+++ b/src/table.txt", `@@ -0,0 +1,${count} @@`, ...lines].join("\n");
}

describe("the permission dialog's change", () => {
  it("shows an edit as a diff in colour: removed lines red, added green, the hunk header cyan, with its size", async () => {
    const screen = on_terminal(new StateHolder(state_with(base_state(), { permission_prompts: [edit_prompt()] })));
    await shows(screen, "+1 −1 · 7 lines");
    const drawn = screen.drawn();
    expect(drawn).toMatch(/\u001b\[31m- {2}return n;/);
    expect(drawn).toMatch(/\u001b\[32m\+ {2}return n \* \(n \+ 1\) \/ 2;/);
    expect(drawn).toMatch(/\u001b\[36m@@ -1,3 \+1,3 @@/);
    expect(screen.frame()).toContain("write src/calc.cpp · project source");
    screen.unmount();
  });

  it("shows a long change's size and the lines that fit, never taller than the terminal, and scrolls it", async () => {
    const screen = on_terminal(new StateHolder(state_with(base_state(), { permission_prompts: [edit_prompt(long_write(200))] })));
    await shows(screen, "+200 −0 · 203 lines");
    const window = Number(/lines 1–(\d+) of 203/.exec(screen.frame())?.[1]);
    expect(window).toBeGreaterThan(3);
    expect(screen.frame().split("\n").length).toBeLessThan(ROWS);
    expect(screen.frame()).toContain("+++ b/src/table.txt");
    expect(screen.frame()).not.toContain("line 100");
    await press(screen, "j", "j");
    await shows(screen, `lines 3–${window + 2} of 203`);
    expect(screen.frame()).not.toContain("+++ b/src/table.txt");
    await press(screen, "\u001b[6~");
    await shows(screen, `lines ${window + 3}–${2 * window + 2} of 203`);
    await press(screen, "\u001b[A", "k", "\u001b[5~");
    await shows(screen, "lines 1–");
    expect(screen.frame().split("\n").length).toBeLessThan(ROWS);
    expect(screen.answers()).toEqual([]);
    await press(screen, "\u001b[C", "\r");
    expect(screen.answers()).toMatchObject([{ answer: "allow", grant_scope: "session" }]);
    screen.unmount();
  });
});

describe("keys as a dialog opens and closes", () => {
  it("keeps a key typed in the burst that answers one dialog, before the next one shows, in the prompt line", async () => {
    const first = edit_prompt();
    const second = edit_prompt();
    const screen = on_terminal(new StateHolder(state_with(base_state(), { permission_prompts: [first, second] })));
    await shows(screen, "Permission needed");
    // Two keys read one after the other before React renders again: the second reaches no dialog on screen.
    screen.keyboard.write("n");
    screen.keyboard.write("y");
    await shows(screen, "› y");
    expect(screen.answers()).toEqual([{ type: "answer_permission", prompt_id: first.prompt_id, answer: "deny", grant_scope: "once" }]);
    expect(screen.frame()).toContain("Permission needed");
    screen.unmount();
  });

  it("keeps text typed while a dialog is up that answers nothing in the prompt line, for after the answer", async () => {
    const asked = edit_prompt();
    const holder = new StateHolder(state_with(base_state(), { permission_prompts: [asked] }));
    const screen = on_terminal(holder);
    await shows(screen, "Permission needed");
    await press(screen, "hello world");
    await shows(screen, "› hello world");
    expect(screen.answers()).toEqual([]);
    await press(screen, "y");
    await until(() => !screen.frame().includes("Permission needed"), screen.frame);
    expect(screen.answers()).toMatchObject([{ prompt_id: asked.prompt_id, answer: "allow", grant_scope: "once" }]);
    expect(screen.frame()).toContain("› hello world");
    screen.unmount();
  });
});

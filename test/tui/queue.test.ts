/**
 * Messages on their way to the runtime: echoed the moment they are sent, queued (shown, editable) while a
 * turn runs that cannot take them, sent when it ends — and handed over at once where the runtime takes a
 * message mid-turn. The runtime side is a real UiCommandChannel whose handler refuses as the runtime does.
 */
import { cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { turn_running_failure, UiCommandChannel, type UiCommand } from "../../src/projection/ui-command-channel.js";
import type { ProjectionState } from "../../src/projection/types.js";
import { unrecorded, type Echo } from "../../src/tui/use-message-queue.js";
import { base_state, draft, message, render_app, state_with, type_keys, until, type Rendered } from "./fixtures.js";

afterEach(() => cleanup());

const ENTER = "\r";
const UP = "\u001b[A";
const CTRL_X = "\u0018";

/** A channel answering as the interactive runtime does: while a turn runs that takes no message, one not queued already is refused. */
function runtime_channel(): { channel: UiCommandChannel; messages: UiCommand[]; turn: { running: boolean } } {
  const channel = new UiCommandChannel();
  const messages: UiCommand[] = [];
  const turn = { running: true };
  channel.on("send_message", (command) => {
    if (turn.running && command.after_turn !== true) throw turn_running_failure();
    messages.push(command);
  });
  return { channel, messages, turn };
}

function running(): ProjectionState {
  return state_with(base_state(), { conversation: { messages: [message("user", "fix the build")], drafts: [draft("Reading the build files")] } });
}

function frame(rendered: Rendered): string {
  return rendered.lastFrame() ?? "";
}

async function shows(rendered: Rendered, check: (screen: string) => boolean): Promise<void> {
  await until(
    () => check(frame(rendered)),
    () => frame(rendered),
  );
}

describe("a message typed during a turn", () => {
  it("is queued and shown as queued, then sent when the turn ends", async () => {
    const runtime = runtime_channel();
    const rendered = render_app(running(), { sender: runtime.channel });

    await type_keys(rendered, "also run the linter", ENTER);
    await shows(rendered, (screen) => screen.includes("queued: also run the linter"));
    expect(runtime.messages).toEqual([]);
    expect(frame(rendered)).not.toContain("a turn is still running");

    runtime.turn.running = false;
    rendered.holder.update({ conversation: { messages: [message("user", "fix the build"), message("assistant", "Fixed.")], drafts: [] } });
    await until(() => runtime.messages.length === 1);
    expect(runtime.messages).toEqual([{ type: "send_message", text: "also run the linter", after_turn: true }]);
    await shows(rendered, (screen) => !screen.includes("queued:") && /also run the linter.*sending…/.test(screen));
  });

  it("goes at once to a runtime that takes messages mid-turn (the Main Agent listening while a plan runs)", async () => {
    const runtime = runtime_channel();
    runtime.turn.running = false;
    const rendered = render_app(running(), { sender: runtime.channel });

    await type_keys(rendered, "skip the docs task", ENTER);
    await until(() => runtime.messages.length === 1);
    expect(runtime.messages).toEqual([{ type: "send_message", text: "skip the docs task" }]);
    expect(frame(rendered)).not.toContain("queued:");
  });

  it("waits behind earlier queued messages, and they go one turn at a time, oldest first", async () => {
    const runtime = runtime_channel();
    const rendered = render_app(running(), { sender: runtime.channel });
    await type_keys(rendered, "first", ENTER, "second", ENTER);
    await shows(rendered, (screen) => screen.includes("queued: first") && screen.includes("queued: second"));

    runtime.turn.running = false;
    rendered.holder.update({ conversation: { messages: [message("assistant", "Done.")], drafts: [] } });
    await until(() => runtime.messages.length === 1);
    // "second" waits until "first" is recorded and its turn has ended.
    await shows(rendered, (screen) => screen.includes("queued: second") && !screen.includes("queued: first"));
    rendered.holder.update({ conversation: { messages: [message("assistant", "Done."), message("user", "first")], drafts: [draft("On it")] } });
    rendered.holder.update({
      conversation: { messages: [message("assistant", "Done."), message("user", "first"), message("assistant", "Done again.")], drafts: [] },
    });
    await until(() => runtime.messages.length === 2);
    expect(runtime.messages.map((command) => command.type === "send_message" && command.text)).toEqual(["first", "second"]);
  });

  it("comes back to the prompt line with Up, to be edited and queued again; Ctrl+X drops the newest", async () => {
    const runtime = runtime_channel();
    const rendered = render_app(running(), { sender: runtime.channel });
    await type_keys(rendered, "use tabs", ENTER, "no, spaces", ENTER);
    await shows(rendered, (screen) => screen.includes("queued: no, spaces"));

    await type_keys(rendered, UP);
    await shows(rendered, (screen) => screen.trimEnd().endsWith("› no, spaces") && !screen.includes("queued: no, spaces"));
    await type_keys(rendered, " (4 of them)", ENTER);
    await shows(rendered, (screen) => screen.includes("queued: no, spaces (4 of them)"));

    await type_keys(rendered, CTRL_X);
    await shows(rendered, (screen) => !screen.includes("queued: no, spaces") && screen.includes("queued: use tabs"));
    await type_keys(rendered, CTRL_X);
    await shows(rendered, (screen) => !screen.includes("queued:"));
    expect(runtime.messages).toEqual([]);
  });
});

describe("the echo of a sent message", () => {
  const sent = (text: string, users_before: number, replies_before = 0): Echo => ({ id: users_before + 1, text, direct: false, users_before, replies_before });
  const recorded = (...messages: ReturnType<typeof message>[]): ProjectionState => state_with(base_state(), { conversation: { messages, drafts: [] } });

  it("leaves once a user message with its text is recorded after it was sent, each recorded message answering one echo", () => {
    const echoes = [sent("yes", 1), sent("yes", 1)];
    expect(unrecorded(echoes, recorded(message("user", "yes")), true)).toEqual(echoes);
    expect(unrecorded(echoes, recorded(message("user", "yes"), message("user", "yes")), true)).toEqual([echoes[1]]);
    expect(unrecorded(echoes, recorded(message("user", "yes"), message("user", "yes"), message("user", "yes")), true)).toEqual([]);
  });

  it("leaves when, nothing running, the Main Agent answered without the message being recorded", () => {
    const echo = sent("hello", 0);
    const answered = recorded(message("assistant", "The request failed: the session has ended"));
    expect(unrecorded([echo], answered, true)).toEqual([echo]);
    expect(unrecorded([echo], answered, false)).toEqual([]);
  });
});

import { cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { base_state, draft, message, render_app, state_with, type_keys, until, type Rendered } from "./fixtures.js";

afterEach(() => cleanup());

const ENTER = "\r";
const ESC = "\u001b";
const CTRL_C = "\u0003";

function frame(rendered: Rendered): string {
  return rendered.lastFrame() ?? "";
}

async function submit(rendered: Rendered, line: string): Promise<void> {
  await type_keys(rendered, line, ENTER);
}

describe("the App", () => {
  it("shows an assistant reply as it streams, then once as a final message", async () => {
    const reply = draft("Reading the");
    const rendered = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [reply] } }));
    expect(frame(rendered)).toContain("Reading the");
    rendered.holder.update({ conversation: { messages: [], drafts: [{ ...reply, text: "Reading the **build** files" }] } });
    await until(
      () => frame(rendered).includes("Reading the build files"),
      () => frame(rendered),
    );
    expect(frame(rendered)).toContain("writing…");
    const final = { ...message("assistant", "Reading the **build** files. Done."), id: reply.message_id };
    rendered.holder.update({ conversation: { messages: [final], drafts: [] } });
    await until(
      () => frame(rendered).includes("Done."),
      () => frame(rendered),
    );
    expect(frame(rendered)).not.toContain("writing…");
  });

  it("redraws the HUD when its figures change while a reply streams", async () => {
    const reply = draft("Reading");
    const rendered = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [reply] } }));
    expect(frame(rendered)).toContain("0 tok");
    const usage = { ...rendered.holder.snapshot().usage, input_tokens: 1200, output_tokens: 300 };
    rendered.holder.update({ conversation: { messages: [], drafts: [{ ...reply, text: "Reading more" }] }, usage });
    await until(
      () => frame(rendered).includes("Reading more") && frame(rendered).includes("1500 tok"),
      () => frame(rendered),
    );
  });

  it("sends what the user types as a message, clears the line and shows the message at once, once", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "fix the failing test");
    expect(rendered.commands).toEqual([{ type: "send_message", text: "fix the failing test" }]);
    expect(frame(rendered)).toMatch(/fix the failing test.*sending…/);
    expect(frame(rendered).trimEnd().endsWith("›")).toBe(true);
    rendered.holder.update({ conversation: { messages: [message("user", "fix the failing test")], drafts: [] } });
    await until(
      () => !frame(rendered).includes("sending…"),
      () => frame(rendered),
    );
    // Never twice on one screen: the echo leaves in the frame the recorded message arrives.
    for (const drawn of rendered.frames) expect(drawn.split("fix the failing test").length, drawn).toBeLessThanOrEqual(2);
    expect(frame(rendered)).toContain("› fix the failing test");
  });

  it("takes a line and its Enter arriving in one burst (a paste, tmux send-keys)", async () => {
    const rendered = render_app(base_state());
    await type_keys(rendered, "fix the build\rand then");
    rendered.stdin.write(ENTER);
    await until(() => rendered.commands.length === 2);
    expect(rendered.commands).toEqual([
      { type: "send_message", text: "fix the build" },
      { type: "send_message", text: "and then" },
    ]);
  });

  it("keeps the unsent line in the UI state, and starts from it on resume", async () => {
    const rendered = render_app(state_with(base_state(), { ui: { hud_preset: "full", input_draft: "half a tho" } }));
    expect(frame(rendered)).toContain("› half a tho");
    await type_keys(rendered, "ught");
    await until(() => rendered.holder.snapshot().ui.input_draft === "half a thought");
  });

  it("interrupts the running turn on Esc", async () => {
    const rendered = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [draft("thinking")] } }));
    await type_keys(rendered, ESC);
    await until(() => rendered.commands.length > 0);
    expect(rendered.commands).toEqual([{ type: "interrupt", reason: "interrupted by the user (Esc)" }]);
  });

  it("sends no interrupt on Esc when nothing runs", async () => {
    const rendered = render_app(base_state());
    await type_keys(rendered, ESC);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rendered.commands).toEqual([]);
  });

  it("exits on the second Ctrl+C only, after saying so", async () => {
    const rendered = render_app(base_state());
    await type_keys(rendered, CTRL_C);
    await until(
      () => frame(rendered).includes("Press Ctrl+C again to exit"),
      () => frame(rendered),
    );
    expect(rendered.exits()).toBe(0);
    await type_keys(rendered, CTRL_C);
    expect(rendered.exits()).toBe(1);
  });

  it("exits on two Ctrl+C that arrive before a re-render", async () => {
    const rendered = render_app(base_state());
    rendered.stdin.write(CTRL_C);
    rendered.stdin.write(CTRL_C);
    expect(rendered.exits()).toBe(1);
  });

  it("forgets a first Ctrl+C once another key is pressed", async () => {
    const rendered = render_app(base_state());
    await type_keys(rendered, CTRL_C, "a");
    await until(
      () => !frame(rendered).includes("Press Ctrl+C again"),
      () => frame(rendered),
    );
    await type_keys(rendered, CTRL_C);
    expect(rendered.exits()).toBe(0);
  });
});

describe("slash commands", () => {
  it("/help lists the commands", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/help");
    await until(
      () => frame(rendered).includes("/sessions"),
      () => frame(rendered),
    );
    for (const name of ["/compact", "/direct", "/done", "/hud", "/exit", "Esc", "Ctrl+C"]) expect(frame(rendered)).toContain(name);
    expect(rendered.commands).toEqual([]);
  });

  it("/compact asks the runtime to compact", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/compact");
    expect(rendered.commands).toEqual([{ type: "compact" }]);
  });

  it("/approve and /reject decide the plan that waits, /reject with the reason typed after it", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/approve");
    await submit(rendered, "/reject");
    await submit(rendered, "/reject lib-b must not touch the parser");
    expect(rendered.commands).toEqual([
      { type: "plan_decision", approve: true },
      { type: "plan_decision", approve: false, reason: "the user rejected the plan" },
      { type: "plan_decision", approve: false, reason: "lib-b must not touch the parser" },
    ]);
  });

  it("/direct … /done: messages in between are sent as direct messages", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/direct");
    await until(
      () => frame(rendered).includes("direct ›"),
      () => frame(rendered),
    );
    await submit(rendered, "use the other header");
    await submit(rendered, "/done");
    await until(
      () => !frame(rendered).includes("direct ›"),
      () => frame(rendered),
    );
    await submit(rendered, "thanks");
    expect(rendered.commands).toEqual([
      { type: "direct_mode", enabled: true },
      { type: "send_message", text: "use the other header", direct: true },
      { type: "direct_mode", enabled: false },
      { type: "send_message", text: "thanks" },
    ]);
  });

  it("/hud cycles full → essential → minimal → full, and /hud NAME picks one", async () => {
    const rendered = render_app(base_state());
    const presets: string[] = [];
    for (const line of ["/hud", "/hud", "/hud", "/hud minimal"]) {
      await submit(rendered, line);
      presets.push(rendered.holder.snapshot().ui.hud_preset);
    }
    expect(presets).toEqual(["essential", "minimal", "full", "minimal"]);
    expect(rendered.commands).toEqual([]);
  });

  it("/sessions lists the sessions it is given", async () => {
    const session = {
      id: new_id("session") as SessionId,
      title: "fix the build",
      status: "active" as const,
      model_provider_id: null,
      model_id: null,
      created_at: "2026-01-01T00:00:00.000Z",
    };
    const rendered = render_app(base_state(), { list_sessions: async () => [session] });
    await submit(rendered, "/sessions");
    await until(
      () => frame(rendered).includes(session.id),
      () => frame(rendered),
    );
    expect(frame(rendered)).toContain("fix the build");
  });

  it("/exit leaves through on_exit, once", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/exit");
    expect(rendered.exits()).toBe(1);
  });

  it("an unknown command is not sent as a message", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "/frobnicate now");
    await until(
      () => frame(rendered).includes("Unknown command /frobnicate"),
      () => frame(rendered),
    );
    expect(rendered.commands).toEqual([]);
  });

  it("// sends a message that starts with a slash", async () => {
    const rendered = render_app(base_state());
    await submit(rendered, "//etc/hosts is odd");
    expect(rendered.commands).toEqual([{ type: "send_message", text: "/etc/hosts is odd" }]);
  });

  it("a refused message shows the runtime's reason and stays on the line", async () => {
    const rendered = render_app(base_state());
    rendered.channel.close();
    await submit(rendered, "are you there?");
    await until(
      () => frame(rendered).includes("the session has ended"),
      () => frame(rendered),
    );
    expect(frame(rendered)).toContain("› are you there?");
  });
});

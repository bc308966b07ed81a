/**
 * The TUI over a real session: events ingested through the real write path and bus, folded by the real
 * ProjectionStore, decisions sent through the real UiCommandChannel to the real prompt answerer.
 */
import { cleanup, render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/event-store/event-bus.js";
import { new_id } from "../../src/contracts/ids.js";
import type { PromptAnswer } from "../../src/permissions/prompts.js";
import { open_session_projection, type SessionProjection } from "../../src/projection/session-projection.js";
import { App } from "../../src/tui/app.js";
import { step } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { ingest_all, live } from "../projection/helpers.js";
import { until } from "./fixtures.js";

let temp: TempSession | undefined;
let projection: SessionProjection | undefined;
afterEach(() => {
  cleanup();
  projection?.close();
  temp?.cleanup();
  temp = projection = undefined;
});

function open(): { temp: TempSession; projection: SessionProjection } {
  temp = open_temp_session({ bus: new EventBus({ coalesce_window_ms: 0 }) });
  projection = open_session_projection(temp.session, { flush_ms: 5 });
  return { temp, projection };
}

describe("the TUI over a real session", () => {
  it("streams a reply, prints it once final, and answers a permission prompt by key through the channel", async () => {
    const { temp, projection } = open();
    const { session } = temp;
    let exits = 0;
    const rendered = render(
      createElement(App, {
        client: projection.store,
        sender: projection.channel,
        read_artifact: () => "",
        list_sessions: () => [],
        on_exit: () => {
          exits += 1;
        },
      }),
    );
    const frame = () => rendered.lastFrame() ?? "";

    ingest_all(session, [step("user.message.created", { message_id: new_id("message"), content: [{ type: "text", text: "please fix the build" }] })]);
    await until(() => frame().includes("› please fix the build"), frame);

    const message_id = new_id("message");
    ingest_all(session, [step("assistant.message.started", { message_id, model_id: "model-large" })]);
    for (const text of ["I'll run ", "the **tests** ", "first."]) live(session, "assistant.message.delta", { message_id, text });
    await until(() => frame().includes("I'll run the tests first."), frame);
    expect(frame()).toContain("writing…");

    ingest_all(session, [
      step("assistant.message.created", {
        message_id,
        content: [{ type: "text", text: "I'll run the **tests** first." }],
        model_id: "model-large",
        stop_reason: "end_turn",
        usage: { input_tokens: 900, output_tokens: 12 },
      }),
    ]);
    await until(() => !frame().includes("writing…"), frame);

    const prompt_id = new_id("permission_prompt");
    const prompt = {
      prompt_id,
      tool_name: "shell.run",
      question: "Run `npm test && rm -rf dist`?",
      reason: "destructive command",
      risk_level: "high" as const,
      offered_scopes: ["once", "session"] as const,
      subjects: [
        { kind: "command" as const, command: "npm test" },
        { kind: "command" as const, command: "rm -rf dist" },
      ],
      categories: ["test", "destructive"],
      commands: ["npm test", "rm -rf dist"],
    };
    const { reason: _reason, ...recorded } = prompt;
    ingest_all(session, [step("permission.prompt.requested", { ...recorded, offered_scopes: [...prompt.offered_scopes], subjects: [...prompt.subjects] })]);
    const answered: Promise<PromptAnswer> = projection.answerer.answer({ ...prompt, offered_scopes: [...prompt.offered_scopes] });
    await until(() => frame().includes("$ rm -rf dist"), frame);
    expect(frame()).toContain("categories: test, destructive");
    expect(frame()).not.toContain("[p]");

    // ink attaches the dialog's key handler just after painting it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    rendered.stdin.write("s");
    expect(await answered).toEqual({ answer: "allow", grant_scope: "session", resolved_by: "user" });
    ingest_all(session, [step("permission.prompt.resolved", { prompt_id, answer: "allow", grant_scope: "session", resolved_by: "user" })]);
    await until(() => frame().includes("✓ allowed for the session: shell.run"), frame);
    expect(frame()).not.toContain("Permission needed");

    const output = rendered.frames.join("");
    expect(output).toContain("I'll run the tests first.");
    expect(frame()).toContain("912 tok (↑900 ↓12)");
    rendered.stdin.write("\u0003");
    rendered.stdin.write("\u0003");
    await until(() => exits === 1);
  });

  it("takes a paste longer than ui_state holds without stalling or failing", async () => {
    const { projection } = open();
    const rendered = render(
      createElement(App, { client: projection.store, sender: projection.channel, read_artifact: () => "", list_sessions: () => [], on_exit: () => {} }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    rendered.stdin.write("x".repeat(150_000));
    await until(() => projection.store.snapshot().ui.input_draft.length === 100_000);
    await until(
      () => (rendered.lastFrame() ?? "").includes("…(150000 characters)"),
      () => rendered.lastFrame() ?? "",
    );
  });

  it("opens a resumed session with its history already printed", async () => {
    const { temp } = open();
    ingest_all(temp.session, [
      step("user.message.created", { message_id: new_id("message"), content: [{ type: "text", text: "add a --verbose flag" }] }),
      step("assistant.message.started", { message_id: new_id("message"), model_id: "model-large" }),
    ]);
    projection?.close();
    projection = open_session_projection(temp.session);
    const rendered = render(
      createElement(App, { client: projection.store, sender: projection.channel, read_artifact: () => "", list_sessions: () => [], on_exit: () => {} }),
    );
    expect(rendered.lastFrame()).toContain("› add a --verbose flag");
  });
});

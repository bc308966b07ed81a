/**
 * UiCommandChannel and the UI's PromptAnswerer: user decisions travel validated to whoever handles them;
 * a permission prompt asked by the real PermissionEngine is answered through the channel.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { air_failure, AirFailure } from "../../src/contracts/errors.js";
import { new_id } from "../../src/contracts/ids.js";
import { PermissionEngine, type PermissionRequest } from "../../src/permissions/engine.js";
import type { PermissionPrompt } from "../../src/permissions/prompts.js";
import { open_session_projection, type SessionProjection } from "../../src/projection/session-projection.js";
import { turn_running_failure, UiCommandChannel, type UiCommand } from "../../src/projection/ui-command-channel.js";
import { ACCEPT_EDITS } from "../fixtures/permissions.js";
import { step } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { ingest_all } from "./helpers.js";

describe("UiCommandChannel", () => {
  it("delivers each command, validated, to the handlers of its type", () => {
    const channel = new UiCommandChannel();
    const received: UiCommand[] = [];
    channel.on("send_message", (command) => received.push(command));
    channel.on("interrupt", (command) => received.push(command));
    channel.send_message("fix the build");
    channel.interrupt();
    expect(received).toEqual([
      { type: "send_message", text: "fix the build" },
      { type: "interrupt", reason: "interrupted by the user" },
    ]);
  });

  it("keeps commands nobody handles yet and hands them, in order, to the first handler", () => {
    const channel = new UiCommandChannel();
    channel.send_message("first");
    channel.compact();
    channel.send_message("second");
    const messages: string[] = [];
    channel.on("send_message", (command) => messages.push(command.text));
    expect(messages).toEqual(["first", "second"]);
    const compactions: UiCommand[] = [];
    channel.on("compact", (command) => compactions.push(command));
    expect(compactions).toEqual([{ type: "compact" }]);
  });

  it("delivers a message held before its handler existed as one that waits for a running turn", () => {
    const channel = new UiCommandChannel();
    channel.send_message("typed before the runtime was ready");
    const received: UiCommand[] = [];
    channel.on("send_message", (command) => received.push(command));
    expect(received).toEqual([{ type: "send_message", text: "typed before the runtime was ready", after_turn: true }]);
  });

  it("offers a message: false when the handler says a turn must end first, the refusal itself otherwise", () => {
    const channel = new UiCommandChannel();
    let refusal: AirFailure | undefined;
    const received: UiCommand[] = [];
    channel.on("send_message", (command) => {
      if (refusal !== undefined) throw refusal;
      received.push(command);
    });
    expect(channel.offer_message("now", { direct: true })).toBe(true);
    refusal = turn_running_failure();
    expect(channel.offer_message("later")).toBe(false);
    refusal = air_failure({ kind: "user_error", message: "not in direct mode" });
    expect(() => channel.offer_message("direct", { direct: true })).toThrow(/not in direct mode/);
    expect(received).toEqual([{ type: "send_message", text: "now", direct: true }]);
  });

  it("refuses malformed commands and commands after close with an AirError", () => {
    const channel = new UiCommandChannel();
    expect(() => channel.send_message("   ")).toThrow(AirFailure);
    expect(() => channel.answer_permission("not-a-prompt-id", "allow", "once")).toThrow(/invalid UI command/);
    expect(() => channel.send({ type: "rm -rf" } as never)).toThrow(AirFailure);
    channel.close();
    expect(() => channel.compact()).toThrow(/session has ended/);
  });
});

describe("ui_prompt_answerer", () => {
  let temp: TempSession;
  let ui: SessionProjection;
  let outside: string;

  beforeEach(() => {
    temp = open_temp_session();
    outside = temp.root;
    fs.writeFileSync(path.join(outside, "notes.txt"), "outside\n");
    ui = open_session_projection(temp.session);
  });
  afterEach(() => {
    ui.close();
    temp.cleanup();
  });

  function read_outside(): PermissionRequest {
    return {
      tool_name: "fs.read",
      category: "filesystem",
      declared: { reads: true, writes: false, executes: false, network: false },
      reads: ["../notes.txt"],
      writes: [],
      project_root: temp.project.layout.root,
    };
  }

  /** The prompt the engine puts up once its classification (asynchronous: the shell analyzer loads lazily) is done. */
  async function asked() {
    return vi.waitFor(() => {
      const [prompt] = ui.store.snapshot().permission_prompts;
      if (prompt === undefined) throw new Error("no prompt yet");
      return prompt;
    });
  }

  it("resolves the engine's prompt when the user answers it through the channel", async () => {
    const engine = new PermissionEngine({ policy: ACCEPT_EDITS, answerer: ui.answerer });
    const decision = engine.evaluate(read_outside(), temp.session);
    const prompt = await asked();
    expect(prompt).toMatchObject({ status: "pending", tool_name: "fs.read", subjects: [{ kind: "path", op: "read" }] });
    ui.channel.answer_permission(prompt!.prompt_id, "allow", "once");
    await expect(decision).resolves.toMatchObject({ action: "allow", layer: "user_prompt", prompt_id: prompt!.prompt_id });
    expect(ui.store.snapshot().permission_prompts[0]).toMatchObject({ status: "resolved", answer: "allow", grant_scope: "once", resolved_by: "user" });
    expect(ui.store.snapshot().hud.pending_prompts).toBe(0);
  });

  it("refuses an answer to no waiting prompt, or with a scope the prompt did not offer", async () => {
    const engine = new PermissionEngine({ policy: ACCEPT_EDITS, answerer: ui.answerer });
    const decision = engine.evaluate(read_outside(), temp.session);
    const prompt = await asked();
    expect(() => ui.channel.answer_permission(new_id("permission_prompt"), "allow", "once")).toThrow(/no permission prompt/);
    const unoffered = (["once", "session", "project", "global"] as const).find((scope) => !prompt!.offered_scopes.includes(scope));
    if (unoffered !== undefined) expect(() => ui.channel.answer_permission(prompt!.prompt_id, "allow", unoffered)).toThrow(/does not offer/);
    ui.channel.answer_permission(prompt!.prompt_id, "deny", "once", "not outside the project");
    await expect(decision).resolves.toMatchObject({ action: "deny", layer: "user_prompt" });
    expect(ui.store.snapshot().permission_prompts[0]).toMatchObject({ answer: "deny", note: "not outside the project" });
    expect(() => ui.channel.answer_permission(prompt!.prompt_id, "allow", "once")).toThrow(/no permission prompt/);
  });

  it("keeps an answer given before the engine asks (a resumed session's prompts)", async () => {
    const prompt_id = new_id("permission_prompt");
    ingest_all(temp.session, [
      step("permission.prompt.requested", {
        prompt_id,
        question: "Read ../notes.txt?",
        risk_level: "medium",
        offered_scopes: ["once", "session"],
        tool_name: "fs.read",
      }),
    ]);
    ui.channel.answer_permission(prompt_id, "allow", "session");
    const prompt: PermissionPrompt = {
      prompt_id,
      tool_name: "fs.read",
      question: "Read ../notes.txt?",
      reason: "outside",
      risk_level: "medium",
      offered_scopes: ["once", "session"],
      subjects: [],
      categories: [],
      commands: [],
    };
    await expect(ui.answerer.answer(prompt)).resolves.toEqual({ answer: "allow", grant_scope: "session", resolved_by: "user" });
  });

  it("denies by policy when the call is cancelled or the UI closes while waiting", async () => {
    const prompt = (id = new_id("permission_prompt")): PermissionPrompt => ({
      prompt_id: id,
      tool_name: "fs.read",
      question: "q",
      reason: "r",
      risk_level: "low",
      offered_scopes: ["once"],
      subjects: [],
      categories: [],
      commands: [],
    });
    const controller = new AbortController();
    const cancelled = ui.answerer.answer(prompt(), controller.signal);
    controller.abort();
    await expect(cancelled).resolves.toMatchObject({ answer: "deny", resolved_by: "policy" });
    const waiting = ui.answerer.answer(prompt());
    ui.close();
    await expect(waiting).resolves.toMatchObject({ answer: "deny", resolved_by: "policy" });
  });
});

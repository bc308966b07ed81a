import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { clip_tool_output, ContextAssembler, type AssembleInput } from "../../src/context/assembler.js";
import { Conversation } from "../../src/context/conversation.js";
import { make_layer } from "../../src/context/layers.js";
import type { PromptLayer } from "../../src/contracts/prompt-layer.js";
import type { ContentBlock, ModelRequest } from "../../src/contracts/provider.js";
import { new_id } from "../../src/contracts/ids.js";
import { open_temp_session } from "../fixtures/session.js";

const TOOLS = [{ name: "fs.read", description: "Reads a file.", input_schema: { type: "object", properties: { path: { type: "string" } } } }];

function layers(): PromptLayer[] {
  // Given out of order on purpose: the assembler orders them by level.
  return [
    make_layer("evidence", "task/evidence", "# Evidence\n- earlier run"),
    make_layer("task_spec", "task/t1", "# Task specification: fix the build"),
    make_layer("runtime_invariant", "runtime-invariant", "You are an agent of air."),
    make_layer("architecture", "plan/design.md", "# Plan: the design"),
    make_layer("role", "role/executor", "You are an executor."),
    make_layer("project_rules", "rules/style.md", "# Project rules: .air/shared/rules/style.md\n\nTabs, not spaces."),
    make_layer("safety", "mode/accept-edits", "# Permissions\nPermission mode: accept-edits."),
  ];
}

function tool_turn(conversation: Conversation, index: number, output = `contents of file ${index}`): void {
  const id = `toolu_${index}`;
  conversation.append(new_id("message"), {
    role: "assistant",
    content: [
      { type: "text", text: `reading ${index}` },
      { type: "tool_use", id, name: "fs.read", input: { path: `f${index}` } },
    ],
  });
  conversation.append(new_id("message"), { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] });
}

function started(): Conversation {
  const conversation = new Conversation();
  conversation.append(new_id("message"), { role: "user", content: "# Task: fix the build\n\nCarry out the task." });
  return conversation;
}

function input(conversation: Conversation, token_budget = 100_000, given: PromptLayer[] = layers()): AssembleInput {
  return { purpose: "task_execution", layers: given, conversation: conversation.entries, tools: TOOLS, token_budget };
}

function texts(request: ModelRequest): string[] {
  return (request.system as { text: string }[]).map((block) => block.text);
}

/** Everything a cache reads before the newest turn, serialized. */
function prefix_bytes(request: ModelRequest, before_message: number): string {
  return JSON.stringify([request.tools, request.system, request.messages.slice(0, before_message)]);
}

describe("ContextAssembler", () => {
  it("puts the stable layers first, in L0–L6 order, with one cache breakpoint on the last of them", () => {
    const { request, layers: summary } = new ContextAssembler().assemble(input(started()));
    expect(texts(request).map((text) => text.split("\n")[0])).toEqual([
      "You are an agent of air.",
      "You are an executor.",
      "# Permissions",
      "# Project rules: .air/shared/rules/style.md",
      "# Plan: the design",
      "# Task specification: fix the build",
      "# Evidence",
    ]);
    const system = request.system as { cache_control?: unknown }[];
    expect(system.filter((block) => block.cache_control !== undefined)).toHaveLength(1);
    expect(system.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    expect(request.messages).toEqual([{ role: "user", content: "# Task: fix the build\n\nCarry out the task." }]);
    expect(summary.map((layer) => layer.level)).toEqual([
      "runtime_invariant",
      "role",
      "safety",
      "project_rules",
      "architecture",
      "task_spec",
      "evidence",
      "user_override",
    ]);
  });

  it("starts every request with the previous request's bytes up to its newest turn", () => {
    const assembler = new ContextAssembler();
    const conversation = started();
    let previous = assembler.assemble(input(conversation)).request;
    for (let turn = 1; turn <= 12; turn += 1) {
      tool_turn(conversation, turn);
      const next = assembler.assemble(input(conversation)).request;
      const stable = previous.messages.length - 1;
      expect(prefix_bytes(next, stable)).toBe(prefix_bytes(previous, stable));
      // The newest turn of the previous request is carried on unchanged too.
      expect(JSON.stringify(next.messages.slice(0, previous.messages.length))).toBe(JSON.stringify(previous.messages));
      previous = next;
    }
  });

  it("fits a budget by dropping L6, then L4, then the oldest turns, and records each omission", () => {
    const conversation = started();
    for (let turn = 1; turn <= 10; turn += 1) tool_turn(conversation, turn, "x".repeat(400));
    const all = new ContextAssembler().assemble(input(conversation, 1_000_000));
    expect(all.omissions).toEqual([]);
    const evidence = layers().find((layer) => layer.level === "evidence")!.token_estimate;
    const without_evidence = new ContextAssembler().assemble(input(conversation, all.token_estimate - evidence));
    expect(without_evidence.omissions.map((omission) => [omission.level, omission.id])).toEqual([["evidence", "task/evidence"]]);
    expect(without_evidence.compaction_requested).toBe(false);

    const tight = new ContextAssembler().assemble(input(conversation, all.token_estimate - 600));
    const levels = tight.omissions.map((omission) => omission.level);
    expect(levels.slice(0, 2)).toEqual(["evidence", "architecture"]);
    expect(levels.slice(2).every((level) => level === "conversation" || level === "tool_output")).toBe(true);
    expect(tight.token_estimate).toBeLessThanOrEqual(tight.token_budget);
    expect(tight.compaction_requested).toBe(false);
    for (const omission of tight.omissions) expect(omission.reason).toMatch(/token budget/);
    // The omitted messages are named by their ids, oldest first.
    expect(tight.omissions.slice(2).map((omission) => omission.id)).toEqual(conversation.entries.slice(0, tight.omissions.length - 2).map((entry) => entry.id));
  });

  it("never separates a tool_result from its tool_use, and says what was left out", () => {
    const conversation = started();
    for (let turn = 1; turn <= 6; turn += 1) tool_turn(conversation, turn, "y".repeat(800));
    const full = new ContextAssembler().assemble(input(conversation, 1_000_000)).token_estimate;
    let cut = 0;
    for (let budget = full - 100; budget > full - 1500; budget -= 97) {
      const { request } = new ContextAssembler().assemble(input(conversation, budget));
      const [note, first] = request.messages;
      if (request.messages.length === conversation.length) continue;
      cut += 1;
      expect(note!.role).toBe("user");
      expect(String(note!.content)).toMatch(/oldest messages of this conversation are left out/);
      expect(first!.role).toBe("assistant");
      const uses = new Set(
        request.messages
          .flatMap((message) => (typeof message.content === "string" ? [] : message.content))
          .filter((block) => block.type === "tool_use")
          .map((block) => block.id),
      );
      const results = request.messages
        .flatMap((message) => (typeof message.content === "string" ? [] : message.content))
        .filter((block) => block.type === "tool_result");
      for (const result of results) expect(uses.has(result.tool_use_id)).toBe(true);
    }
    expect(cut).toBeGreaterThan(5);
  });

  it("keeps L0–L3, L5 and the newest turn whatever the budget, and then asks for compaction", () => {
    const conversation = started();
    for (let turn = 1; turn <= 4; turn += 1) tool_turn(conversation, turn);
    const assembled = new ContextAssembler().assemble(input(conversation, 10));
    expect(assembled.compaction_requested).toBe(true);
    expect(assembled.layers.map((layer) => layer.level)).toEqual(expect.arrayContaining(["runtime_invariant", "role", "safety", "project_rules", "task_spec"]));
    expect(assembled.omissions.map((omission) => omission.level)).not.toEqual(
      expect.arrayContaining(["runtime_invariant", "role", "safety", "project_rules", "task_spec"]),
    );
    // The newest turn is the last tool_use and its result.
    const newest = assembled.request.messages.slice(-2);
    expect(newest).toEqual(conversation.entries.slice(-2).map((entry) => entry.message));
  });

  it("never drops an immutable layer, even one given at a droppable level", () => {
    const pinned: PromptLayer = { ...make_layer("evidence", "pinned", "z".repeat(4000)), immutable: true };
    const assembled = new ContextAssembler().assemble(input(started(), 100, [...layers(), pinned]));
    expect(assembled.layers.map((layer) => layer.id)).toContain("pinned");
    expect(assembled.compaction_requested).toBe(true);
  });

  it("clips an oversized tool result, and clipping it again changes nothing", () => {
    const conversation = started();
    tool_turn(conversation, 1, "w".repeat(200_000));
    const { request } = new ContextAssembler({ tool_result_max_chars: 1_000 }).assemble(input(conversation, 1_000_000));
    const result = (request.messages.at(-1)!.content as ContentBlock[])[0]!;
    expect(String(result.content)).toHaveLength(1_000);
    expect(String(result.content)).toMatch(/200000 characters, clipped; the tool run's record has all of it\]$/);
    expect(clip_tool_output(String(result.content), 1_000)).toBe(result.content);
    // The conversation itself is left as it was.
    expect(((conversation.entries.at(-1)!.message.content as ContentBlock[])[0]!.content as string).length).toBe(200_000);
  });

  it("uses the provider's token count when it has one", () => {
    const assembled = new ContextAssembler({ count_tokens: () => 4242 }).assemble(input(started()));
    expect(assembled.token_estimate).toBe(4242);
  });

  it("writes a large request as a messages artifact, and a small one not", () => {
    const temp = open_temp_session();
    try {
      const artifacts = temp.session.artifacts;
      const assembler = new ContextAssembler({
        write_messages_artifact: (json) => artifacts.create({ type: "messages", content: json, mime_type: "application/json", extension: ".json" }).id,
      });
      const small = started();
      expect(assembler.assemble(input(small)).messages_artifact_id).toBeUndefined();
      const large = started();
      for (let turn = 1; turn <= 8; turn += 1) tool_turn(large, turn, "v".repeat(60_000));
      const assembled = assembler.assemble(input(large, 1_000_000));
      expect(assembled.messages_artifact_id).toMatch(/^art_/);
      const row = temp.session.connection.client.prepare("SELECT type, mime_type, path FROM artifacts WHERE id = ?").get(assembled.messages_artifact_id) as {
        type: string;
        mime_type: string;
        path: string;
      };
      expect(row).toMatchObject({ type: "messages", mime_type: "application/json" });
      expect(JSON.parse(fs.readFileSync(artifacts.path_of(row.path), "utf8"))).toEqual(JSON.parse(JSON.stringify(assembled.request)));
    } finally {
      temp.cleanup();
    }
  });
});

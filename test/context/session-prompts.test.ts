import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionPrompts } from "../../src/context/session-prompts.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { TaskSpec, type TaskSpecInput } from "../../src/contracts/task.js";
import { evidence_ref, minimal_task_spec } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
let root: string;

beforeEach(() => {
  temp = open_temp_session();
  root = temp.session.project.layout.root;
});
afterEach(() => temp.cleanup());

function write(relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

function created_task(overrides: Partial<TaskSpecInput> = {}): TaskSpec {
  const task = v.parse(TaskSpec, minimal_task_spec({ title: "Fix the parser", ...overrides }));
  temp.session.ingestor.ingest(make_event("task.created", { task }, temp.session.origin));
  return task;
}

function prompts(mode: "default" | "accept-edits" | "plan" | "bypass" = "accept-edits", context_window?: number): SessionPrompts {
  return new SessionPrompts({ session: temp.session, mode, ...(context_window === undefined ? {} : { context_window }) });
}

describe("SessionPrompts: an agent's stable layers", () => {
  it("builds L0–L6 for an executor: invariant, role, mode, rules, plan, task, evidence", () => {
    write(".air/shared/rules/style.md", "Two spaces.");
    write("AGENTS.md", "Run the tests.");
    write(".air/shared/plan/parser.md", "# Parser plan\nRecursive descent.");
    const parent = created_task({ title: "Write the lexer" });
    const artifact = temp.session.artifacts.create({ type: "report", content: "lexer notes", original_name: "notes.md" });
    const task = created_task({ context_refs: { plan_ref: "parser.md", parent_task_results: [parent.id], artifacts: [artifact.id] } });
    temp.session.ingestor.ingest(
      make_event("evidence.created", { evidence: evidence_ref("command_run", "cmd_earlier"), task_id: task.id }, temp.session.origin),
    );

    const layers = prompts().agent_layers(task, "executor");
    expect(layers.map((layer) => [layer.level, layer.id])).toEqual([
      ["runtime_invariant", "runtime-invariant"],
      ["role", "role/executor"],
      ["safety", "mode/accept-edits"],
      ["project_rules", "rules/style.md"],
      ["project_rules", "AGENTS.md"],
      ["architecture", "plan/parser.md"],
      ["task_spec", `task/${task.id}`],
      ["evidence", `task/${task.id}/evidence`],
    ]);
    expect(layers.every((layer) => layer.stable)).toBe(true);
    expect(layers.filter((layer) => layer.immutable).map((layer) => layer.level)).toEqual(["runtime_invariant", "role", "safety"]);
    expect(layers[5]!.text).toBe("# Plan: .air/shared/plan/parser.md\n\n# Parser plan\nRecursive descent.");
    const evidence = layers[7]!.text;
    expect(evidence).toContain(`- task ${parent.id} "Write the lexer" (pending): no result`);
    expect(evidence).toContain(`- artifact ${artifact.id} (report, 11 bytes, notes.md): read it with artifact.read`);
    expect(evidence).toContain("- command_run cmd_earlier: the tests pass");
  });

  it("says what the permission mode means in L2", () => {
    const task = created_task();
    const safety = (mode: "default" | "plan" | "bypass") =>
      prompts(mode)
        .agent_layers(task, "executor")
        .find((layer) => layer.level === "safety")!.text;
    expect(safety("plan")).toMatch(/Permission mode: plan\. Only looking is allowed/);
    expect(safety("default")).toMatch(/asked before source files are edited/);
    expect(safety("bypass")).toMatch(/credential and system access are still refused/);
  });

  it("omits L4 and L6 when the task names no plan and nothing is known yet", () => {
    const levels = prompts()
      .agent_layers(created_task(), "executor")
      .map((layer) => layer.level);
    expect(levels).not.toContain("architecture");
    expect(levels).not.toContain("evidence");
  });

  it("does not read a plan reference that leaves .air/shared/plan", () => {
    write("secrets.md", "not a plan");
    write(".air/shared/plan/inner.md", "plan text");
    fs.symlinkSync(path.join(root, "secrets.md"), path.join(root, ".air", "shared", "plan", "link.md"));
    for (const plan_ref of ["../../../secrets.md", "link.md", "/etc/passwd"]) {
      const levels = prompts()
        .agent_layers(created_task({ context_refs: { plan_ref } }), "executor")
        .map((layer) => layer.level);
      expect(levels, plan_ref).not.toContain("architecture");
    }
    const named = prompts().agent_layers(created_task({ context_refs: { arc_ref: ".air/shared/plan/inner.md" } }), "executor");
    expect(named.find((layer) => layer.level === "architecture")?.text).toContain("plan text");
  });
});

describe("SessionPrompts: the Main Agent", () => {
  it("assembles its requests from L0, its role, L2 and L3, stable first with one breakpoint", () => {
    write("CLAUDE.md", "Answer briefly.");
    const assembled = prompts("default").assemble_main("classification", [{ id: "msg_1", message: { role: "user", content: "add a flag" } }], []);
    const system = assembled.request.system as { text: string; cache_control?: unknown }[];
    expect(system.map((block) => block.text.split("\n")[0])).toEqual([
      "You are an agent of air, a local coding runtime working in the user's project.",
      "You are the Main Agent of air, a coding runtime working in the user's project.",
      "# Permissions",
      "# Project rules: CLAUDE.md",
    ]);
    expect(system.map((block) => block.cache_control !== undefined)).toEqual([false, false, false, true]);
    expect(assembled.request.messages).toEqual([{ role: "user", content: "add a flag" }]);
  });

  it("keeps a request over 256 KB as a messages artifact", () => {
    const assembled = prompts("default", 1_000_000).assemble_main(
      "classification",
      [{ id: "msg_1", message: { role: "user", content: "x".repeat(300_000) } }],
      [],
    );
    expect(assembled.messages_artifact_id).toMatch(/^art_/);
    const row = temp.session.connection.client.prepare("SELECT type, mime_type FROM artifacts WHERE id = ?").get(assembled.messages_artifact_id);
    expect(row).toMatchObject({ type: "messages", mime_type: "application/json" });
  });

  it("derives its token budget from the model's context window", () => {
    expect(prompts("default", 200_000)).toMatchObject({ context_window: 200_000, token_budget: 180_000 });
    expect(prompts("default", 8_000)).toMatchObject({ context_window: 8_000, token_budget: 5_840 });
  });
});

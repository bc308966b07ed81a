import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionPrompts } from "../../src/context/session-prompts.js";
import { new_id } from "../../src/contracts/ids.js";
import { open_memory_desk } from "../../src/memory/desk.js";
import type { MemoryDesk } from "../../src/memory/promotion.js";
import { archive, promote, reject } from "../../src/memory/promotion.js";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { find_rows, temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
let session: Session;
let desk: MemoryDesk;
beforeEach(() => {
  temp = temp_project();
  session = open_session(temp.project, { title: "mining session" });
  desk = open_memory_desk(session);
});
afterEach(() => {
  desk.store.close();
  session.close();
  temp.cleanup();
});

const RULE = "Run `ctest --output-on-failure` after every build.\n\nA build that compiles is not a build that works.\n";

function candidate(memory_type: "rule" | "skill" | "fact" | "pitfall", evidence = 1) {
  return desk.store.insert({
    memory_type,
    title: memory_type === "rule" ? "Run ctest after builds" : `A ${memory_type}`,
    content: memory_type === "rule" ? RULE : `What the ${memory_type} says.`,
    evidence_ref_ids: Array.from({ length: evidence }, () => new_id("evidence")),
  });
}

function rule_layers(of: Session) {
  return new SessionPrompts({ session: of, mode: "default" }).main_layers().filter((layer) => layer.level === "project_rules");
}

function events(type: string) {
  return find_rows(session.connection, "events", type, "type").map((row) => row.payload_json);
}

function tool_runs(tool_name: string) {
  return find_rows(session.connection, "tool_runs", tool_name, "tool_name");
}

describe("promotion", () => {
  it("writes nothing while a candidate waits for approval", () => {
    candidate("rule");
    expect(fs.existsSync(path.join(temp.project.layout.rules, "run-ctest-after-builds.md"))).toBe(false);
    expect(rule_layers(session)).toEqual([]);
    expect(events("memory.promoted")).toEqual([]);
  });

  it("writes an approved rule through fs.write, records memory.promoted, and the next session's L3 carries its bytes", async () => {
    const memory = candidate("rule");
    const promoted = await promote(desk, memory.id, "user");
    const relative = ".air/shared/rules/run-ctest-after-builds.md";
    expect(promoted).toMatchObject({ status: "promoted", target_ref: relative });
    expect(fs.readFileSync(path.join(temp.project.layout.root, relative), "utf8")).toBe(RULE);
    expect(tool_runs("fs.write")).toEqual([expect.objectContaining({ status: "ok" })]);
    expect(events("memory.promoted")).toEqual([{ candidate_id: memory.id, target_ref: relative, promoted_by: "user", summary: expect.any(String) }]);

    const next = open_session(temp.project, { title: "next session" });
    try {
      const layers = rule_layers(next);
      expect(layers.map((layer) => layer.source)).toEqual([relative]);
      expect(layers[0]?.text).toBe(`# Project rules: ${relative}\n\n${RULE.trimEnd()}`);
    } finally {
      next.close();
    }
  });

  it("writes a skill as a SKILL.md folder and keeps facts and pitfalls in learned-memory.db", async () => {
    const skill = await promote(desk, candidate("skill").id, "user");
    expect(skill.target_ref).toBe(".air/shared/skills/a-skill/SKILL.md");
    expect(fs.readFileSync(path.join(temp.project.layout.root, ".air/shared/skills/a-skill/SKILL.md"), "utf8")).toBe(
      '---\nname: a-skill\ndescription: "A skill"\n---\n\nWhat the skill says.\n',
    );
    const pitfall = await promote(desk, candidate("pitfall").id, "policy");
    expect(pitfall.target_ref).toBe(`learned-memory.db#${pitfall.id}`);
    expect(desk.store.lookup_by_type("pitfall").map((m) => m.id)).toEqual([pitfall.id]);
  });

  it("refuses a candidate under the evidence threshold", async () => {
    const memory = candidate("rule", 0);
    await expect(promote(desk, memory.id, "user")).rejects.toMatchObject({ error: { kind: "policy_error" } });
    expect(desk.store.get(memory.id).status).toBe("candidate");
    expect(tool_runs("fs.write")).toEqual([]);
  });

  it("never overwrites a rule file someone else wrote", async () => {
    fs.mkdirSync(temp.project.layout.rules, { recursive: true });
    fs.writeFileSync(path.join(temp.project.layout.rules, "run-ctest-after-builds.md"), "mine\n");
    const memory = candidate("rule");
    await expect(promote(desk, memory.id, "user")).rejects.toMatchObject({ error: { kind: "user_error", message: expect.stringContaining("already exists") } });
    expect(fs.readFileSync(path.join(temp.project.layout.rules, "run-ctest-after-builds.md"), "utf8")).toBe("mine\n");
    expect(desk.store.get(memory.id).status).toBe("candidate");
  });

  it("keeps a rejected candidate out of every store", () => {
    const memory = candidate("rule");
    expect(reject(desk, memory.id, "too specific")).toMatchObject({ status: "rejected", status_reason: "too specific" });
    expect(fs.existsSync(path.join(temp.project.layout.rules, "run-ctest-after-builds.md"))).toBe(false);
  });
});

describe("archiving", () => {
  it("removes a promoted rule through fs.patch, records memory.archived, and the next session's L3 no longer has it", async () => {
    const memory = candidate("rule");
    await promote(desk, memory.id, "user");
    const archived = await archive(desk, memory.id, "harmful: slows every task");
    expect(archived).toMatchObject({ status: "archived", status_reason: "harmful: slows every task" });
    expect(fs.existsSync(path.join(temp.project.layout.rules, "run-ctest-after-builds.md"))).toBe(false);
    expect(tool_runs("fs.patch")).toEqual([expect.objectContaining({ status: "ok" })]);
    expect(events("memory.archived")).toEqual([{ memory_id: memory.id, reason: "harmful: slows every task" }]);
    const next = open_session(temp.project, { title: "next session" });
    try {
      expect(rule_layers(next)).toEqual([]);
    } finally {
      next.close();
    }
  });
});

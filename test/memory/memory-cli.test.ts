import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { new_id } from "../../src/contracts/ids.js";
import { LearnedMemoryStore } from "../../src/memory/learned-memory-store.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
});
afterEach(() => temp.cleanup());

async function air(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (text) => (out += text), err: (text) => (err += text), cwd: temp.project.layout.root });
  return { code, out, err };
}

const RULE = "Keep public headers free of `using namespace`.\n";

function seed(memory_type: "rule" | "pitfall" = "rule") {
  const store = LearnedMemoryStore.open(temp.project.layout);
  try {
    return store.insert({ memory_type, title: "No using namespace in headers", content: RULE, evidence_ref_ids: [new_id("evidence")] });
  } finally {
    store.close();
  }
}

const rule_file = () => path.join(temp.project.layout.rules, "no-using-namespace-in-headers.md");

describe("air memory", () => {
  it("lists the candidates, promotes one only with --approve, and archives it again", async () => {
    const memory = seed();
    const listed = await air("memory", "list", "--json");
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id: memory.id, status: "candidate" })]);
    expect(fs.existsSync(rule_file())).toBe(false);

    const approved = await air("memory", "review", "--approve", memory.id);
    expect(approved).toMatchObject({ code: 0, out: expect.stringContaining(".air/shared/rules/no-using-namespace-in-headers.md") });
    expect(fs.readFileSync(rule_file(), "utf8")).toBe(RULE);
    expect((await air("memory", "list")).out).toContain(`${memory.id}  promoted `);

    const archived = await air("memory", "archive", memory.id, "--reason", "the style guide changed");
    expect(archived.code).toBe(0);
    expect(fs.existsSync(rule_file())).toBe(false);
    expect(JSON.parse((await air("memory", "list", "--json")).out)).toEqual([
      expect.objectContaining({ id: memory.id, status: "archived", status_reason: "the style guide changed" }),
    ]);
  });

  it("rejects a candidate with --reject and writes nothing", async () => {
    const memory = seed();
    expect((await air("memory", "review", "--reject", memory.id, "--reason", "too narrow")).code).toBe(0);
    expect(fs.existsSync(rule_file())).toBe(false);
    expect(JSON.parse((await air("memory", "list", "--json")).out)).toEqual([expect.objectContaining({ status: "rejected", status_reason: "too narrow" })]);
  });

  it("refuses to review without a terminal or an id, and refuses an unknown id", async () => {
    seed();
    const asked = await air("memory", "review");
    expect(asked).toMatchObject({ code: 1, err: expect.stringContaining("--approve ID or --reject ID") });
    const unknown = await air("memory", "review", "--approve", "mem_01J00000000000000000000000");
    expect(unknown).toMatchObject({ code: 1, err: expect.stringContaining("no memory mem_01J00000000000000000000000") });
  });

  it("is in the help", async () => {
    const help = await air("--help");
    for (const command of ["air memory list", "air memory review", "air memory archive"]) expect(help.out).toContain(command);
  });
});

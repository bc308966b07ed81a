import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import { LearnedMemoryStore } from "../../src/memory/learned-memory-store.js";
import { temp_project, type TempProject } from "../fixtures/session.js";
import { expect_air_failure } from "../fixtures/failures.js";

let temp: TempProject;
let store: LearnedMemoryStore;
beforeEach(() => {
  temp = temp_project();
  store = LearnedMemoryStore.open(temp.project.layout);
});
afterEach(() => {
  store.close();
  temp.cleanup();
});

const evidence = [new_id("evidence")];

describe("LearnedMemoryStore", () => {
  it("creates .air/local/learned-memory.db and inserts candidates with their evidence", () => {
    const inserted = store.insert({
      memory_type: "rule",
      title: "Run ctest",
      content: "Always run ctest.\n",
      evidence_ref_ids: evidence,
      source_task_id: "tsk_x",
    });
    expect(fs.existsSync(temp.project.layout.learned_memory_db)).toBe(true);
    expect(inserted).toMatchObject({
      status: "candidate",
      memory_type: "rule",
      title: "Run ctest",
      content: "Always run ctest.\n",
      evidence_ref_ids: evidence,
    });
    expect(inserted.id).toMatch(/^mem_/);
    expect(store.get(inserted.id)).toEqual(inserted);
  });

  it("looks entries up by type and by status", () => {
    const rule = store.insert({ memory_type: "rule", title: "r", content: "r", evidence_ref_ids: evidence });
    const pitfall = store.insert({ memory_type: "pitfall", title: "p", content: "p", evidence_ref_ids: evidence });
    store.update_status(pitfall.id, "promoted", { target_ref: `learned-memory.db#${pitfall.id}` });
    expect(store.lookup_by_status("candidate").map((m) => m.id)).toEqual([rule.id]);
    expect(store.lookup_by_type("pitfall").map((m) => m.id)).toEqual([pitfall.id]);
    expect(store.lookup_by_type("rule")).toEqual([]);
    expect(store.lookup_by_type("rule", "candidate").map((m) => m.id)).toEqual([rule.id]);
  });

  it("refuses a move its status does not allow and changes nothing", () => {
    const memory = store.insert({ memory_type: "fact", title: "f", content: "f", evidence_ref_ids: evidence });
    store.update_status(memory.id, "rejected", { reason: "not true" });
    const failure = expect_air_failure(() => store.update_status(memory.id, "promoted"));
    expect(failure.message).toContain("is rejected; it cannot become promoted");
    expect(store.get(memory.id)).toMatchObject({ status: "rejected", status_reason: "not true" });
  });

  it("refuses evidence ids that are not evidence ids", () => {
    expect(() => store.insert({ memory_type: "fact", title: "f", content: "f", evidence_ref_ids: ["nope"] })).toThrow();
    expect(store.list()).toEqual([]);
  });

  it("scans promoted entries unused since a time as stale", () => {
    const used = store.insert({ memory_type: "fact", title: "used", content: "u", evidence_ref_ids: evidence });
    const idle = store.insert({ memory_type: "fact", title: "idle", content: "i", evidence_ref_ids: evidence });
    const candidate = store.insert({ memory_type: "fact", title: "candidate", content: "c", evidence_ref_ids: evidence });
    store.update_status(used.id, "promoted");
    store.update_status(idle.id, "promoted");
    store.touch(used.id, "2999-01-01T00:00:00.000Z");
    const later = "2998-01-01T00:00:00.000Z";
    expect(store.scan_stale(later).map((m) => m.id)).toEqual([idle.id]);
    expect(store.scan_stale("2000-01-01T00:00:00.000Z")).toEqual([]);
    expect(store.get(candidate.id).status).toBe("candidate");
  });

  it("keeps its rows across reopening", () => {
    const memory = store.insert({ memory_type: "skill", title: "s", content: "s", evidence_ref_ids: evidence });
    store.close();
    store = LearnedMemoryStore.open(temp.project.layout);
    expect(store.get(memory.id).title).toBe("s");
  });
});

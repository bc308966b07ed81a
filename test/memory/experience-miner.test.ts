/**
 * The ExperienceMiner with a real worker process and the scripted model server: what it is handed, how it
 * proposes, when it runs at all, and that its failure harms nothing. Needs `npm run build` (the worker is dist/).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { LearnedMemoryStore } from "../../src/memory/learned-memory-store.js";
import { find_rows } from "../fixtures/session.js";
import { agent_tool_calls, EVIDENCE_ID, events_of, miner_bench, seed_debug_record, seed_verified_task, write_policy, type MinerBench } from "./miner-setup.js";

const RULE = "After changing a header, rebuild and run `ctest --output-on-failure` before reporting done.\n";

const propose = (input: Record<string, unknown>) => ({ reply: { content: [{ type: "tool_use" as const, name: "memory.propose", input }] } });

const valid_proposal = {
  candidates: [
    { memory_type: "rule", title: "Run ctest after header changes", content: RULE, evidence_ref_ids: [EVIDENCE_ID] },
    { memory_type: "pitfall", title: "Invented evidence", content: "Cites nothing it was handed.", evidence_ref_ids: [`evd_01J${"0".repeat(22)}9`] },
  ],
};

/** A first proposal that misses `title`, answered as a tool error, then a valid one. */
const CORRECTED: ScriptInput = {
  turns: {
    experience_miner: [
      {
        expect: { last_user_contains: EVIDENCE_ID, tools: ["fs.read", "fs.list", "fs.glob", "fs.grep", "memory.propose"] },
        ...propose({ candidates: [{ memory_type: "rule", content: RULE, evidence_ref_ids: [EVIDENCE_ID] }] }),
      },
      { expect: { tool_result_contains: "does not match the schema" }, ...propose(valid_proposal) },
    ],
  },
};

const ONE_PROPOSAL: ScriptInput = { turns: { experience_miner: [propose({ candidates: [valid_proposal.candidates[0]] })] } };

let bench: MinerBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

function memories(b: MinerBench) {
  const store = LearnedMemoryStore.open(b.temp.project.layout);
  try {
    return store.list();
  } finally {
    store.close();
  }
}

describe("ExperienceMinerRole", () => {
  it("proposes candidates through memory.propose, invalid input answered as a tool error, each a row and a memory.candidate.created", async () => {
    bench = await miner_bench(CORRECTED);
    const task_id = seed_verified_task(bench.temp);
    seed_debug_record(bench.temp);
    bench.miner.after_step();
    await bench.miner.idle();

    expect(bench.miner_requests()).toHaveLength(2);
    const [memory] = memories(bench);
    expect(memories(bench)).toHaveLength(1);
    expect(memory).toMatchObject({
      status: "candidate",
      memory_type: "rule",
      title: "Run ctest after header changes",
      content: RULE,
      evidence_ref_ids: [EVIDENCE_ID],
      source_task_id: task_id,
    });
    expect(events_of(bench.temp, "memory.candidate.created")).toEqual([
      { candidate_id: memory?.id, memory_type: "rule", content: RULE, evidence_ref_ids: [EVIDENCE_ID], source_task_id: task_id },
    ]);
    // The candidate citing evidence it was never handed is dropped, and said so.
    expect(bench.logs.map((entry) => entry.message)).toEqual([expect.stringContaining('dropped the candidate "Invented evidence"')]);
    // The miner is an agent of its own, outside the task graph, and wrote nothing.
    const [agent] = find_rows(bench.temp.session.connection, "agents", "experience_miner", "agent_type");
    expect(agent).toMatchObject({ status: "completed" });
    expect(fs.existsSync(bench.temp.project.layout.rules) ? fs.readdirSync(bench.temp.project.layout.rules) : []).toEqual([]);
    // The debug record was handed over as evidence of its own.
    const handed = JSON.stringify(bench.miner_requests()[0]?.body);
    expect(handed).toContain("gcc:missing-include:vector");
    expect(events_of(bench.temp, "evidence.created")).toEqual([expect.objectContaining({ evidence: expect.objectContaining({ kind: "structured_result" }) })]);
  });

  it("refuses the miner every tool that writes, whatever the worker asks for", async () => {
    bench = await miner_bench({
      turns: {
        experience_miner: [
          { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "x.txt", content: "x" } }] } },
          { expect: { tool_result_contains: "no tool named" }, ...propose({ candidates: [] }) },
        ],
      },
    });
    seed_verified_task(bench.temp);
    await bench.miner.session_end();
    expect(fs.existsSync(path.join(bench.temp.project.layout.root, "x.txt"))).toBe(false);
    expect(find_rows(bench.temp.session.connection, "tool_runs", "fs.write", "tool_name")).toEqual([]);
  });
});

describe("the miner's triggers", () => {
  it("fires after a step that brought a debug record", async () => {
    bench = await miner_bench(ONE_PROPOSAL);
    seed_verified_task(bench.temp);
    bench.miner.after_step();
    await bench.miner.idle();
    expect(bench.miner_requests()).toHaveLength(0);
    seed_debug_record(bench.temp);
    bench.miner.after_step();
    await bench.miner.idle();
    expect(bench.miner_requests()).toHaveLength(1);
    expect(JSON.stringify(bench.miner_requests()[0]?.body)).toContain("mined on debug record");
  });

  it("fires after N tool calls of the session's agents", async () => {
    bench = await miner_bench(ONE_PROPOSAL, { every_n_tool_calls: 3 });
    seed_verified_task(bench.temp);
    await agent_tool_calls(bench, 2);
    bench.miner.after_step();
    await bench.miner.idle();
    expect(bench.miner_requests()).toHaveLength(0);
    await agent_tool_calls(bench, 1);
    bench.miner.after_step();
    await bench.miner.idle();
    expect(bench.miner_requests()).toHaveLength(1);
    expect(JSON.stringify(bench.miner_requests()[0]?.body)).toContain("mined on tool calls");
  });

  it("fires at the session's end on what is left, and not again without new evidence", async () => {
    bench = await miner_bench(ONE_PROPOSAL);
    seed_verified_task(bench.temp);
    await bench.miner.session_end();
    expect(bench.miner_requests()).toHaveLength(1);
    expect(JSON.stringify(bench.miner_requests()[0]?.body)).toContain("mined on session end");
    await agent_tool_calls(bench, 5);
    seed_debug_record(bench.temp);
    await bench.miner.session_end();
    expect(bench.miner_requests()).toHaveLength(2);
    await bench.miner.session_end();
    bench.miner.after_step();
    await bench.miner.idle();
    expect(bench.miner_requests()).toHaveLength(2);
  });

  it("spends no model call in a session with nothing verified to learn from", async () => {
    bench = await miner_bench(ONE_PROPOSAL);
    await agent_tool_calls(bench, 5);
    bench.miner.after_step();
    await bench.miner.session_end();
    expect(bench.server.requests()).toEqual([]);
    expect(find_rows(bench.temp.session.connection, "agents", "experience_miner", "agent_type")).toEqual([]);
  });

  it("mines nothing when switched off", async () => {
    bench = await miner_bench(ONE_PROPOSAL, { enabled: false });
    seed_verified_task(bench.temp);
    seed_debug_record(bench.temp);
    bench.miner.after_step();
    await bench.miner.session_end();
    expect(bench.server.requests()).toEqual([]);
  });

  it("logs a failed mining and records it for its agent, and nothing else changes", async () => {
    bench = await miner_bench({ turns: { experience_miner: [{ error: { status: 400 } }] } });
    seed_verified_task(bench.temp);
    seed_debug_record(bench.temp);
    bench.miner.after_step();
    await expect(bench.miner.idle()).resolves.toBeUndefined();
    expect(bench.logs.map((entry) => [entry.level, entry.message])).toEqual([["warn", expect.stringContaining("the experience miner's run ended")]]);
    const [agent] = find_rows(bench.temp.session.connection, "agents", "experience_miner", "agent_type");
    expect(agent?.status).toMatch(/completed|failed/);
    expect(memories(bench)).toEqual([]);
  });
});

describe("promotion by the project's policy", () => {
  it("promotes a rule the policy lets air promote by itself, with its evidence", async () => {
    bench = await miner_bench(ONE_PROPOSAL, {}, (temp) => write_policy(temp, "auto_promote:\n  rule: { min_evidence: 1 }\n"));
    seed_verified_task(bench.temp);
    await bench.miner.session_end();
    const [memory] = memories(bench);
    expect(memory).toMatchObject({ status: "promoted", target_ref: ".air/shared/rules/run-ctest-after-header-changes.md" });
    expect(fs.readFileSync(path.join(bench.temp.project.layout.rules, "run-ctest-after-header-changes.md"), "utf8")).toBe(RULE);
    expect(events_of(bench.temp, "memory.promoted")).toEqual([expect.objectContaining({ candidate_id: memory?.id, promoted_by: "policy" })]);
  });

  it("leaves a candidate the policy's minimum is not met for waiting for the user", async () => {
    bench = await miner_bench(ONE_PROPOSAL, {}, (temp) => write_policy(temp, "auto_promote:\n  rule: { min_evidence: 2 }\n"));
    seed_verified_task(bench.temp);
    await bench.miner.session_end();
    expect(memories(bench).map((memory) => memory.status)).toEqual(["candidate"]);
    expect(events_of(bench.temp, "memory.promoted")).toEqual([]);
  });
});

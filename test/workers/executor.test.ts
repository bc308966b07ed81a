/**
 * The real worker (src/workers/main.ts in its own process) running the executor role through the real
 * bridge and worker-run machine. The model is a script in this file served as the `model.complete` tool;
 * the other tools have real effects in the temp project. Last, a task through the whole runtime: the real
 * tools, and the real adapter against the scripted model server.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import { read_task } from "../../src/actors/runtime/task-graph.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import type { ModelRequest } from "../../src/contracts/provider.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { fixture_path } from "../fixtures/processes.js";
import { find_rows } from "../fixtures/session.js";
import { calls, event_types, payload_of, says, tool_results_of, WorkerHarness, type ModelTurn } from "./harness.js";

let h: WorkerHarness;
beforeEach(() => {
  h = new WorkerHarness();
});
afterEach(() => h.cleanup());

const edits_then_finishes: ModelTurn[] = [
  () => calls("text.upper", { text: "hello" }, "Let me shout first."),
  (request) => {
    const [result] = tool_results_of(request);
    return calls("fs.write", { path: "notes/hello.txt", content: String(result?.content) });
  },
  () => says("Wrote notes/hello.txt."),
];

describe("a real worker run", () => {
  it("runs the executor loop to a completed, verified WorkerResult and records the agent's lifecycle", async () => {
    const report = await h.run({
      task: { verification: { commands: ["test -f notes/hello.txt", "grep -q HELLO notes/hello.txt"], required: true, fallback_allowed: false } },
      script: edits_then_finishes,
    });
    const { output, agent_id, task } = report;

    expect(output).toMatchObject({ status: "completed", exit_code: 0 });
    expect(output.error).toBeUndefined();
    expect(report.states).toEqual([
      '{"working":{"starting":"spawning"}}',
      '{"working":{"starting":"announcing"}}',
      '{"working":{"starting":"handshaking"}}',
      '{"working":{"running":"listening"}}',
      '{"lingering":"waiting"}',
      '"completed"',
    ]);
    expect(fs.readFileSync(path.join(h.root, "notes/hello.txt"), "utf8")).toBe("HELLO");

    const result = output.result!;
    expect(result).toMatchObject({
      task_id: task.id,
      agent_id,
      agent_type: "executor",
      status: "completed",
      changed_files: ["notes/hello.txt"],
      risks: [],
      follow_up_tasks: [],
      result: { commands_run: ["test -f notes/hello.txt", "grep -q HELLO notes/hello.txt"], tests_added: [], notes: "Wrote notes/hello.txt." },
    });
    expect(result.diff_ref).toMatch(/^art_/);
    expect(result.verification.map(({ command, exit_code, passed }) => ({ command, exit_code, passed }))).toEqual([
      { command: "test -f notes/hello.txt", exit_code: 0, passed: true },
      { command: "grep -q HELLO notes/hello.txt", exit_code: 0, passed: true },
    ]);
    expect(result.evidence_refs.map((ref) => ref.kind)).toEqual(["tool_run", "command_run", "command_run"]);
    expect(result.evidence_refs[0]!.ref).toMatch(/^tlr_/);
    expect(result.evidence_refs[1]!.ref).toMatch(/^cmr_/);
    for (const ref of result.evidence_refs) expect(ref.id).toMatch(/^evd_/);
    // The summary is the model's own closing words (seeds 001 D-042), not a template.
    expect(result.summary).toBe("Wrote notes/hello.txt.");

    // Every side effect went through the parent's tool caller, model calls included.
    expect(report.tools.map((entry) => entry.call.tool_name)).toEqual([
      "model.complete",
      "text.upper",
      "model.complete",
      "fs.write",
      "model.complete",
      "shell.run",
      "shell.run",
    ]);
    const requests: ModelRequest[] = report.tools[0]!.model_requests;
    expect(requests).toHaveLength(3);
    expect(requests[0]!.tools?.map((tool) => tool.name)).toEqual(["text.upper", "fs.write"]);
    expect(requests[0]!.purpose).toBe("task_execution");
    expect(String(requests[0]!.messages[0]!.content)).toContain("worker test task");
    expect(tool_results_of(requests[1]!)).toEqual([{ type: "tool_result", tool_use_id: expect.stringMatching(/^toolu_/), content: "HELLO" }]);

    // Durable lifecycle: starting at spawn, running after the handshake, completed with exit code 0.
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.completed"]);
    expect(report.agent_events.map((row) => payload_of(row).status)).toEqual(["starting", "running", undefined]);
    expect(payload_of(report.agent_events[0])).toMatchObject({ agent_type: "executor", task_id: task.id, model_id: "scripted", pid: expect.any(Number) });
    expect(report.agent).toMatchObject({ status: "completed", exit_code: 0, task_id: task.id, agent_type: "executor" });

    // Streamed model text came back as tool.stream chunks and reached the bus as token deltas.
    const streamed = report.ephemeral.filter((event) => event.type === "token.delta").map((event) => (event.payload as { text: string }).text);
    expect(streamed.join("")).toContain("Let me shout first.");
    expect(report.logs.filter((entry) => entry.level === "error" || entry.level === "warn")).toEqual([]);
  });

  it("updates agents.last_heartbeat_at from the worker's heartbeats", async () => {
    const report = await h.run({ script: [() => says("done")], model_delay_ms: 400 });
    expect(report.output.status).toBe("completed");
    const beats = report.ephemeral.filter((event) => event.type === "agent.heartbeat");
    expect(beats.length).toBeGreaterThan(0);
    expect(beats[0]!.payload).toEqual({ agent_id: report.agent_id, task_id: report.task.id });
    const at = report.agent.last_heartbeat_at;
    expect(typeof at).toBe("string");
    expect(Date.parse(String(at))).toBeGreaterThanOrEqual(Date.parse(String(report.agent.started_at)));
    expect(Date.parse(String(at))).toBeLessThanOrEqual(Date.parse(String(report.agent.ended_at)));
  });

  it("throttles heartbeat writes", async () => {
    const report = await h.run({ script: [() => says("done")], model_delay_ms: 600, services: { heartbeat_write_interval_ms: 60_000 } });
    // Several heartbeats arrive, but with a minute between writes only the first one is written.
    expect(report.ephemeral.filter((event) => event.type === "agent.heartbeat").length).toBeGreaterThan(1);
    const at = Date.parse(String(report.agent.last_heartbeat_at));
    expect(at).toBeLessThan(Date.parse(String(report.agent.ended_at)) - 300);
  });
});

describe("the executor's result follows the verification policy (seeds 003 §10.10)", () => {
  const writes: ModelTurn[] = [() => calls("fs.write", { path: "a.txt", content: "a" }), () => says("done")];

  it("a code change whose verification fails is failed", async () => {
    const report = await h.run({ task: { verification: { commands: ["exit 3"], required: true, fallback_allowed: false } }, script: writes });
    expect(report.output.status).toBe("completed");
    expect(report.output.result).toMatchObject({
      status: "failed",
      changed_files: ["a.txt"],
      verification: [{ command: "exit 3", exit_code: 3, passed: false }],
    });
    expect(report.output.result!.risks[0]!.description).toContain("exit 3");
    expect(report.agent.status).toBe("completed");
  });

  it("a verification tool passes when its call succeeds and fails the task when its call fails", async () => {
    const reads = (file: string) => ({
      verification: { tools: [{ tool_name: "file.check", input: { path: file } }], required: true, fallback_allowed: false },
    });
    const passed = await h.run({ task: reads("a.txt"), script: writes });
    expect(passed.output.result).toMatchObject({ status: "completed", verification: [{ command: 'file.check {"path":"a.txt"}', passed: true }] });
    expect(passed.output.result!.evidence_refs).toContainEqual(expect.objectContaining({ kind: "tool_run", claim: 'file.check {"path":"a.txt"} passed' }));

    const failed = await h.run({ task: reads("missing.txt"), script: writes });
    expect(failed.output.result).toMatchObject({ status: "failed", verification: [{ command: 'file.check {"path":"missing.txt"}', passed: false }] });
    expect(failed.output.result!.risks[0]!.description).toContain("missing.txt");
  });

  it("a code change without verification commands is completed with a risk only when the fallback is allowed", async () => {
    const allowed = await h.run({ task: { verification: { required: true, fallback_allowed: true } }, script: writes });
    expect(allowed.output.result).toMatchObject({ status: "completed", verification: [] });
    expect(allowed.output.result!.risks).toEqual([expect.objectContaining({ severity: "medium", description: expect.stringContaining("not verified") })]);

    const refused = await h.run({ task: { verification: { required: true, fallback_allowed: false } }, script: writes });
    expect(refused.output.result).toMatchObject({ status: "failed" });
    expect(refused.output.result!.risks[0]!.description).toContain("not verified");
  });

  it("work that changes no code is completed without verification", async () => {
    const report = await h.run({
      task: { type: "docs", verification: { required: false, fallback_allowed: false } },
      script: [() => says("nothing to change")],
    });
    expect(report.output.result).toMatchObject({ status: "completed", agent_type: "executor", changed_files: [], evidence_refs: [] });
  });

  it("an exhausted turn budget is blocked with a risk", async () => {
    const report = await h.run({ brief: { max_turns: 2 }, script: [() => calls("text.upper", { text: "again" })] });
    expect(report.output.result).toMatchObject({ status: "blocked" });
    expect(report.output.result!.risks).toEqual([expect.objectContaining({ description: expect.stringContaining("turn budget of 2") })]);
    expect(report.tools.filter((entry) => entry.call.tool_name === "model.complete")).toHaveLength(2);
  });

  it("a tool the task does not offer, or a failing tool, comes back to the model as an error result", async () => {
    let seen: unknown[] = [];
    const report = await h.run({
      script: [
        () => ({
          model_id: "scripted",
          content: [
            { type: "tool_use", id: "toolu_1", name: "net.fetch", input: { url: "https://example.com" } },
            { type: "tool_use", id: "toolu_2", name: "text.upper", input: "not an object" },
          ],
          stop_reason: "tool_use",
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
        (request) => {
          seen = tool_results_of(request);
          return says("gave up on those");
        },
      ],
    });
    expect(seen).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: expect.stringContaining('no tool named "net.fetch"'), is_error: true },
      { type: "tool_result", tool_use_id: "toolu_2", content: expect.stringContaining("JSON object"), is_error: true },
    ]);
    // Neither reached the parent: the worker refused them itself.
    expect(report.tools.map((entry) => entry.call.tool_name)).toEqual(["model.complete", "model.complete"]);
    expect(report.output.result!.status).toBe("completed");
  });

  it("a model failure ends the run with a failed result, not a crash", async () => {
    const report = await h.run({
      services: {
        call_tool: async () => {
          throw new Error("provider unreachable");
        },
      },
    });
    expect(report.output.status).toBe("completed");
    expect(report.output.result).toMatchObject({ status: "failed" });
    expect(report.output.result!.summary).toContain("provider unreachable");
  });
});

describe("the executor's summary (seeds 001 D-042: a few sentences for people)", () => {
  it("summarizes with the run's own account when the model closed without words", async () => {
    const silent = { model_id: "scripted", content: [], stop_reason: "end_turn" as const, usage: { input_tokens: 1, output_tokens: 1 } };
    const report = await h.run({ task: { type: "docs", verification: { required: false, fallback_allowed: false } }, script: [() => silent] });
    expect(report.output.result).toMatchObject({ status: "completed" });
    expect(report.output.result!.summary).toBe(
      "The model finished the task after 1 turn(s). No files were changed. No verification command ran. Status: completed.",
    );
  });

  it("keeps the model's words in a failed run's summary, followed by what refuted them", async () => {
    const claims: ModelTurn[] = [() => calls("fs.write", { path: "a.txt", content: "a" }), () => says("Done: a.txt is written and verified.")];
    const report = await h.run({ task: { verification: { commands: ["test -f missing.txt"], required: true, fallback_allowed: false } }, script: claims });
    expect(report.output.result).toMatchObject({ status: "failed" });
    const summary = report.output.result!.summary;
    expect(summary.startsWith("Done: a.txt is written and verified.\n\n")).toBe(true);
    expect(summary).toContain("Verification: 0 of 1 command(s) passed. Status: failed. Risks: Verification failed: test -f missing.txt.");
  });

  it("cuts a long closing text at a sentence, so the summary stays a few sentences", async () => {
    const sentence = "This sentence says what the run did in some detail. ";
    const report = await h.run({
      task: { type: "docs", verification: { required: false, fallback_allowed: false } },
      script: [() => says(sentence.repeat(60))],
    });
    const summary = report.output.result!.summary;
    expect(summary.length).toBeLessThanOrEqual(1200);
    expect(summary).toMatch(/detail\. …$/);
  });
});

describe("an fs.patch task through the runtime (real tools, scripted model server)", () => {
  const KEY = "sk-executor-patch-test";

  it("reports both files one fs.patch changed, and a diff of that patch, in the WorkerResult", async () => {
    fs.mkdirSync(path.join(h.root, "src"));
    fs.writeFileSync(path.join(h.root, "src/greet.txt"), "hello\n");
    fs.writeFileSync(path.join(h.root, "src/count.txt"), "one\ntwo\n");
    const server = await start_scripted_server({ script: fixture_path("scripts/patch-two-files.yaml"), api_key: KEY });
    const providers = ProviderManager.load({
      home: h.temp.root,
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      retry: { sleep: async () => undefined },
    });
    const runtime = await start_runtime(h.session, {
      provider: providers.for_session(),
      permissions: permissions_for_project(h.temp.project.layout, { mode: "accept-edits" }),
      task_defaults: DEFAULT_TASK_DEFAULTS,
    });
    try {
      const outcome = await runtime.submit("finish the greeting and the count");
      expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
      expect(fs.readFileSync(path.join(h.root, "src/greet.txt"), "utf8")).toBe("hello, world\n");
      expect(fs.readFileSync(path.join(h.root, "src/count.txt"), "utf8")).toBe("one\ntwo\nthree\n");

      const task_id = outcome.kind === "executed" ? (outcome.task_ids[0] ?? "") : "";
      const result = v.parse(WorkerResult, JSON.parse(read_task(h.session.connection, task_id).worker_result_json ?? "null"));
      expect(result).toMatchObject({ status: "completed", changed_files: ["src/greet.txt", "src/count.txt"] });
      const [patch_run] = find_rows(h.session.connection, "tool_runs", "fs.patch", "tool_name");
      const diffs = find_rows(h.session.connection, "artifacts", "diff", "type");
      expect(diffs.map((diff) => [diff.tool_run_id, diff.entity_id])).toEqual([
        [patch_run!.id, "src/greet.txt"],
        [patch_run!.id, "src/count.txt"],
      ]);
      expect(result.diff_ref).toBe(diffs.at(-1)!.id);
      expect(result.summary).toBe("Patched both files in one fs.patch.");
      expect(result.evidence_refs.map((ref) => [ref.kind, ref.ref])).toEqual([
        ["tool_run", patch_run!.id],
        ["command_run", expect.stringMatching(/^cmr_/)],
      ]);
      expect(result.evidence_refs[0]!.claim).toBe("fs.patch changed src/greet.txt, src/count.txt");
      expect(result.verification).toEqual([expect.objectContaining({ exit_code: 0, passed: true, artifact_id: expect.stringMatching(/^art_/) })]);
    } finally {
      await runtime.stop();
      await server.close();
    }
  });
});

/**
 * The Debugger role in a real worker process: the executor's loop with the same tools, ended by its structured
 * diagnosis (`submit_diagnosis`), then the task's verification; `blocked` with its BlockerReport when it cannot fix.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { calls, says, WorkerHarness, type ModelTurn } from "./harness.js";

let h: WorkerHarness;
beforeEach(() => {
  h = new WorkerHarness();
});
afterEach(() => h.cleanup());

const VERIFIED = { verification: { commands: ["test -f a.txt"], required: true, fallback_allowed: false } };
const DIAGNOSIS = { root_cause: "a.txt was never written", failure_signature: "sig/v1:missing-a", fix_applied: true };

describe("the Debugger role", () => {
  it("fixes, submits its diagnosis, and is verified: a completed debugger WorkerResult carrying the diagnosis", async () => {
    const script: ModelTurn[] = [() => calls("fs.write", { path: "a.txt", content: "a" }), () => calls("submit_diagnosis", DIAGNOSIS)];
    const report = await h.run({ agent_type: "debugger", task: VERIFIED, script });
    expect(report.agent.agent_type).toBe("debugger");
    expect(report.output.result).toMatchObject({
      agent_type: "debugger",
      status: "completed",
      changed_files: ["a.txt"],
      verification: [{ command: "test -f a.txt", passed: true }],
      result: DIAGNOSIS,
    });
    // The diagnosis ends the loop: no model turn after it.
    expect(report.tools.filter((entry) => entry.call.tool_name === "model.complete")).toHaveLength(2);
  });

  it("answers a diagnosis that does not parse with an error and lets the model try again", async () => {
    const script: ModelTurn[] = [
      () => calls("fs.write", { path: "a.txt", content: "a" }),
      () => calls("submit_diagnosis", { root_cause: "?" }),
      () => calls("submit_diagnosis", DIAGNOSIS),
    ];
    const report = await h.run({ agent_type: "debugger", task: VERIFIED, script });
    expect(report.output.result).toMatchObject({ status: "completed", result: DIAGNOSIS });
  });

  it("returns blocked with its BlockerReport when it cannot fix the failure, without verifying", async () => {
    const blocker = { category: "out_of_scope", summary: "The fix is in a vendored header.", needed: "Permission to edit third_party/", evidence_refs: [] };
    const script: ModelTurn[] = [() => calls("submit_diagnosis", { ...DIAGNOSIS, fix_applied: false, blocker })];
    const report = await h.run({ agent_type: "debugger", task: VERIFIED, script });
    expect(report.output.result).toMatchObject({ agent_type: "debugger", status: "blocked", verification: [], result: { fix_applied: false, blocker } });
    expect(report.output.result?.summary).toContain("vendored header");
  });

  it("without a diagnosis is still a debugger result, its signature undiagnosed", async () => {
    const report = await h.run({ agent_type: "debugger", task: VERIFIED, script: [() => says("I give up.")] });
    expect(report.output.result).toMatchObject({ agent_type: "debugger", status: "failed", result: { failure_signature: "undiagnosed", fix_applied: false } });
  });
});

import fs from "node:fs";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createActor, toPromise } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { default_worker_entry, worker_environment } from "../../src/actors/worker-bridge/index.js";
import { is_credential_variable } from "../../src/permissions/credentials.js";
import { verdict_of } from "../../src/actors/worker-run.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { new_id, type AgentId } from "../../src/contracts/ids.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { worker_run_machine, type WorkerRunEvent, type WorkerRunOutput } from "../../src/machines/worker-run.js";
import { minimal_task_spec } from "../fixtures/events.js";

describe("worker-run machine", () => {
  it("without a provided bridge it fails loudly instead of waiting forever", async () => {
    const task = v.parse(TaskSpec, minimal_task_spec());
    const agent_id = new_id("agent") as AgentId;
    const actor = createActor(worker_run_machine, {
      input: { agent_id, task, context: { project_root: "/p", model_id: "m", max_turns: 1, tools: [] }, services: undefined },
    }).start();
    const output = await toPromise(actor);
    expect(output).toMatchObject({ status: "failed", agent_id, task_id: task.id, result: undefined });
    expect(output.error?.message).toContain('"bridge" was not provided');
  });

  it("names its states as the brief's lifecycle: spawning/handshaking/running/cancelling inside active, four endings", () => {
    expect(Object.keys(worker_run_machine.definition.states)).toEqual(["active", "done", "failed", "lost", "cancelled"]);
    expect(Object.keys(worker_run_machine.definition.states.active!.states)).toEqual(["spawning", "handshaking", "running", "cancelling"]);
  });
});

describe("worker-run machine, model-based (shortest paths over every bridge report and CANCEL)", () => {
  const error = make_air_error({ kind: "agent_error", message: "boom" });
  const result = { status: "completed" } as never;
  const events: WorkerRunEvent[] = [
    { type: "WORKER.SPAWNED", pid: 42 },
    { type: "WORKER.READY", worker_version: "1" },
    { type: "WORKER.CHECKPOINT", data: { turn: 1 } },
    { type: "WORKER.RESULT", result },
    { type: "WORKER.COMPLETED", result, exit_code: 0 },
    { type: "WORKER.FAILED", error, exit_code: 1 },
    { type: "WORKER.LOST", error, exit_code: null },
    { type: "WORKER.CANCELLED", error, reason: "stop", exit_code: 4 },
    { type: "CANCEL", reason: "stop" },
  ];
  const paths = getShortestPaths(worker_run_machine, {
    events,
    input: { agent_id: new_id("agent") as AgentId, task: v.parse(TaskSpec, minimal_task_spec()), context: { project_root: "/p", model_id: "m", max_turns: 1, tools: [] }, services: undefined },
    serializeState: (state) => JSON.stringify(state.value),
  });
  const by_state = new Map(paths.map((path) => [JSON.stringify(path.state.value), path]));
  const steps = (state: string) => by_state.get(state)?.steps.map((step) => step.event.type).slice(1);

  it("reaches every state", () => {
    expect([...by_state.keys()].sort()).toEqual(
      [
        '{"active":"spawning"}',
        '{"active":"handshaking"}',
        '{"active":"running"}',
        '{"active":"cancelling"}',
        '"done"',
        '"failed"',
        '"lost"',
        '"cancelled"',
      ].sort(),
    );
  });

  it("moves forward only on the handshake, and ends on the bridge's report from any active state", () => {
    expect(steps('{"active":"running"}')).toEqual(["WORKER.SPAWNED", "WORKER.READY"]);
    expect(steps('"done"')).toEqual(["WORKER.COMPLETED"]);
    expect(steps('"lost"')).toEqual(["WORKER.LOST"]);
    expect(steps('{"active":"cancelling"}')).toEqual(["CANCEL"]);
    // Cancelling ends only when the bridge says how the worker ended.
    expect(steps('"cancelled"')).toEqual(["WORKER.CANCELLED"]);
  });

  it("keeps the result and the ending in its output", () => {
    const done = by_state.get('"done"')!.state;
    expect(done.output).toMatchObject({ status: "done", result, error: undefined, exit_code: 0 });
    const failed = by_state.get('"failed"')!.state;
    expect(failed.output).toMatchObject({ status: "failed", error, exit_code: 1 });
  });
});

describe("verdict_of", () => {
  const base = { agent_id: new_id("agent") as AgentId, task_id: new_id("task") as never, exit_code: 0 };
  const error = make_air_error({ kind: "agent_error", message: "worker exited with code 1" });

  it("is the result of a done run and the error of a failed or lost one", () => {
    const result = { status: "completed" } as never;
    expect(verdict_of({ ...base, status: "done", result, error: undefined })).toEqual({ kind: "result", result });
    expect(verdict_of({ ...base, status: "failed", result: undefined, error })).toEqual({ kind: "failure", error });
    expect(verdict_of({ ...base, status: "lost", result: undefined, error })).toEqual({ kind: "failure", error });
  });

  it("keeps the cancelled result of a cancelled run", () => {
    const result = { status: "cancelled" } as never;
    expect(verdict_of({ ...base, status: "cancelled", result, error })).toEqual({ kind: "result", result });
  });

  it("reports a run with neither as a system error", () => {
    const output: WorkerRunOutput = { ...base, status: "failed", result: undefined, error: undefined };
    expect(verdict_of(output)).toMatchObject({ kind: "failure", error: { kind: "system_error" } });
  });
});

describe("worker process start", () => {
  it("removes credentials from the worker's environment and keeps the rest", () => {
    const env = worker_environment({
      PATH: "/usr/bin",
      HOME: "/home/u",
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_BASE_URL: "b",
      OPENAI_API_KEY: "c",
      OPENROUTER_API_KEY: "d",
      GITHUB_TOKEN: "e",
      NPM_TOKEN: "f",
      SERVICE_APIKEY: "g",
      AWS_SECRET_ACCESS_KEY: "h",
      DB_PASSWORD: "i",
      CLIENT_SECRET: "j",
      TOKENIZER_PATH: "/models",
      AIR_HOME: "/air",
    });
    expect(Object.keys(env).sort()).toEqual(["AIR_HOME", "HOME", "PATH", "TOKENIZER_PATH"]);
    expect(is_credential_variable("anthropic_api_key")).toBe(true);
    expect(is_credential_variable("NODE_OPTIONS")).toBe(false);
  });

  it("finds the worker entry relative to its own module: main.ts through tsx from the sources", () => {
    const entry = default_worker_entry();
    expect(entry.command).toBe(process.execPath);
    expect(entry.args[0]).toBe("--import");
    expect(fs.existsSync(fileURLToPath(entry.args[1]!))).toBe(true);
    expect(entry.args[2]).toMatch(/src\/workers\/main\.ts$/);
    expect(fs.existsSync(entry.args[2]!)).toBe(true);
  });
});

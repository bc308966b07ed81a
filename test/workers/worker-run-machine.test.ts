/**
 * The worker-run machine: its shape against the agent lifecycle, every state it can reach (model-based), and
 * the machine with its real I/O driving real worker processes into a real session DB — the run's delays on a
 * `SimulatedClock`, so a test decides when a grace period or a timeout has passed while the process runs.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createActor, SimulatedClock, toPromise, waitFor } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { default_worker_entry, worker_environment } from "../../src/actors/worker-bridge/index.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { PROTOCOL_VERSION, WORKER_EXIT } from "../../src/contracts/ipc.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import { agent_machine } from "../../src/machines/agent.js";
import { worker_run_machine, type WorkerRunEvent, type WorkerRunInput } from "../../src/machines/worker-run.js";
import { is_credential_variable } from "../../src/permissions/credentials.js";
import { minimal_task_spec, worker_result } from "../fixtures/events.js";
import { event_types, fixture_entry, payload_of, says, WorkerHarness, type WorkerRunActor } from "./harness.js";

function run_input(): WorkerRunInput {
  return { agent_id: new_id("agent"), task: v.parse(TaskSpec, minimal_task_spec()), brief: { project_root: "/p", model_id: "m", max_turns: 1, tools: [] } };
}

describe("worker_run_machine", () => {
  it("fails at once, saying why, when its worker process actor is not provided", async () => {
    const output = await toPromise(createActor(worker_run_machine, { input: run_input() }).start());
    expect(output).toMatchObject({ status: "failed", error: { kind: "system_error" } });
    expect(output.result).toBeUndefined();
    expect(output.error?.message).toContain('"worker_process" was not provided');
  });

  it("ends in the agent's final statuses, and starts in its start statuses", () => {
    const finals = (names: string[], states: Record<string, { type?: string }>) => names.filter((name) => states[name]?.type === "final");
    const run_states = worker_run_machine.definition.states;
    const agent_states = agent_machine.definition.states;
    expect(Object.keys(run_states)).toEqual([
      "working",
      "silencing",
      "cancelling",
      "lingering",
      "leaving",
      "stopping",
      "completed",
      "failed",
      "lost",
      "cancelled",
    ]);
    expect(finals(Object.keys(run_states), run_states)).toEqual(finals(Object.keys(agent_states), agent_states));
    expect(Object.keys(run_states.working!.states)).toEqual(["starting", "running"]);
    expect(Object.keys(agent_states).slice(0, 2)).toEqual(["starting", "running"]);
    expect(Object.keys(run_states.working!.states.starting!.states)).toEqual(["spawning", "announcing", "handshaking"]);
  });
});

describe("worker_run_machine, model-based (shortest paths over the process's reports, the owner's cancel and the delays)", () => {
  const input = run_input();
  const result = v.parse(WorkerResult, worker_result(input.task.id, input.agent_id));
  const exited = (code: number | null): WorkerRunEvent => ({
    type: "worker.exited",
    exit: { code, signal: code === null ? "SIGKILL" : null, stderr: "", last_heartbeat_at: undefined },
  });
  // XState's own events (an invoked actor's end, a delay passing) are not in the machine's event type.
  const internal = (type: string, fields: Record<string, unknown> = {}) => ({ type, ...fields }) as never;
  const delay_passed = (delay: string, state: string) => internal(`xstate.after.${delay}.worker-run.${state}`);
  const events: WorkerRunEvent[] = [
    { type: "worker.spawned", pid: 42 },
    internal("xstate.done.actor.announce"),
    internal("xstate.error.actor.announce", { error: new Error("refused") }),
    { type: "worker.ready", protocol_version: PROTOCOL_VERSION, worker_version: "1" },
    { type: "worker.result", result },
    { type: "worker.protocol_error", error: make_air_error({ kind: "agent_error", message: "garbage" }) },
    { type: "worker.gave_up", message: "no more" },
    { type: "run.cancel", reason: "stop" },
    exited(0),
    exited(1),
    exited(null),
    { type: "worker.alive" },
    delay_passed("hard_timeout", "working"),
    delay_passed("heartbeat_timeout", "working.running.listening"),
    delay_passed("heartbeat_timeout", "working.running.pinged"),
    delay_passed("kill_grace", "silencing.terminating"),
    delay_passed("handshake_timeout", "working.starting.handshaking"),
    delay_passed("cancel_grace", "cancelling.asking"),
    delay_passed("kill_grace", "cancelling.terminating"),
    delay_passed("kill_grace", "lingering.waiting"),
    delay_passed("kill_grace", "lingering.terminating"),
    delay_passed("kill_grace", "leaving.waiting"),
    delay_passed("kill_grace", "leaving.terminating"),
    delay_passed("kill_grace", "stopping.terminating"),
  ];
  // A final state's settlement is part of what it is: a run completed at exit 0 is not one completed at a signal.
  const paths = getShortestPaths(worker_run_machine, {
    events,
    input,
    serializeState: (state) => JSON.stringify([state.value, state.context.settlement?.outcome.exit_code, state.context.silence !== undefined]),
  });
  const by_state = new Map<string, (typeof paths)[number]>();
  for (const path of paths) {
    const key = JSON.stringify(path.state.value);
    const known = by_state.get(key);
    if (known === undefined || path.steps.length < known.steps.length) by_state.set(key, path);
  }
  const steps = (state: string) =>
    by_state
      .get(state)
      ?.steps.map((step) => step.event.type)
      .slice(1);
  const ending = (state: string, exit_code: number | null, silenced = false) =>
    paths
      .filter(
        (path) =>
          JSON.stringify(path.state.value) === state && path.state.output?.exit_code === exit_code && (path.state.context.silence !== undefined) === silenced,
      )
      .sort((a, b) => a.steps.length - b.steps.length)[0]?.state;

  it("reaches every state", () => {
    expect([...by_state.keys()].sort()).toEqual(
      [
        '{"working":{"starting":"spawning"}}',
        '{"working":{"starting":"announcing"}}',
        '{"working":{"starting":"handshaking"}}',
        '{"working":{"running":"listening"}}',
        '{"working":{"running":"probing"}}',
        '{"working":{"running":"pinged"}}',
        '{"silencing":"terminating"}',
        '{"silencing":"killing"}',
        '{"cancelling":"asking"}',
        '{"cancelling":"terminating"}',
        '{"cancelling":"killing"}',
        '{"lingering":"waiting"}',
        '{"lingering":"terminating"}',
        '{"lingering":"killing"}',
        '{"leaving":"waiting"}',
        '{"leaving":"terminating"}',
        '{"leaving":"killing"}',
        '{"stopping":"terminating"}',
        '{"stopping":"killing"}',
        '"completed"',
        '"failed"',
        '"lost"',
        '"cancelled"',
      ].sort(),
    );
  });

  it("runs only after the start is recorded and the handshake is done, and completes only from a result", () => {
    expect(steps('{"working":{"running":"listening"}}')).toEqual(["worker.spawned", "xstate.done.actor.announce", "worker.ready"]);
    expect(steps('"completed"')).toEqual(["worker.spawned", "xstate.done.actor.announce", "worker.ready", "worker.result", "worker.exited"]);
    expect(steps('{"cancelling":"killing"}')).toEqual([
      "run.cancel",
      "xstate.after.cancel_grace.worker-run.cancelling.asking",
      "xstate.after.kill_grace.worker-run.cancelling.terminating",
    ]);
    expect(steps('"cancelled"')).toEqual(["run.cancel", "worker.exited"]);
  });

  it("settles the outcome and the durable ending on the same transition", () => {
    const completed = ending('"completed"', 0);
    expect(completed?.output).toEqual({ status: "completed", result, exit_code: 0 });
    expect(completed?.context.settlement?.record).toEqual({
      type: "agent.completed",
      payload: { agent_id: input.agent_id, exit_code: 0, worker_result: result },
    });
    // Ended by the parent after its result: still completed, with no exit code to record.
    expect(ending('"completed"', null)?.context.settlement?.record).toEqual({
      type: "agent.completed",
      payload: { agent_id: input.agent_id, worker_result: result },
    });
    const failed = ending('"failed"', 1);
    expect(failed?.output).toMatchObject({ status: "failed", error: { message: "worker exited with code 1 (uncaught_exception)" }, exit_code: 1 });
    expect(failed?.context.settlement?.record).toMatchObject({ type: "agent.failed", payload: { agent_id: input.agent_id, exit_code: 1 } });
    // Silent past the heartbeat timeout and a ping: killed, and lost for that reason.
    expect(ending('"lost"', null, true)?.context.settlement?.record).toMatchObject({
      type: "agent.lost",
      payload: { reason: expect.stringContaining("no heartbeat for 15000 ms") },
    });
    expect(ending('"lost"', 0)?.context.settlement?.record).toEqual({
      type: "agent.lost",
      payload: { agent_id: input.agent_id, reason: "worker exited with code 0 without a result" },
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// With a real worker process
// ---------------------------------------------------------------------------------------------------

let h: WorkerHarness;
beforeEach(() => {
  h = new WorkerHarness();
});
afterEach(() => h.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function until_state(actor: WorkerRunActor, value: Parameters<ReturnType<WorkerRunActor["getSnapshot"]>["matches"]>[0]) {
  return waitFor(actor, (snapshot) => snapshot.matches(value), { timeout: 15_000 });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (const started = Date.now(); !check(); await sleep(20)) {
    if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${what}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pid_of(actor: WorkerRunActor): number {
  const { pid } = actor.getSnapshot().context;
  if (pid === undefined) throw new Error("the run has no worker pid");
  return pid;
}

const constraints = (soft_timeout_ms: number, hard_timeout_ms: number) => ({
  constraints: { max_turns: 4, soft_timeout_ms, hard_timeout_ms, retry_budget: 0, model_policy: "agent_select" as const },
});

describe("worker_run_logic with a real worker", () => {
  it("handshake: records the agent starting at spawn and running at worker.ready, then completes at exit 0", async () => {
    const run = h.start({ script: [() => says("nothing to do")] });
    const report = await run.report;
    expect(run.actor.getSnapshot().value).toBe("completed");
    expect(report.states.slice(0, 4)).toEqual([
      '{"working":{"starting":"spawning"}}',
      '{"working":{"starting":"announcing"}}',
      '{"working":{"starting":"handshaking"}}',
      '{"working":{"running":"listening"}}',
    ]);
    expect(report.output).toMatchObject({ status: "completed", exit_code: 0, result: { status: "completed", agent_id: report.agent_id } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.completed"]);
    const pid = run.actor.getSnapshot().context.pid;
    expect(report.agent_events.map(payload_of)).toEqual([
      expect.objectContaining({ status: "starting", pid, model_id: "scripted" }),
      expect.objectContaining({ status: "running", pid }),
      { agent_id: report.agent_id, exit_code: 0, worker_result: report.output.result },
    ]);
    expect(report.agent).toMatchObject({ status: "completed", exit_code: 0, pid });
  });

  it("handshake at another protocol version: the worker is stopped at once and the agent fails without ever running", async () => {
    const report = await h.run({ services: { entry: fixture_entry("wrong-version") } });
    expect(report.states.slice(-3)).toEqual(['{"working":{"starting":"handshaking"}}', '{"stopping":"terminating"}', '"failed"']);
    expect(report.output).toMatchObject({
      status: "failed",
      exit_code: null,
      error: { metadata: { protocol_error: "version_mismatch", received: 2, expected: 1 } },
    });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.failed"]);
    expect(report.agent.status).toBe("failed");
  });

  it("hard timeout: nothing happens until the run's clock passes it, then SIGTERM ends the worker and the agent fails with exit code 5", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ task: constraints(100, 200), services: { entry: fixture_entry("hang") }, clock });
    await until_state(run.actor, { working: "running" });
    // Real time passes; the run's clock does not.
    await sleep(400);
    expect(run.actor.getSnapshot().value).toEqual({ working: { running: "listening" } });
    clock.increment(200);
    const report = await run.report;
    expect(report.states.slice(-3)).toEqual(['{"working":{"running":"listening"}}', '{"stopping":"terminating"}', '"failed"']);
    expect(report.output).toMatchObject({ status: "failed", exit_code: null, error: { metadata: { timeout: true, hard_timeout_ms: 200 } } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.failed"]);
    expect(payload_of(report.agent_events.at(-1))).toMatchObject({ exit_code: WORKER_EXIT.hard_timeout, error: { metadata: { timeout: true } } });
    expect(report.agent).toMatchObject({ status: "failed", exit_code: WORKER_EXIT.hard_timeout });
    expect(report.logs).toContainEqual(
      expect.objectContaining({ source: "bridge", level: "info", message: expect.stringContaining("soft timeout of 100 ms passed") }),
    );
  });

  it("cancel: the cancel control, SIGTERM after the cancel grace, SIGKILL after the kill grace, for a worker that ignores both", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ services: { entry: fixture_entry("stubborn") }, delays: { cancel_grace_ms: 1_000, kill_grace_ms: 1_000 }, clock });
    await until_state(run.actor, { working: "running" });
    const pid = pid_of(run.actor);
    run.actor.send({ type: "run.cancel", reason: "stop now" });
    expect(run.actor.getSnapshot().value).toEqual({ cancelling: "asking" });
    await sleep(300);
    expect(alive(pid)).toBe(true);
    clock.increment(1_000);
    expect(run.actor.getSnapshot().value).toEqual({ cancelling: "terminating" });
    await until("the worker to report the SIGTERM it ignores", () => run.logs.some((entry) => entry.message === "stubborn worker ignores SIGTERM"));
    expect(alive(pid)).toBe(true);
    clock.increment(1_000);
    const report = await run.report;
    expect(report.states.slice(-5)).toEqual([
      '{"working":{"running":"listening"}}',
      '{"cancelling":"asking"}',
      '{"cancelling":"terminating"}',
      '{"cancelling":"killing"}',
      '"cancelled"',
    ]);
    expect(report.output).toMatchObject({
      status: "cancelled",
      exit_code: null,
      error: { message: "worker cancelled: stop now", metadata: { cancelled: true } },
    });
    expect(report.output.result).toBeUndefined();
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.cancelled"]);
    expect(payload_of(report.agent_events.at(-1))).toEqual({ agent_id: report.agent_id, reason: "stop now" });
    expect(report.agent.status).toBe("cancelled");
    expect(alive(pid)).toBe(false);
  });

  it("crash: an uncaught exception (exit 1) fails the agent with the exit code and the worker's stderr", async () => {
    const report = await h.run({ services: { entry: fixture_entry("crash") } });
    expect(report.states.slice(-2)).toEqual(['{"working":{"running":"listening"}}', '"failed"']);
    expect(report.output).toMatchObject({
      status: "failed",
      exit_code: WORKER_EXIT.uncaught_exception,
      error: { kind: "agent_error", message: "worker exited with code 1 (uncaught_exception)", retryability: "retryable" },
    });
    expect(report.output.error?.detail).toContain("the fixture crashed");
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.failed"]);
    expect(payload_of(report.agent_events.at(-1))).toMatchObject({ exit_code: WORKER_EXIT.uncaught_exception });
    expect(report.agent).toMatchObject({ status: "failed", exit_code: WORKER_EXIT.uncaught_exception });
  });

  it("garbage on stdout: the worker is stopped at once and the agent fails with the protocol error", async () => {
    const report = await h.run({ services: { entry: fixture_entry("garbage") } });
    expect(report.states.slice(-3)).toEqual(['{"working":{"running":"listening"}}', '{"stopping":"terminating"}', '"failed"']);
    expect(report.output).toMatchObject({ status: "failed", exit_code: null, error: { metadata: { protocol_error: "malformed_json" } } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.failed"]);
    const payload = payload_of(report.agent_events.at(-1));
    expect(payload.error).toMatchObject({ metadata: { protocol_error: "malformed_json" } });
    expect(payload).not.toHaveProperty("exit_code");
  });

  it("a result, then lingering: the worker is ended one grace period later and the agent still completes", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ services: { entry: fixture_entry("linger") }, clock });
    await until_state(run.actor, { lingering: "waiting" });
    await sleep(300);
    expect(run.actor.getSnapshot().value).toEqual({ lingering: "waiting" });
    clock.increment(500);
    const report = await run.report;
    expect(report.states.slice(-3)).toEqual(['{"lingering":"waiting"}', '{"lingering":"terminating"}', '"completed"']);
    expect(report.output).toMatchObject({ status: "completed", exit_code: null, result: { summary: "Done, but in no hurry to leave." } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.completed"]);
    expect(payload_of(report.agent_events.at(-1))).toEqual({ agent_id: report.agent_id, worker_result: report.output.result });
  });

  it("a second result is a protocol error: the agent fails, and the first result stays with the outcome", async () => {
    const report = await h.run({ services: { entry: fixture_entry("two-results") } });
    expect(report.states.slice(-4)).toEqual(['{"working":{"running":"listening"}}', '{"lingering":"waiting"}', '{"stopping":"terminating"}', '"failed"']);
    expect(report.output).toMatchObject({
      status: "failed",
      error: { message: expect.stringContaining("a second worker.result") },
      result: { summary: "Done." },
    });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.failed"]);
  });

  it("stopped by its owner: the process is ended and no ending is recorded (recovery settles the row)", async () => {
    const run = h.start({ services: { entry: fixture_entry("hang") } });
    await until_state(run.actor, { working: "running" });
    const pid = pid_of(run.actor);
    run.actor.stop();
    expect((await run.report).output).toBeUndefined();
    await until("the worker to be gone", () => !alive(pid));
    const { agent, agent_events } = h.agent_rows(run.agent_id);
    expect(event_types(agent_events)).toEqual(["agent.started", "agent.started"]);
    expect(agent.status).toBe("running");
  });

  it("a start the session refuses to record: the worker is ended before its handshake, and nothing else is recorded", async () => {
    const agent_id = new_id("agent");
    const origin = h.session.origin;
    h.session.ingestor.ingest(make_event("agent.started", { agent_id, agent_type: "executor", status: "starting" }, origin));
    h.session.ingestor.ingest(make_event("agent.failed", { agent_id, error: make_air_error({ kind: "agent_error", message: "an earlier life" }) }, origin));
    const run = h.start({ agent_id, services: { entry: fixture_entry("hang") } });
    const report = await run.report;
    expect(report.states).toEqual(['{"working":{"starting":"spawning"}}', '{"working":{"starting":"announcing"}}', '"failed"']);
    expect(report.output).toMatchObject({ status: "failed", error: { kind: "system_error", message: `agent ${agent_id} could not be recorded as started` } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.failed"]);
    await until("the worker to be gone", () => !alive(pid_of(run.actor)));
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

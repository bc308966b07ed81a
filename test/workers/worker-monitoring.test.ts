/**
 * The liveness watch of the worker-run machine with real worker processes: silence past the heartbeat timeout
 * gets the process probed; a process that is gone is lost at once, one that is alive is pinged and, silent
 * again, killed and lost; past its hard timeout a worker's whole process group is killed. The run's delays are
 * on a `SimulatedClock`, so the test says when a timeout has passed.
 */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock, waitFor } from "xstate";
import { event_types, fixture_entry, payload_of, WorkerHarness, type WorkerRunActor } from "./harness.js";

let h: WorkerHarness;
beforeEach(() => {
  h = new WorkerHarness();
});
afterEach(() => h.cleanup());

const HEARTBEAT_TIMEOUT_MS = 1_000;

function until_state(actor: WorkerRunActor, value: Parameters<ReturnType<WorkerRunActor["getSnapshot"]>["matches"]>[0]) {
  return waitFor(actor, (snapshot) => snapshot.matches(value), { timeout: 15_000 });
}

/** Whether any process is left in the group `pgid` leads. */
function group_alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${what}`);
  }
}

function pid_of(actor: WorkerRunActor): number {
  const { pid } = actor.getSnapshot().context;
  if (pid === undefined) throw new Error("the run has no worker pid");
  return pid;
}

describe("a worker that stops heartbeating", () => {
  it("is probed after its heartbeat timeout, pinged while alive, then killed and recorded agent.lost", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ services: { entry: fixture_entry("silent") }, delays: { heartbeat_timeout_ms: HEARTBEAT_TIMEOUT_MS }, clock });
    await until_state(run.actor, { working: { running: "listening" } });
    const pid = pid_of(run.actor);
    clock.increment(HEARTBEAT_TIMEOUT_MS - 1);
    expect(run.actor.getSnapshot().value).toEqual({ working: { running: "listening" } });
    clock.increment(1);
    // The probe finds the process alive: it is pinged and given as long again.
    await until_state(run.actor, { working: { running: "pinged" } });
    clock.increment(HEARTBEAT_TIMEOUT_MS);
    const report = await run.report;
    expect(report.states.slice(-4)).toEqual(['{"working":{"running":"probing"}}', '{"working":{"running":"pinged"}}', '{"silencing":"terminating"}', '"lost"']);
    expect(report.output).toMatchObject({ status: "lost", error: { metadata: { lost: true } } });
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.lost"]);
    expect(payload_of(report.agent_events.at(-1))).toMatchObject({ reason: expect.stringContaining(`no heartbeat for ${HEARTBEAT_TIMEOUT_MS} ms`) });
    expect(report.agent).toMatchObject({ status: "lost" });
    await until("its group to be gone", () => !group_alive(pid));
  });

  it("found gone by the probe while its pipes are held open, is lost at once and its group is ended", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ services: { entry: fixture_entry("vanish") }, delays: { heartbeat_timeout_ms: HEARTBEAT_TIMEOUT_MS }, clock });
    await until_state(run.actor, { working: { running: "listening" } });
    const pid = pid_of(run.actor);
    // The worker has exited, its child still holds stdout: no end is reported until the probe looks.
    await until("the worker to exit", () => !process_running(pid));
    expect(run.actor.getSnapshot().value).toEqual({ working: { running: "listening" } });
    clock.increment(HEARTBEAT_TIMEOUT_MS);
    const report = await run.report;
    expect(report.states.slice(-2)).toEqual(['{"working":{"running":"probing"}}', '"lost"']);
    expect(payload_of(report.agent_events.at(-1))).toMatchObject({
      reason: "worker stopped heartbeating and its process is gone, without a result",
      last_heartbeat_at: expect.any(String),
    });
    expect(report.agent).toMatchObject({ status: "lost" });
    await until("its group to be gone", () => !group_alive(pid));
  });

  it("that keeps heartbeating is never probed", async () => {
    const clock = new SimulatedClock();
    const run = h.start({ delays: { heartbeat_timeout_ms: 100_000 }, clock });
    const report = await run.report;
    expect(report.output.status).toBe("completed");
    expect(report.states).not.toContain('{"working":{"running":"probing"}}');
  });
});

/** Running or stopped: not exited and not a zombie (the fixture's exit is seen before its pipes end). */
function process_running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = require_stat(pid);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

function require_stat(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, "utf8");
}

describe("a worker past its hard timeout", () => {
  it("has its whole process group killed, and the run ends failed, resumable when its work survives it", async () => {
    const clock = new SimulatedClock();
    const task = { constraints: { max_turns: 4, soft_timeout_ms: 100, hard_timeout_ms: 200, retry_budget: 0, model_policy: "agent_select" as const } };
    const run = h.start({ task, services: { entry: fixture_entry("hang") }, resumable: true, clock });
    await until_state(run.actor, { working: { running: "listening" } });
    const pid = pid_of(run.actor);
    clock.increment(200);
    const report = await run.report;
    expect(report.output).toMatchObject({ status: "failed", resumable: true, error: { metadata: { timeout: true } } });
    expect(report.agent).toMatchObject({ status: "failed", exit_code: 5 });
    await until("its group to be gone", () => !group_alive(pid));
  });
});

/**
 * Every way a worker can go wrong, each with a real child process: the agent ends with the right durable
 * event and status, the machine reports the same ending, and the parent (this process, its session) goes on.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WORKER_EXIT } from "../../src/contracts/ipc.js";
import { calls, event_types, fixture_entry, payload_of, says, WorkerHarness, type RunReport } from "./harness.js";

let h: WorkerHarness;
beforeEach(() => {
  h = new WorkerHarness();
});
afterEach(() => h.cleanup());

/** The agent row and its durable events agree with how the machine says the run ended. */
function expect_ending(report: RunReport, ending: "failed" | "lost" | "cancelled", agent_status = ending): Record<string, unknown> {
  expect(report.output.status).toBe(ending);
  expect(report.agent.status).toBe(agent_status);
  const types = event_types(report.agent_events);
  expect(types[0]).toBe("agent.started");
  expect(types.at(-1)).toBe(`agent.${agent_status}`);
  expect(types.filter((type) => !type.startsWith("agent.started"))).toHaveLength(1);
  return payload_of(report.agent_events.at(-1));
}

/** After a failure the session still takes events and runs workers. */
async function expect_parent_alive(): Promise<void> {
  const report = await h.run({ script: [() => says("still here")] });
  expect(report.output.status).toBe("completed");
  expect(report.agent.status).toBe("completed");
}

function protocol_code(report: RunReport): unknown {
  return report.output.error?.metadata?.protocol_error;
}

describe("protocol errors: the worker is ended and the agent fails", () => {
  it("a worker.ready with another protocol version", async () => {
    const report = await h.run({ services: { entry: fixture_entry("wrong-version") } });
    const payload = expect_ending(report, "failed");
    expect(protocol_code(report)).toBe("version_mismatch");
    expect(report.output.error!.message).toContain("protocol version 2");
    expect(payload.error).toMatchObject({ kind: "agent_error", metadata: { protocol_error: "version_mismatch" } });
    // It never got past the handshake: no running announcement.
    expect(report.agent_events.map((row) => payload_of(row).status).filter(Boolean)).toEqual(["starting"]);
    expect(report.states).not.toContain('{"working":{"running":"listening"}}');
    await expect_parent_alive();
  });

  it("garbage on stdout", async () => {
    const report = await h.run({ services: { entry: fixture_entry("garbage") } });
    expect_ending(report, "failed");
    expect(protocol_code(report)).toBe("malformed_json");
    expect(report.output.error!.message).toContain("forgot stdout is the protocol");
    expect(report.logs).toContainEqual(expect.objectContaining({ source: "bridge", level: "error", message: expect.stringContaining("malformed_json") }));
    await expect_parent_alive();
  });

  it("a line over the size limit", async () => {
    const report = await h.run({ services: { entry: fixture_entry("long-line") } });
    expect_ending(report, "failed");
    expect(protocol_code(report)).toBe("line_too_long");
    await expect_parent_alive();
  });
});

describe("exit codes", () => {
  for (const code of [WORKER_EXIT.uncaught_exception, WORKER_EXIT.protocol_error, WORKER_EXIT.permission_error]) {
    it(`exit ${code} ⇒ agent.failed naming the code`, async () => {
      const report = await h.run({ services: { entry: fixture_entry(`exit:${code}`) } });
      const payload = expect_ending(report, "failed");
      expect(payload.exit_code).toBe(code);
      expect(report.agent.exit_code).toBe(code);
      expect(report.output.exit_code).toBe(code);
      const error = report.output.error!;
      expect(error.message).toContain(`exited with code ${code}`);
      expect(error.metadata).toMatchObject({ exit_code: code });
      expect(error.kind).toBe(code === WORKER_EXIT.permission_error ? "permission_error" : "agent_error");
      expect(error.detail).toContain(`fixture exiting with ${code}`);
      if (code === WORKER_EXIT.protocol_error) expect(error.message).toContain("the fixture gave up on the protocol");
    });
  }

  it("the real worker exits 2 for a task type it has no role for", async () => {
    // Compaction runs in the parent (context.compact); no worker runs a compactor.
    const report = await h.run({ task: { type: "compact", output_contract: "CompactorResult" } });
    const payload = expect_ending(report, "failed");
    expect(payload.exit_code).toBe(WORKER_EXIT.protocol_error);
    expect(report.output.error!.message).toContain("no compactor role");
  });
});

describe("a worker that cannot start", () => {
  it("⇒ agent.failed with an env_error, once", async () => {
    const report = await h.run({ services: { entry: { command: "/nonexistent/air-node", args: [] } } });
    const payload = expect_ending(report, "failed");
    expect(report.output.error).toMatchObject({ kind: "env_error", message: expect.stringContaining("ENOENT") });
    expect(payload.error).toMatchObject({ kind: "env_error" });
    await expect_parent_alive();
  });
});

describe("vanished workers ⇒ agent.lost", () => {
  it("killed without a result", async () => {
    const report = await h.run({ services: { entry: fixture_entry("die") } });
    const payload = expect_ending(report, "lost");
    expect(payload.reason).toContain("SIGKILL");
    expect(payload.last_heartbeat_at).toBe(report.agent.last_heartbeat_at);
    expect(typeof payload.last_heartbeat_at).toBe("string");
    expect(report.output.error).toMatchObject({ kind: "agent_error", metadata: { lost: true } });
    await expect_parent_alive();
  });

  it("exit 0 without a result", async () => {
    const report = await h.run({ services: { entry: fixture_entry("exit:0") } });
    const payload = expect_ending(report, "lost");
    expect(payload.reason).toContain("code 0 without a result");
  });
});

describe("hard timeout", () => {
  it("SIGTERM ends a hanging worker ⇒ agent.failed (timeout)", async () => {
    const report = await h.run({
      task: { constraints: { max_turns: 4, soft_timeout_ms: 500, hard_timeout_ms: 800, retry_budget: 0, model_policy: "agent_select" } },
      services: { entry: fixture_entry("hang") },
    });
    const payload = expect_ending(report, "failed");
    expect(payload.exit_code).toBe(WORKER_EXIT.hard_timeout);
    expect(report.output.error).toMatchObject({ metadata: { timeout: true, hard_timeout_ms: 800 } });
    expect(report.output.error!.message).toContain("hard timeout of 800 ms");
    await expect_parent_alive();
  });

  it("SIGKILL follows when the worker ignores SIGTERM", async () => {
    const started = Date.now();
    const report = await h.run({
      task: { constraints: { max_turns: 4, soft_timeout_ms: 500, hard_timeout_ms: 1500, retry_budget: 0, model_policy: "agent_select" } },
      services: { entry: fixture_entry("stubborn") },
      delays: { kill_grace_ms: 400 },
    });
    expect_ending(report, "failed");
    expect(report.output.error!.metadata).toMatchObject({ timeout: true });
    // It had its SIGTERM handler before it said ready, so only SIGKILL, one grace period later, ended it.
    expect(report.states).toContain('{"working":{"running":"listening"}}');
    expect(report.output.exit_code).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500 + 400);
  });
});

describe("cancel", () => {
  it("the real worker stops at the cancel control, reports a cancelled result and exits 4", async () => {
    const report = await h.run({
      script: [() => calls("text.upper", { text: "slowly" })],
      model_delay_ms: 300,
      started: (actor) => {
        const subscription = actor.subscribe((snapshot) => {
          if (snapshot.matches({ working: "running" })) {
            subscription.unsubscribe();
            setTimeout(() => actor.send({ type: "run.cancel", reason: "the user changed their mind" }), 100);
          }
        });
      },
    });
    const payload = expect_ending(report, "cancelled");
    expect(payload.reason).toBe("the user changed their mind");
    expect(report.output.exit_code).toBe(WORKER_EXIT.cancelled);
    expect(report.output.result).toMatchObject({ status: "cancelled", agent_id: report.agent_id });
    expect(report.output.result!.summary).toContain("the user changed their mind");
    expect(report.states).toContain('{"cancelling":"asking"}');
    await expect_parent_alive();
  });

  it("a worker that ignores the cancel and SIGTERM is killed", async () => {
    const report = await h.run({
      services: { entry: fixture_entry("stubborn") },
      delays: { cancel_grace_ms: 200, kill_grace_ms: 200 },
      started: (actor) => {
        actor.subscribe((snapshot) => {
          if (snapshot.matches({ working: "running" })) actor.send({ type: "run.cancel", reason: "stop now" });
        });
      },
    });
    expect_ending(report, "cancelled");
    expect(report.output.exit_code).toBeNull();
    expect(report.output.result).toBeUndefined();
  });

  it("a cancel before the handshake ends the agent as cancelled from starting", async () => {
    const report = await h.run({
      services: { entry: fixture_entry("cancellable") },
      started: (actor) => actor.send({ type: "run.cancel", reason: "never mind" }),
    });
    expect_ending(report, "cancelled");
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.cancelled"]);
  });
});

describe("what a worker gets and sends", () => {
  it("its environment holds no credentials, even when the parent's does", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "sk-ant-test",
      OPENAI_API_KEY: "sk-openai-test",
      GITHUB_TOKEN: "ghp_test",
      MY_SERVICE_API_KEY: "k",
      AIR_WORKER_TEST_MARKER: "visible",
    });
    try {
      const report = await h.run({ services: { entry: fixture_entry("env") } });
      expect(report.output.status).toBe("completed");
      const keys = (report.logs.find((entry) => entry.message === "environment")!.data as { keys: string[] }).keys;
      expect(keys).toContain("AIR_WORKER_TEST_MARKER");
      expect(keys).toContain("PATH");
      expect(keys).not.toContain("ANTHROPIC_API_KEY");
      expect(keys.filter((key) => /^(ANTHROPIC|OPENAI)_|_API_KEY$|_TOKEN$/i.test(key))).toEqual([]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it("events it may not send are refused and logged; the run goes on", async () => {
    const report = await h.run({ services: { entry: fixture_entry("bad-events") } });
    expect(report.output.status).toBe("completed");
    expect(report.agent.status).toBe("completed");
    // Its own agent.completed was refused: the parent recorded the one and only completion.
    expect(event_types(report.agent_events)).toEqual(["agent.started", "agent.started", "agent.completed"]);
    expect(payload_of(report.agent_events.at(-1))).toEqual({ agent_id: report.agent_id, exit_code: 0, worker_result: report.output.result });
    const refused = report.logs.filter((entry) => entry.message.startsWith("refused a worker event"));
    expect(refused.map((entry) => entry.message)).toEqual([
      expect.stringContaining("recorded by the parent"),
      expect.stringContaining("a heartbeat for another agent"),
      expect.stringContaining('unknown event type "nonsense.happened"'),
    ]);
    // The valid heartbeat went through.
    expect(report.ephemeral.filter((event) => event.type === "agent.heartbeat")).toHaveLength(1);
    expect(report.agent.last_heartbeat_at).not.toBeNull();
  });

  it("a session survives several broken workers in a row", async () => {
    for (const mode of ["garbage", "exit:1", "die", "long-line"]) {
      const report = await h.run({ services: { entry: fixture_entry(mode) } });
      expect(["failed", "lost"]).toContain(report.output.status);
    }
    await expect_parent_alive();
    const statuses = h.session.connection.client.prepare("SELECT status FROM agents ORDER BY started_at").all() as { status: string }[];
    expect(statuses.map((row) => row.status)).toEqual(["failed", "failed", "lost", "failed", "completed"]);
  });
});

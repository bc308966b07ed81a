import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import { agent_machine, type AgentLifecycleEvent } from "../../src/machines/index.js";
import { describe_lifecycle, type LifecycleSpec } from "./lifecycle.js";

const started_running: AgentLifecycleEvent = { type: "agent.started", status: "running" };
const started_starting: AgentLifecycleEvent = { type: "agent.started", status: "starting" };
const e = (type: Exclude<AgentLifecycleEvent["type"], "agent.started">): AgentLifecycleEvent => ({ type });

const spec: LifecycleSpec<typeof agent_machine> = {
  initial: "starting",
  finals: ["completed", "failed", "lost", "cancelled"],
  alphabet: [started_starting, started_running, e("agent.completed"), e("agent.failed"), e("agent.lost"), e("agent.cancelled")],
  moves: [
    ["starting", started_running, "running"],
    ["starting", e("agent.failed"), "failed"],
    ["starting", e("agent.lost"), "lost"],
    ["starting", e("agent.cancelled"), "cancelled"],
    ["running", e("agent.completed"), "completed"],
    ["running", e("agent.failed"), "failed"],
    ["running", e("agent.lost"), "lost"],
    ["running", e("agent.cancelled"), "cancelled"],
  ],
};

describe("agent machine", () => {
  describe_lifecycle(agent_machine, spec);

  const starting = agent_machine.resolveState({ value: "starting", context: {} });
  const running = agent_machine.resolveState({ value: "running", context: {} });

  it("moves to running only on the agent.started that announces running (the handshake)", () => {
    expect(starting.can(started_running)).toBe(true);
    expect(starting.can(started_starting)).toBe(false);
  });

  it("rejects agent.completed while starting: an agent that never ran cannot complete", () => {
    expect(starting.can({ type: "agent.completed" })).toBe(false);
  });

  it("rejects agent.started once running", () => {
    expect(running.can(started_running)).toBe(false);
  });

  it("rejects agent.completed after agent.lost", () => {
    const [lost] = transition(agent_machine, running, { type: "agent.lost" });
    expect(lost.value).toBe("lost");
    expect(lost.status).toBe("done");
    expect(lost.can({ type: "agent.completed" })).toBe(false);
  });
});

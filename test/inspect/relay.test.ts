import { afterEach, describe, expect, it } from "vitest";
import { LiveSystem } from "../../src/inspect/live-system.js";
import { start_relay, type Relay } from "../../src/inspect/relay.js";
import { InspectorClient, start_system, type Message, type RunningSystem } from "./helpers.js";

const open: Array<{ close(): void }> = [];
const systems: RunningSystem[] = [];

afterEach(() => {
  for (const system of systems.splice(0)) system.stop();
  for (const handle of open.splice(0)) handle.close();
});

async function relay_with_system(): Promise<{ live: LiveSystem; relay: Relay; running: RunningSystem; sent_before_connect: () => number }> {
  const live = new LiveSystem();
  const relay = await start_relay(live, { port: 0 });
  open.push(relay);
  let sent = 0;
  live.attach({ write: () => void sent++ });
  const running = await start_system(live.inspect);
  systems.push(running);
  return { live, relay, running, sent_before_connect: () => sent };
}

const actors_named = (messages: Message[], name: string) => messages.filter((m) => m.type === "@xstate.actor" && m.name === name);

/** The latest `@xstate.snapshot` of the actor registered as `name`. */
function latest_snapshot(messages: Message[], name: string): Message | undefined {
  const actor = actors_named(messages, name)[0];
  return messages.filter((m) => m.type === "@xstate.snapshot" && m.sessionId === actor?.sessionId).at(-1);
}

describe("the --inspect relay", () => {
  it("gives a client that connects after the actors started every live actor's definition and latest snapshot", async () => {
    const { relay, running, sent_before_connect } = await relay_with_system();
    // Far more than the stock relay's 200-message window, so its replay would have lost the registrations.
    running.churn(150);
    expect(sent_before_connect()).toBeGreaterThan(600);

    const client = await InspectorClient.connect(relay.url);
    open.push(client);
    const messages = await client.until((received) => latest_snapshot(received, "task")?.snapshot?.value === "running");

    for (const name of ["main-agent", "scheduler", "agent_1", "task"]) {
      expect(actors_named(messages, name), name).toHaveLength(1);
    }
    const main_agent = actors_named(messages, "main-agent")[0]!;
    expect(JSON.parse(main_agent.definition!)).toMatchObject({ id: "main-agent", initial: "idle" });
    const scheduler = actors_named(messages, "scheduler")[0]!;
    expect(JSON.parse(scheduler.definition!)).toMatchObject({ id: "scheduler", states: { monitoring: {} } });
    expect(scheduler.parentId).toBe(main_agent.sessionId);
    expect(actors_named(messages, "agent_1")[0]!.parentId).toBe(scheduler.sessionId);
    expect(JSON.parse(actors_named(messages, "task")[0]!.definition!)).toMatchObject({ id: "task" });

    expect(latest_snapshot(messages, "main-agent")!.snapshot).toMatchObject({ status: "active", value: { executing: "listening" } });
    expect(latest_snapshot(messages, "scheduler")!.snapshot).toMatchObject({
      value: "monitoring",
      context: { running: [{ task_id: "task_1", agent_id: "agent_1" }] },
    });
    expect(latest_snapshot(messages, "agent_1")!.snapshot).toMatchObject({ status: "active", input: { task_id: "task_1" } });
    // Only the live system is replayed: one registration and one snapshot per actor, not the history.
    expect(messages).toHaveLength(8);
  });

  it("replays parents before their children", async () => {
    const { relay } = await relay_with_system();
    const client = await InspectorClient.connect(relay.url);
    open.push(client);
    const messages = await client.until((received) => received.length >= 8);
    const order = messages.filter((m) => m.type === "@xstate.actor").map((m) => m.name);
    expect(order.indexOf("main-agent")).toBeLessThan(order.indexOf("scheduler"));
    expect(order.indexOf("scheduler")).toBeLessThan(order.indexOf("agent_1"));
  });

  it("streams live events after the replay, and drops the actors that ended from later replays", async () => {
    const { relay, running } = await relay_with_system();
    const early = await InspectorClient.connect(relay.url);
    open.push(early);
    await early.until((received) => received.length >= 8);

    // The cancel reaches the Scheduler, whose cancel_tasks is not provided: it fails, and the Scheduler ends cancelled.
    running.main_agent.send({ type: "user.cancel", reason: "changed my mind" });
    const messages = await early.until((received) => latest_snapshot(received, "scheduler")?.snapshot?.value === "cancelled");
    expect(messages.some((m) => m.type === "@xstate.event" && m.event?.type === "user.cancel")).toBe(true);
    expect(latest_snapshot(messages, "scheduler")!.snapshot?.status).toBe("done");
    // Actors born after the client connected are announced live, with their definitions.
    expect(actors_named(messages, "cancel_tasks")).toHaveLength(1);

    const late = await InspectorClient.connect(relay.url);
    open.push(late);
    await late.until((received) => actors_named(received, "task").length === 1 && latest_snapshot(received, "task") !== undefined);
    const names = late.messages.filter((m) => m.type === "@xstate.actor").map((m) => m.name);
    expect(names).not.toContain("scheduler");
    expect(names).not.toContain("agent_1");
    expect(names).toContain("main-agent");
  });

  it("drops a client that stops reading instead of buffering for it without bound; the runtime goes on", async () => {
    const live = new LiveSystem();
    const relay = await start_relay(live, { port: 0, max_buffered_bytes: 256 * 1024 });
    open.push(relay);
    const running = await start_system(live.inspect);
    systems.push(running);
    const stalled = await InspectorClient.connect(relay.url);
    open.push(stalled);
    (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();

    const deadline = Date.now() + 20_000;
    while (relay.clients > 0 && Date.now() < deadline) {
      running.churn(500);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(relay.clients).toBe(0);
    running.churn(1);
    expect(running.task.getSnapshot().value).toBe("running");
  });

  it("ignores what a client sends: one browser cannot feed another fake actors", async () => {
    const { relay } = await relay_with_system();
    const forger = await InspectorClient.connect(relay.url);
    const watcher = await InspectorClient.connect(relay.url);
    open.push(forger, watcher);
    await watcher.until((received) => received.length >= 8);
    forger.socket.send(JSON.stringify({ type: "@xstate.actor", name: "forged", sessionId: "x:999" }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(actors_named(watcher.messages, "forged")).toEqual([]);
  });
});

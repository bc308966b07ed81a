import { assign, createActor, fromPromise, setup } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { LiveSystem } from "../../src/inspect/live-system.js";
import type { WireEvent } from "../../src/inspect/wire.js";
import { agent_machine } from "../../src/machines/agent.js";
import { task_machine } from "../../src/machines/task.js";
import { start_system, type RunningSystem } from "./helpers.js";

const systems: RunningSystem[] = [];
afterEach(() => {
  for (const system of systems.splice(0)) system.stop();
});

function recorder(live: LiveSystem): WireEvent[] {
  const events: WireEvent[] = [];
  live.attach({ write: (_line, event) => events.push(event) });
  return events;
}

describe("LiveSystem", () => {
  it("keeps only what is alive: a thousand finished lifecycles leave nothing behind", () => {
    const live = new LiveSystem();
    recorder(live);
    for (let index = 0; index < 1_000; index++) {
      const task = createActor(task_machine, { inspect: live.inspect }).start();
      task.send({ type: "task.started" });
      task.send({ type: "task.completed" });
    }
    const survivor = createActor(agent_machine, { inspect: live.inspect }).start();
    expect(live.live_actors()).toEqual([survivor.sessionId]);
    expect(live.replay().map((event) => event.type)).toEqual(["@xstate.actor", "@xstate.snapshot"]);
    survivor.stop();
    expect(live.live_actors()).toEqual([]);
  });

  it("drops an actor that failed while processing (it sends no last snapshot) at the next look", () => {
    const live = new LiveSystem();
    const failing = setup({
      actions: {
        explode: () => {
          throw new Error("an action failed");
        },
      },
    }).createMachine({ id: "failing", initial: "idle", states: { idle: { on: { GO: { actions: "explode" } } } } });
    const actor = createActor(failing, { inspect: live.inspect });
    actor.subscribe({ error: () => undefined });
    actor.start();
    actor.send({ type: "GO" });
    expect(actor.getSnapshot().status).toBe("error");
    expect(live.replay()).toEqual([]);
  });

  it("announces an actor born after a sink attached with its definition, before any of its events", async () => {
    const live = new LiveSystem();
    const events = recorder(live);
    const running = await start_system(live.inspect);
    systems.push(running);
    const first_of = new Map<string, string>();
    for (const event of events) if (!first_of.has(event.sessionId)) first_of.set(event.sessionId, event.type);
    expect([...first_of.values()].every((type) => type === "@xstate.actor")).toBe(true);
  });

  it("renders nothing while no sink listens (a relay without clients), yet replays the whole system later", () => {
    const live = new LiveSystem();
    let listening = false;
    const written: string[] = [];
    live.attach({ listening: () => listening, write: (line) => void written.push(line) });
    const task = createActor(task_machine, { inspect: live.inspect }).start();
    task.send({ type: "task.started" });
    expect(written).toEqual([]);
    listening = true;
    task.send({ type: "task.blocked" });
    expect(written.map((line) => JSON.parse(line).type)).toEqual(["@xstate.event", "@xstate.snapshot"]);
    expect(live.replay()).toEqual([
      expect.objectContaining({ type: "@xstate.actor", name: "task", snapshot: expect.objectContaining({ value: "blocked" }) }),
      expect.objectContaining({ type: "@xstate.snapshot", snapshot: expect.objectContaining({ value: "blocked" }) }),
    ]);
    task.stop();
  });

  it("never lets a broken sink or an odd context disturb the actors or the other sinks", () => {
    const live = new LiveSystem();
    live.attach({
      write: () => {
        throw new Error("disk full");
      },
    });
    const events = recorder(live);
    const hostile = {
      get secret(): string {
        throw new Error("a getter that throws");
      },
    };
    const machine = setup({ types: { context: {} as { value: unknown; count: number } } }).createMachine({
      id: "odd",
      context: { value: hostile, count: 0 },
      on: { BUMP: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
    });
    const actor = createActor(machine, { inspect: live.inspect }).start();
    actor.send({ type: "BUMP" });
    expect(actor.getSnapshot().context.count).toBe(1);
    const last = events.filter((event) => event.type === "@xstate.snapshot").at(-1);
    expect(last).toMatchObject({ snapshot: { context: { count: 1, value: "[Unserializable]" } } });
    actor.stop();
  });

  it("redacts secrets from what it sends: a key in a user message does not reach the Inspector", () => {
    const live = new LiveSystem();
    const events = recorder(live);
    const echo = setup({ types: { context: {} as { text: string }, events: {} as { type: "SAY"; text: string } } }).createMachine({
      id: "echo",
      context: { text: "" },
      on: { SAY: { actions: assign({ text: ({ event }) => event.text }) } },
    });
    const actor = createActor(echo, { inspect: live.inspect }).start();
    const key = `sk-ant-api03-${"q".repeat(40)}`;
    actor.send({ type: "SAY", text: `use ${key} please` });
    const text = JSON.stringify([...events, ...live.replay()]);
    expect(text).not.toContain(key);
    expect(text).toContain("[REDACTED:");
    actor.stop();
  });

  it("serialises promise actors by name, and children as references, as the Inspector expects", async () => {
    const live = new LiveSystem();
    const parent = setup({ actors: { wait: fromPromise(() => new Promise<void>(() => undefined)) } }).createMachine({
      id: "parent",
      invoke: { id: "waiting", src: "wait" },
    });
    const actor = createActor(parent, { inspect: live.inspect }).start();
    const [parent_actor, parent_snapshot, child_actor] = live.replay();
    expect(parent_actor).toMatchObject({ type: "@xstate.actor", name: "parent" });
    expect(parent_snapshot).toMatchObject({ snapshot: { children: { waiting: { xstate$$type: 1, id: "waiting" } } } });
    expect(child_actor).toMatchObject({ type: "@xstate.actor", name: "waiting", parentId: actor.sessionId, definition: '{"id":"waiting"}' });
    actor.stop();
  });
});

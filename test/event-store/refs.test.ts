/**
 * Which task, agent, tool run and command run an event belongs to: one function, which the store's indexed
 * columns and the bus's filters both use.
 */
import { describe, expect, it } from "vitest";
import { parse_event, type EventOrigin, type EventType, type PayloadInputOf } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { ref_of } from "../../src/event-store/refs.js";
import { envelope, task_spec } from "../fixtures/events.js";
import { event_row, open_temp_session } from "../fixtures/session.js";

const origin: EventOrigin = { session_id: new_id("session") as SessionId, source: { kind: "system" }, route: ["main"] };

function event<K extends EventType>(type: K, payload: PayloadInputOf<K>) {
  return parse_event(envelope(type, payload, origin));
}

describe("ref_of", () => {
  it("reads the entity's id from the payload field of its name", () => {
    const agent_id = new_id("agent");
    const tool_run_id = new_id("tool_run");
    const command_run_id = new_id("command_run");
    const started = event("command.started", { command_run_id, command: "ls", cwd: "/", tool_run_id, agent_id });
    expect([ref_of(started, "agent_id"), ref_of(started, "tool_run_id"), ref_of(started, "command_run_id")]).toEqual([agent_id, tool_run_id, command_run_id]);
  });

  it("finds the task of task.created inside its spec", () => {
    const task = task_spec();
    expect(ref_of(event("task.created", { task, priority: 0 }), "task_id")).toBe(task.id);
  });

  it("is undefined when the event belongs to no such entity", () => {
    const changed = event("requirement.changed", { requirement_id: new_id("requirement"), description: "x" });
    expect(ref_of(changed, "task_id")).toBeUndefined();
    expect(ref_of(event("task.created", { task: task_spec(), priority: 0 }), "agent_id")).toBeUndefined();
  });

  it("is what the store indexes each event row by", () => {
    const temp = open_temp_session();
    try {
      const { session } = temp;
      const task = task_spec();
      const [created] = session.store.append_many([envelope("task.created", { task, priority: 0 }, session.origin)]);
      expect(event_row(session.connection, created!.id)).toMatchObject({ task_id: task.id, agent_id: null, tool_run_id: null, command_run_id: null });
    } finally {
      temp.cleanup();
    }
  });
});

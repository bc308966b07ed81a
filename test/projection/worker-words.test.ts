/**
 * A worker's words in the projection, through the real bus: the text its model streams is the live line of
 * its agent until the message is recorded, when the next turn starts a fresh line; a recorded message's text
 * blocks are separate paragraphs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/event-store/event-bus.js";
import { new_id } from "../../src/contracts/ids.js";
import { ProjectionStore } from "../../src/projection/store.js";
import { minimal_task_spec, step } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { ingest_all, live } from "./helpers.js";

let temp: TempSession | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

describe("a worker's words in the projection", () => {
  it("keeps a turn's streamed text as its agent's live line until the message is recorded, and starts the next turn afresh", () => {
    temp = open_temp_session({ bus: new EventBus({ coalesce_window_ms: 0 }) });
    const { session } = temp;
    const store = new ProjectionStore(session);
    store.attach(session.bus);
    const task = minimal_task_spec();
    const agent_id = new_id("agent");
    ingest_all(session, [
      step("task.created", { task, priority: 0 }),
      step("agent.started", { agent_id, agent_type: "executor", status: "running", task_id: task.id }),
      step("task.started", { task_id: task.id, attempt_id: new_id("attempt"), agent_id }),
    ]);
    const stream = (text: string) => {
      live(session, "token.delta", { request_id: `${agent_id}.turn1`, agent_id, text });
      session.bus.drain();
      store.flush();
    };
    stream("The loop stops before n.");
    stream("\n\nI will make it inclusive.");
    expect(store.snapshot().agents[0]?.stream_tail).toBe("The loop stops before n.\n\nI will make it inclusive.");

    ingest_all(session, [
      step("assistant.message.created", {
        message_id: new_id("message"),
        content: [
          { type: "text", text: "The loop stops before n." },
          { type: "text", text: "I will make it inclusive." },
          { type: "tool_use", id: "toolu_1", name: "fs.edit", input: { path: "src/calc.cpp" } },
        ],
        task_id: task.id,
        agent_id,
      }),
    ]);
    const recorded = store.snapshot();
    expect(recorded.agents[0]?.stream_tail).toBe("");
    expect(recorded.conversation.messages.at(-1)).toMatchObject({
      text: "The loop stops before n.\n\nI will make it inclusive.",
      tool_uses: [{ name: "fs.edit", input_summary: "src/calc.cpp" }],
      agent_id,
      task_id: task.id,
    });

    stream("Done.");
    expect(store.snapshot().agents[0]?.stream_tail).toBe("Done.");
    store.close();
  });
});

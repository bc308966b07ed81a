/**
 * The Main Agent's conversation up to a new message, read from a real session database: what a continued
 * session's next request carries.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { conversation_until } from "../../src/context/main-history.js";
import type { ConversationEntry } from "../../src/context/conversation.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { open_temp_session } from "../fixtures/session.js";

let temp: ReturnType<typeof open_temp_session>;
beforeEach(() => {
  temp = open_temp_session();
});
afterEach(() => temp.cleanup());

function said(role: "user" | "assistant", content: string | Record<string, unknown>[], authorship: { task_id?: string; agent_id?: string } = {}): string {
  const { session } = temp;
  const message_id = new_id("message");
  const type = role === "user" ? "user.message.created" : "assistant.message.created";
  session.ingestor.ingest(
    make_event(type, { message_id, content, ...authorship } as never, { ...session.origin, source: { kind: role === "user" ? "user" : "main" } }),
  );
  return message_id;
}

const flat = (entries: ConversationEntry[]) => entries.map((entry) => [entry.message.role, entry.message.content]);

describe("conversation_until", () => {
  it("is the message alone in a session that has said nothing before it", () => {
    const id = said("user", "First?");
    expect(flat(conversation_until(temp.session.connection, { id, message: { role: "user", content: "First?" } }))).toEqual([["user", "First?"]]);
  });

  it("carries what the user and the Main Agent said before the message, and nothing after it", () => {
    said("user", "What is the answer?");
    said("assistant", "Forty-two.");
    const id = said("user", "And doubled?");
    said("assistant", "Eighty-four.");
    const entries = conversation_until(temp.session.connection, { id, message: { role: "user", content: "And doubled?" } });
    expect(flat(entries)).toEqual([
      ["user", "What is the answer?"],
      ["assistant", "Forty-two."],
      ["user", "And doubled?"],
    ]);
    expect(entries.at(-1)?.id).toBe(id);
  });

  it("joins two messages of one side in a row, keeps the later id, and leaves out tool traffic and workers' messages", () => {
    said("user", "Fix it.");
    said("assistant", "The request failed: no key.");
    said("assistant", [
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "fs.read", input: { path: "a" } },
    ]);
    said("user", [{ type: "tool_result", tool_use_id: "toolu_1", content: "a" }]);
    const task_id = new_id("task");
    said("user", "# Task: a worker's prompt", { task_id, agent_id: new_id("agent") });
    const id = said("user", "Again?");
    expect(flat(conversation_until(temp.session.connection, { id, message: { role: "user", content: "Again?" } }))).toEqual([
      ["user", "Fix it."],
      [
        "assistant",
        [
          { type: "text", text: "The request failed: no key." },
          { type: "text", text: "Reading." },
        ],
      ],
      ["user", "Again?"],
    ]);
  });
});

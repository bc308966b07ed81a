import { describe, expect, it } from "vitest";
import { Conversation } from "../../src/context/conversation.js";
import type { CanonicalMessage } from "../../src/contracts/provider.js";

function use(id: string): CanonicalMessage {
  return { role: "assistant", content: [{ type: "tool_use", id, name: "fs.read", input: { path: id } }] };
}

function result(id: string): CanonicalMessage {
  return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `read ${id}` }] };
}

/** task prompt, then three tool round trips: m1 … m7. */
function conversation(): Conversation {
  const built = new Conversation();
  built.append("m1", { role: "user", content: "# Task: x" });
  ["a", "b", "c"].forEach((id, index) => {
    built.append(`m${2 * index + 2}`, use(id));
    built.append(`m${2 * index + 3}`, result(id));
  });
  return built;
}

describe("Conversation.apply_compaction", () => {
  it("replaces what the summary covers by one user message and keeps the tail as it was", () => {
    const built = conversation();
    const tail = built.entries.slice(3).map((entry) => entry.message);
    const { replaced } = built.apply_compaction({ summary_id: "sum_1", summary: "Read a; next read b and c.", covered_message_ids: ["m1", "m2", "m3"] });
    expect(replaced).toBe(3);
    expect(built.entries.map((entry) => entry.id)).toEqual(["sum_1", "m4", "m5", "m6", "m7"]);
    expect(built.entries[0]!.message).toEqual({ role: "user", content: "# Summary of the conversation so far\n\nRead a; next read b and c." });
    expect(built.entries.slice(1).map((entry) => entry.message)).toEqual(tail);
  });

  it("leaves out tool results whose tool_use the summary covered", () => {
    const built = conversation();
    built.apply_compaction({ summary_id: "sum_1", summary: "s", covered_message_ids: ["m1", "m2"] });
    expect(built.entries.map((entry) => entry.id)).toEqual(["sum_1", "m4", "m5", "m6", "m7"]);
  });

  it("folds a tail that opens with a user message into the summary message: no two user turns in a row", () => {
    const built = new Conversation();
    built.append("m1", { role: "user", content: "first" });
    built.append("m2", { role: "assistant", content: "answer" });
    built.append("m3", { role: "user", content: "second" });
    built.apply_compaction({ summary_id: "sum_1", summary: "s", covered_message_ids: ["m1", "m2"] });
    expect(built.entries).toEqual([
      {
        id: "sum_1",
        message: {
          role: "user",
          content: [
            { type: "text", text: "# Summary of the conversation so far\n\ns" },
            { type: "text", text: "second" },
          ],
        },
      },
    ]);
  });

  it("changes nothing when the summary covers none of its messages", () => {
    const built = conversation();
    expect(built.apply_compaction({ summary_id: "sum_1", summary: "s", covered_message_ids: ["msg_elsewhere"] })).toEqual({ replaced: 0 });
    expect(built.length).toBe(7);
  });
});

import type { CanonicalMessage, ContentBlock } from "../contracts/provider.js";

/** One message of an agent's conversation and the id it is stored under (a `messages` row, or a summary). */
export type ConversationEntry = { readonly id: string; readonly message: CanonicalMessage };

/** What `context.compact` hands back: the summary and the messages it stands for. */
export type CompactionOutcome = {
  readonly summary_id: string;
  readonly summary: string;
  readonly covered_message_ids: readonly string[];
};

function tool_result_ids(message: CanonicalMessage): string[] {
  if (message.role !== "user" || typeof message.content === "string") return [];
  return message.content.filter((block) => block.type === "tool_result").map((block) => String(block.tool_use_id));
}

function as_blocks(content: CanonicalMessage["content"]): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * An agent's conversation (L7 with its L8 tool results): append-only between turns, so every request starts
 * with the bytes of the one before. The only rewrite is compaction, which replaces what a summary covers
 * by one user message holding the summary; the originals stay in the session database.
 */
export class Conversation {
  readonly #entries: ConversationEntry[] = [];

  get entries(): readonly ConversationEntry[] {
    return this.#entries;
  }

  get length(): number {
    return this.#entries.length;
  }

  append(id: string, message: CanonicalMessage): ConversationEntry {
    const entry = { id, message };
    this.#entries.push(entry);
    return entry;
  }

  /**
   * Replaces the conversation up to the last covered entry by one user message with the summary and keeps
   * the tail after it. A tail
   * that would open with tool results loses them too: their tool_use was covered, and a tool_result must
   * follow its tool_use. A tail that opens with a user message is merged into the summary message, since two user
   * turns in a row are not a conversation every provider accepts.
   */
  apply_compaction(outcome: CompactionOutcome): { readonly replaced: number } {
    const covered = new Set(outcome.covered_message_ids);
    const last_covered = this.#entries.findLastIndex((entry) => covered.has(entry.id));
    if (last_covered === -1) return { replaced: 0 };
    let tail = this.#entries.slice(last_covered + 1);
    while (tail[0] !== undefined && tool_result_ids(tail[0].message).length > 0) tail = tail.slice(1);
    const replaced = this.#entries.length - tail.length;
    const summary_text = `# Summary of the conversation so far\n\n${outcome.summary}`;
    const first = tail[0];
    const opening: ConversationEntry =
      first !== undefined && first.message.role === "user"
        ? { id: outcome.summary_id, message: { role: "user", content: [{ type: "text", text: summary_text }, ...as_blocks(first.message.content)] } }
        : { id: outcome.summary_id, message: { role: "user", content: summary_text } };
    const rest = first !== undefined && first.message.role === "user" ? tail.slice(1) : tail;
    this.#entries.splice(0, this.#entries.length, opening, ...rest);
    return { replaced };
  }
}

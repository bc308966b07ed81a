import type { CanonicalMessage, ContentBlock } from "../contracts/provider.js";
import type { Connection } from "../db/connection.js";
import { load_conversation } from "./compaction/stored-conversation.js";
import type { ConversationEntry } from "./conversation.js";

function as_blocks(content: CanonicalMessage["content"]): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * What was said, without the tool traffic of direct-mode turns: a tool_use whose result an interrupted turn
 * never recorded would make the request invalid, and the words carry what the next request needs.
 */
function words_of(content: CanonicalMessage["content"]): CanonicalMessage["content"] | undefined {
  if (typeof content === "string") return content;
  const text = content.filter((block) => block.type === "text");
  return text.length === 0 ? undefined : text;
}

/**
 * Two messages of one role in a row (a request that failed before an answer, a plan shown before its summary)
 * become one: not every provider takes two turns of one side in a row. The later id is kept.
 */
function alternating(entries: readonly ConversationEntry[]): ConversationEntry[] {
  const merged: ConversationEntry[] = [];
  for (const entry of entries) {
    const last = merged.at(-1);
    if (last === undefined || last.message.role !== entry.message.role) merged.push(entry);
    else
      merged[merged.length - 1] = {
        id: entry.id,
        message: { role: entry.message.role, content: [...as_blocks(last.message.content), ...as_blocks(entry.message.content)] },
      };
  }
  return merged;
}

/**
 * The user ↔ Main Agent conversation up to `current` (a new user message), as the Main Agent's next request
 * carries it: the latest compaction summary of it, the messages it does not cover recorded before `current`,
 * then `current` — so a session continued (`air -c`, a second message in the TUI) is answered with what was
 * said before. Sessions are append-only: the messages before `current` are those with a lower rowid.
 */
export function conversation_until(connection: Connection, current: ConversationEntry): ConversationEntry[] {
  const { previous, messages } = load_conversation(connection, { kind: "main" });
  const at = messages.findIndex((message) => message.id === current.id);
  const earlier = (at === -1 ? messages : messages.slice(0, at)).flatMap((message): ConversationEntry[] => {
    const content = words_of(message.content);
    return content === undefined ? [] : [{ id: message.id, message: { role: message.role, content } }];
  });
  const summary: ConversationEntry[] =
    previous === undefined ? [] : [{ id: previous.id, message: { role: "user", content: `# Summary of the conversation so far\n\n${previous.content}` } }];
  const history = [...summary, ...earlier];
  // A conversation opens with the user: an answer whose question was compacted away goes with the summary or not at all.
  while (history[0]?.message.role === "assistant") history.shift();
  return alternating([...history, current]);
}

import type { ContentBlock } from "../../contracts/provider.js";
import { CHARS_PER_TOKEN } from "../layers.js";
import type { StoredMessage } from "./stored-conversation.js";
import type { CompactionSettings, MessageKind } from "./rules.js";

/** One classified piece of a message, rendered for the compactor model. */
type Piece = { readonly message_id: string; readonly kind: MessageKind; text: string };

function text_of_result(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? "");
  return content.map((block: ContentBlock) => (block.type === "text" && typeof block.text === "string" ? block.text : `[${block.type} block]`)).join("\n");
}

/** The ContextClassifier of seeds 001 D-047: what kind of content each block is. */
function classify(message: StoredMessage): Piece[] {
  const user = message.role === "user";
  if (typeof message.content === "string") return [{ message_id: message.id, kind: user ? "user_text" : "assistant_text", text: message.content }];
  return message.content.map((block): Piece => {
    const piece = (kind: MessageKind, text: string): Piece => ({ message_id: message.id, kind, text });
    switch (block.type) {
      case "text":
        return piece(user ? "user_text" : "assistant_text", String(block.text ?? ""));
      case "tool_use":
        return piece("tool_use", `[tool_use ${String(block.id)}: ${String(block.name)} ${JSON.stringify(block.input ?? {})}]`);
      case "tool_result": {
        const error = block.is_error === true;
        return piece(
          error ? "tool_error" : "tool_result",
          `[tool_result ${String(block.tool_use_id)}${error ? ", error" : ""}]\n${text_of_result(block.content)}`,
        );
      }
      default:
        return piece(user ? "user_text" : "assistant_text", `[${block.type} block]`);
    }
  });
}

/** A message with its classified pieces. */
type Group = { readonly message: StoredMessage; readonly pieces: readonly Piece[] };

function render(groups: readonly Group[]): string {
  return groups.map(({ message, pieces }) => [`### ${message.id} (${message.role})`, ...pieces.map((piece) => piece.text)].join("\n")).join("\n\n");
}

export type Transcript = { readonly text: string; readonly omitted: number };

/**
 * The covered messages as one text for the compactor model. Over `max_compactor_input_tokens`, content the
 * rules mark `drop_if_needed` is replaced by a marker, oldest first, until it fits — safe because the
 * originals stay in the session.
 */
export function render_transcript(
  messages: readonly StoredMessage[],
  settings: Pick<CompactionSettings, "classify" | "max_compactor_input_tokens">,
  previous_summary?: string,
): Transcript {
  const groups = messages.map((message): Group => ({ message, pieces: classify(message) }));
  const preamble = previous_summary === undefined ? "" : `## Earlier summary\n\n${previous_summary}\n\n## Messages since\n\n`;
  let length = (preamble + render(groups)).length;
  let omitted = 0;
  for (const piece of groups.flatMap((group) => group.pieces)) {
    if (Math.ceil(length / CHARS_PER_TOKEN) <= settings.max_compactor_input_tokens) break;
    if (settings.classify[piece.kind] !== "drop_if_needed") continue;
    const marker = `[${piece.kind} omitted for length: ${piece.text.length} characters; the original is kept in ${piece.message_id}]`;
    length += marker.length - piece.text.length;
    piece.text = marker;
    omitted += 1;
  }
  const text = preamble + render(groups);
  return { text, omitted };
}

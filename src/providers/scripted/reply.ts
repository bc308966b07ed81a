import { wire_tool_name } from "../tool-names.js";
import { estimate_tokens, type MessagesRequestBody } from "./request-body.js";
import type { ScriptedReply } from "./script.js";

type TextBlock = { type: "text"; text: string };
type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};

/** A Messages API `Message`, as the non-streaming endpoint returns it. */
export type ReplyMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: (TextBlock | ToolUseBlock)[];
  stop_reason: string;
  stop_sequence: null;
  usage: Usage;
};

/** One server-sent event: its name and its JSON data. */
export type SseEvent = { event: string; data: unknown };

export function reply_message(reply: ScriptedReply, body: MessagesRequestBody, message_id: string): ReplyMessage {
  const content = reply.content.map((block, index): TextBlock | ToolUseBlock =>
    block.type === "text"
      ? { type: "text", text: block.text }
      : { type: "tool_use", id: block.id ?? `toolu_${message_id.replace(/^msg_/, "")}_${index}`, name: wire_tool_name(block.name), input: block.input },
  );
  const usage: Usage = {
    input_tokens: reply.usage?.input_tokens ?? estimate_tokens([body.system, body.tools, body.messages]),
    output_tokens: reply.usage?.output_tokens ?? estimate_tokens(content),
  };
  if (reply.usage?.cache_creation_input_tokens !== undefined) usage.cache_creation_input_tokens = reply.usage.cache_creation_input_tokens;
  if (reply.usage?.cache_read_input_tokens !== undefined) usage.cache_read_input_tokens = reply.usage.cache_read_input_tokens;
  return {
    id: message_id,
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: reply.stop_reason ?? (content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage,
  };
}

/** `text` in about `parts` pieces, never splitting a character. */
export function split_into(text: string, parts: number): string[] {
  const characters = Array.from(text);
  const size = Math.max(1, Math.ceil(characters.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) pieces.push(characters.slice(start, start + size).join(""));
  return pieces;
}

/** The start of a streamed message: usage there carries the input side, as the real API sends it. */
export function message_start_events(message: ReplyMessage): SseEvent[] {
  return [
    {
      event: "message_start",
      data: { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } },
    },
    { event: "ping", data: { type: "ping" } },
  ];
}

/**
 * The full stream of `message`, shaped like the real API's: text in several text_delta pieces, tool
 * input as JSON cut into several input_json_delta pieces (cut anywhere, even inside a string), usage
 * final in message_delta.
 */
export function message_stream_events(message: ReplyMessage): SseEvent[] {
  const events = message_start_events(message);
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
      for (const text of split_into(block.text, 3)) {
        events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "text_delta", text } } });
      }
    } else {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { ...block, input: {} } } });
      for (const partial_json of split_into(JSON.stringify(block.input), 4)) {
        events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } } });
      }
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push(
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: message.usage } },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

/** A stream that starts like a real one and then stops mid-text (the caller cuts the connection). */
export function broken_stream_events(message: ReplyMessage): SseEvent[] {
  return [
    ...message_start_events(message),
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "This answer is cut off mid-" } } },
  ];
}

export function sse(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

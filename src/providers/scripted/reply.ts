import { wire_tool_name } from "../tool-names.js";
import { estimate_tokens } from "./request-body.js";
import type { ScriptedBlock, ScriptedReply } from "./script.js";

type TextBlock = { type: "text"; text: string };
type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type ThinkingBlock = { type: "thinking"; thinking: string; signature: string };
type ReplyBlock = TextBlock | ToolUseBlock | ThinkingBlock;
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
  content: ReplyBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: Usage;
};

/** One server-sent event: its name and its JSON data. */
export type SseEvent = { event: string; data: unknown };

/** What a reply needs of the request it answers, whichever API that came in on. */
export type ReplyContext = {
  readonly model: string;
  /** The request's size in estimated tokens: the input usage when the script gives none. */
  readonly input_estimate: number;
};

function reply_block(block: ScriptedBlock, index: number, message_id: string): ReplyBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature ?? `sig_scripted_${message_id}_${index}` };
    case "tool_use":
      return { type: "tool_use", id: block.id ?? `toolu_${message_id.replace(/^msg_/, "")}_${index}`, name: wire_tool_name(block.name), input: block.input };
  }
}

export function reply_message(reply: ScriptedReply, context: ReplyContext, message_id: string): ReplyMessage {
  const content = reply.content.map((block, index) => reply_block(block, index, message_id));
  const usage: Usage = {
    input_tokens: reply.usage?.input_tokens ?? context.input_estimate,
    output_tokens: reply.usage?.output_tokens ?? estimate_tokens(content),
  };
  if (reply.usage?.cache_creation_input_tokens !== undefined) usage.cache_creation_input_tokens = reply.usage.cache_creation_input_tokens;
  if (reply.usage?.cache_read_input_tokens !== undefined) usage.cache_read_input_tokens = reply.usage.cache_read_input_tokens;
  return {
    id: message_id,
    type: "message",
    role: "assistant",
    model: context.model,
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
    events.push(...block_events(block, index), { event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push(
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: message.usage } },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

function block_events(block: ReplyBlock, index: number): SseEvent[] {
  const start = (content_block: unknown): SseEvent => ({ event: "content_block_start", data: { type: "content_block_start", index, content_block } });
  const delta = (delta: unknown): SseEvent => ({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
  switch (block.type) {
    case "text":
      return [start({ type: "text", text: "" }), ...split_into(block.text, 3).map((text) => delta({ type: "text_delta", text }))];
    case "thinking":
      return [
        start({ type: "thinking", thinking: "", signature: "" }),
        ...split_into(block.thinking, 3).map((thinking) => delta({ type: "thinking_delta", thinking })),
        delta({ type: "signature_delta", signature: block.signature }),
      ];
    case "tool_use":
      return [
        start({ ...block, input: {} }),
        ...split_into(JSON.stringify(block.input), 4).map((partial_json) => delta({ type: "input_json_delta", partial_json })),
      ];
  }
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

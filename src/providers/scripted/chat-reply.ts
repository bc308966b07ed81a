import { split_into, type ReplyMessage } from "./reply.js";
import type { ScriptedReply } from "./script.js";

/** How the Chat Completions endpoint says each canonical stop reason. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
};

/** A scripted reply, already made a canonical message, as the Chat Completions endpoint sends it. */
export type ChatReply = {
  readonly message: ReplyMessage;
  readonly openai: ScriptedReply["openai"];
  readonly created: number;
};

/**
 * Canonical usage counts cached input apart from `input_tokens`; Chat Completions counts it inside
 * `prompt_tokens` (cache writes have no figure of their own there), so a script's usage round-trips.
 */
function chat_usage(message: ReplyMessage): ChatUsage {
  const { input_tokens, output_tokens, cache_creation_input_tokens = 0, cache_read_input_tokens } = message.usage;
  const prompt_tokens = input_tokens + cache_creation_input_tokens + (cache_read_input_tokens ?? 0);
  const usage: ChatUsage = { prompt_tokens, completion_tokens: output_tokens, total_tokens: prompt_tokens + output_tokens };
  if (cache_read_input_tokens !== undefined) usage.prompt_tokens_details = { cached_tokens: cache_read_input_tokens };
  return usage;
}

function finish_reason(reply: ChatReply): string {
  return reply.openai?.finish_reason ?? FINISH_REASONS[reply.message.stop_reason] ?? "stop";
}

/** The non-streaming answer: one `chat.completion` object. */
export function chat_completion(reply: ChatReply): unknown {
  const { message } = reply;
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const reasoning = message.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("");
  const tool_calls = message.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input) } }] : [],
  );
  return {
    id: chat_id(message),
    object: "chat.completion",
    created: reply.created,
    model: message.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && tool_calls.length > 0 ? null : text,
          refusal: null,
          ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
          ...(tool_calls.length === 0 ? {} : { tool_calls }),
        },
        finish_reason: finish_reason(reply),
        logprobs: null,
      },
    ],
    ...(reply.openai?.omit_usage === true ? {} : { usage: chat_usage(message) }),
  };
}

function chat_id(message: ReplyMessage): string {
  return message.id.replace(/^msg_/, "chatcmpl-");
}

/** A `chat.completion.chunk` around one delta of the first choice. */
function chunk(reply: ChatReply, delta: unknown, finish: string | null = null): unknown {
  return {
    id: chat_id(reply.message),
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.message.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  };
}

/** The stream's opening chunk: the role, no content yet. */
export function chat_opening(reply: ChatReply): unknown {
  return chunk(reply, { role: "assistant", content: "" });
}

/**
 * The data of each SSE message of a streamed answer, shaped like OpenAI's: text in several content
 * deltas, each tool call opened with its id and name and its arguments cut into several fragments (cut
 * anywhere, even inside a string), the finish_reason alone in its chunk, usage in a last chunk without
 * choices when the request asked for it. `[DONE]` is the caller's.
 */
export function chat_stream_chunks(reply: ChatReply, include_usage: boolean): unknown[] {
  const chunks = [chat_opening(reply)];
  let tool_index = 0;
  for (const block of reply.message.content) {
    if (block.type === "text") {
      for (const content of split_into(block.text, 3)) chunks.push(chunk(reply, { content }));
    } else if (block.type === "thinking") {
      for (const reasoning_content of split_into(block.thinking, 3)) chunks.push(chunk(reply, { reasoning_content }));
    } else {
      const index = tool_index++;
      chunks.push(chunk(reply, { tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] }));
      for (const piece of split_into(JSON.stringify(block.input), 4)) {
        chunks.push(chunk(reply, { tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
  }
  chunks.push(chunk(reply, {}, finish_reason(reply)));
  if (include_usage && reply.openai?.omit_usage !== true) {
    chunks.push({ ...(chunk(reply, {}) as object), choices: [], usage: chat_usage(reply.message) });
  }
  return chunks;
}

/** A stream that starts like a real one and then stops mid-text (the caller cuts the connection). */
export function chat_broken_chunks(reply: ChatReply): unknown[] {
  return [chat_opening(reply), chunk(reply, { content: "This answer is cut off mid-" })];
}

export function chat_sse(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

import { chat_broken_chunks, chat_completion, chat_opening, chat_sse, chat_stream_chunks, type ChatReply } from "./chat-reply.js";
import type { ChatRequestBody } from "./chat-body.js";
import { error_body, type ApiError, type Exchange } from "./exchange.js";
import { reply_message } from "./reply.js";
import { estimate_tokens } from "./request-body.js";
import type { ErrorStatus, ScriptedError, ScriptedReply, Turn } from "./script.js";

/** The type and code the OpenAI API uses for each status a script may answer with. */
const OPENAI_ERRORS: Readonly<Record<ErrorStatus, { type: string; code: string | null }>> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "permission_error", code: null },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: null },
  529: { type: "server_error", code: null },
};

const DONE = chat_sse("[DONE]");

function chat_reply(reply: ScriptedReply, body: ChatRequestBody, seq: number): ChatReply {
  const context = { model: body.model, input_estimate: estimate_tokens([body.tools, body.messages]) };
  return { message: reply_message(reply, context, `msg_scripted_${seq}`), openai: reply.openai, created: Math.floor(Date.now() / 1000) };
}

/** Answers a Chat Completions request with its turn: the same script as for the Messages API, in OpenAI's wire format. */
export function play_chat(exchange: Exchange, turn: Turn, body: ChatRequestBody, turn_index: number): void {
  const stream = body.stream === true;
  const include_usage = body.stream_options?.include_usage === true;
  const empty = () => chat_reply({ content: [{ type: "text", text: "" }] }, body, exchange.seq);
  switch (turn.kind) {
    case "reply": {
      const reply = chat_reply(turn.reply, body, exchange.seq);
      exchange.record({ kind: "reply", stream }, turn_index);
      if (!stream) return exchange.json(200, chat_completion(reply));
      return exchange.stream([...chat_stream_chunks(reply, include_usage).map(chat_sse), DONE]);
    }
    case "error":
      return play_chat_error(exchange, turn.error, turn_index, stream, empty);
    case "broken_stream":
      exchange.record({ kind: "broken_stream" }, turn_index);
      if (!stream) return exchange.cut();
      return exchange.stream(chat_broken_chunks(empty()).map(chat_sse), { cut: true });
  }
}

function play_chat_error(exchange: Exchange, error: ScriptedError, turn_index: number, stream: boolean, empty: () => ChatReply): void {
  const defaults = OPENAI_ERRORS[error.status];
  const api_error: ApiError = { type: error.type ?? defaults.type, message: error.message ?? `scripted ${error.type ?? defaults.type}`, code: defaults.code };
  const in_stream = stream && error.in_stream === true;
  exchange.record({ kind: "error", status: error.status, type: api_error.type, in_stream }, turn_index);
  if (in_stream) return exchange.stream([chat_sse(chat_opening(empty())), chat_sse(error_body("openai_chat", api_error))]);
  const headers: Record<string, string> = error.retry_after_s === undefined ? {} : { "retry-after": String(error.retry_after_s) };
  exchange.json(error.status, error_body("openai_chat", api_error), headers);
}

import { error_body, type Exchange } from "./exchange.js";
import { broken_stream_events, message_start_events, message_stream_events, reply_message, sse, type ReplyContext } from "./reply.js";
import { estimate_tokens, type MessagesRequestBody } from "./request-body.js";
import type { ErrorStatus, ScriptedError, Turn } from "./script.js";

/** The type the Anthropic API uses for each status a script may answer with. */
const DEFAULT_ERROR_TYPES: Record<ErrorStatus, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  503: "api_error",
  529: "overloaded_error",
};

function reply_context(body: MessagesRequestBody): ReplyContext {
  return { model: body.model, input_estimate: estimate_tokens([body.system, body.tools, body.messages]) };
}

/** Answers a Messages API request with its turn. */
export function play_messages(exchange: Exchange, turn: Turn, body: MessagesRequestBody, turn_index: number): void {
  const stream = body.stream === true;
  const message_id = `msg_scripted_${exchange.seq}`;
  switch (turn.kind) {
    case "reply": {
      const message = reply_message(turn.reply, reply_context(body), message_id);
      exchange.record({ kind: "reply", stream }, turn_index);
      return stream ? exchange.stream(message_stream_events(message).map(sse)) : exchange.json(200, message);
    }
    case "error":
      return play_error(exchange, turn.error, body, turn_index, stream, message_id);
    case "broken_stream": {
      exchange.record({ kind: "broken_stream" }, turn_index);
      if (!stream) return exchange.cut();
      const message = reply_message({ content: [{ type: "text", text: "" }] }, reply_context(body), message_id);
      return exchange.stream(broken_stream_events(message).map(sse), { cut: true });
    }
  }
}

function play_error(exchange: Exchange, error: ScriptedError, body: MessagesRequestBody, turn_index: number, stream: boolean, message_id: string): void {
  const type = error.type ?? DEFAULT_ERROR_TYPES[error.status];
  const message = error.message ?? `scripted ${type}`;
  const in_stream = stream && error.in_stream === true;
  exchange.record({ kind: "error", status: error.status, type, in_stream }, turn_index);
  if (in_stream) {
    const start = message_start_events(reply_message({ content: [{ type: "text", text: "" }] }, reply_context(body), message_id));
    return exchange.stream([...start, { event: "error", data: error_body("anthropic_messages", { type, message }) }].map(sse));
  }
  const headers: Record<string, string> = error.retry_after_s === undefined ? {} : { "retry-after": String(error.retry_after_s) };
  exchange.json(error.status, error_body("anthropic_messages", { type, message }), headers);
}

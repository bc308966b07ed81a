import type OpenAI from "openai";
import type * as v from "valibot";
import type { CanonicalMessage, ContentBlock, ModelRequest, SystemBlock } from "../../contracts/provider.js";
import type { ToolNameMap } from "../tool-names.js";
import { block_as, drop_block, image_url_of, ImageBlock, note_block_extras, TextBlock, ToolResultBlock, ToolUseBlock } from "./blocks.js";
import type { ConversionLosses } from "./report.js";

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;
type TextPart = OpenAI.Chat.Completions.ChatCompletionContentPartText;
type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

/** How the adapter's settings shape the body beyond the request itself. */
export type ChatSettings = {
  readonly model_id: string;
  /** OpenAI's own API wants `max_completion_tokens` (its reasoning models reject `max_tokens`); compatible servers know `max_tokens`. */
  readonly max_tokens_field: "max_tokens" | "max_completion_tokens";
  readonly default_max_tokens: number | undefined;
};

/** Prepended to a tool result that reports a failure: Chat Completions tool messages have no error flag. */
const TOOL_ERROR_PREFIX = "[tool error] ";

/**
 * A canonical request as a streamed Chat Completions body. What the format cannot carry is left out and
 * recorded in `losses`; nothing is dropped without an entry there. The conversion is deterministic, so
 * equal canonical prefixes give equal wire prefixes (the provider's prompt cache depends on it).
 */
export function to_chat_params(request: ModelRequest, names: ToolNameMap, settings: ChatSettings, losses: ConversionLosses): Params {
  const messages: MessageParam[] = [];
  const system = system_text(request.system, losses);
  if (system !== "") messages.push({ role: "system", content: system });
  for (const message of request.messages) messages.push(...to_messages(message, names, losses));

  const params: Params = { model: settings.model_id, messages, stream: true, stream_options: { include_usage: true } };
  const max_tokens = request.max_tokens ?? settings.default_max_tokens;
  if (max_tokens !== undefined) params[settings.max_tokens_field] = max_tokens;
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: names.to_wire(tool.name), description: tool.description, parameters: tool.input_schema },
    }));
  }
  return params;
}

/** The system prompt as one text: its blocks joined by a blank line, their cache breakpoints reported. */
function system_text(system: ModelRequest["system"], losses: ConversionLosses): string {
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  for (const block of system) note_block_extras(block as SystemBlock & ContentBlock, losses);
  return system.map((block) => block.text).join("\n\n");
}

function to_messages(message: CanonicalMessage, names: ToolNameMap, losses: ConversionLosses): MessageParam[] {
  if (typeof message.content === "string") return [{ role: message.role, content: message.content }];
  if (message.role === "user") return user_messages(message.content, losses);
  const assistant = assistant_message(message.content, names, losses);
  return assistant === undefined ? [] : [assistant];
}

/**
 * A user turn: its tool results become `tool` messages, which must directly follow the assistant message
 * that called the tools, then the rest of the turn (text, images) one user message.
 */
function user_messages(blocks: readonly ContentBlock[], losses: ConversionLosses): MessageParam[] {
  const tool_messages: MessageParam[] = [];
  const parts: UserPart[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      note_block_extras(block, losses);
      const result = block_as(ToolResultBlock, block);
      tool_messages.push({ role: "tool", tool_call_id: result.tool_use_id, content: tool_result_text(result, losses) });
    } else if (block.type === "text") {
      note_block_extras(block, losses);
      parts.push({ type: "text", text: block_as(TextBlock, block).text });
    } else if (block.type === "image") {
      const url = image_url_of(block_as(ImageBlock, block));
      if (url === undefined) drop_block(block, losses);
      else {
        note_block_extras(block, losses);
        parts.push({ type: "image_url", image_url: { url } });
      }
    } else {
      drop_block(block, losses);
    }
  }
  if (parts.length === 0) return tool_messages;
  const only = parts.length === 1 ? parts[0] : undefined;
  return [...tool_messages, { role: "user", content: only?.type === "text" ? only.text : parts }];
}

function tool_result_text(result: v.InferOutput<typeof ToolResultBlock>, losses: ConversionLosses): string {
  const texts: string[] = [];
  if (typeof result.content === "string") texts.push(result.content);
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block.type === "text") {
      note_block_extras(block, losses);
      texts.push(block_as(TextBlock, block).text);
    } else {
      // A tool message carries text only; an image a tool returned cannot ride along.
      drop_block(block, losses, "inside a tool result");
    }
  }
  const text = texts.join("\n\n");
  return result.is_error === true ? `${TOOL_ERROR_PREFIX}${text}` : text;
}

function assistant_message(blocks: readonly ContentBlock[], names: ToolNameMap, losses: ConversionLosses): MessageParam | undefined {
  const texts: TextPart[] = [];
  const tool_calls: ToolCall[] = [];
  for (const block of blocks) {
    if (block.type === "text") {
      note_block_extras(block, losses);
      texts.push({ type: "text", text: block_as(TextBlock, block).text });
    } else if (block.type === "tool_use") {
      note_block_extras(block, losses);
      const call = block_as(ToolUseBlock, block);
      tool_calls.push({ id: call.id, type: "function", function: { name: names.to_wire(call.name), arguments: JSON.stringify(call.input ?? {}) } });
    } else {
      drop_block(block, losses);
    }
  }
  if (texts.length === 0 && tool_calls.length === 0) return undefined;
  // Several text blocks stay several parts, so their boundaries survive; one is sent as a plain string.
  // biome-ignore lint/style/noNonNullAssertion: texts[0] exists where texts.length is 1
  const content = texts.length === 0 ? null : texts.length === 1 ? texts[0]!.text : texts;
  return tool_calls.length === 0 ? { role: "assistant", content } : { role: "assistant", content, tool_calls };
}

import * as v from "valibot";
import { WIRE_TOOL_NAME } from "../tool-names.js";

const Block = v.looseObject({ type: v.pipe(v.string(), v.minLength(1)) });
type Block = v.InferOutput<typeof Block>;

/**
 * The part of a Messages API request body the scripted server checks, as strictly as the real API does
 * where it matters to us: a request the real API would reject must not pass here either.
 */
export const MessagesRequestBody = v.looseObject({
  model: v.pipe(v.string(), v.minLength(1)),
  max_tokens: v.pipe(v.number(), v.integer(), v.minValue(1)),
  messages: v.pipe(
    v.array(v.looseObject({ role: v.picklist(["user", "assistant"]), content: v.union([v.string(), v.array(Block)]) })),
    v.minLength(1),
  ),
  system: v.optional(v.union([v.string(), v.array(v.looseObject({ type: v.literal("text"), text: v.string() }))])),
  tools: v.optional(v.array(v.looseObject({
    name: v.pipe(v.string(), v.regex(WIRE_TOOL_NAME, "tool names must match ^[a-zA-Z0-9_-]{1,128}$")),
  }))),
  stream: v.optional(v.boolean()),
});
export type MessagesRequestBody = v.InferOutput<typeof MessagesRequestBody>;

export const CountTokensRequestBody = v.looseObject({
  model: v.pipe(v.string(), v.minLength(1)),
  messages: MessagesRequestBody.entries.messages,
});

function text_of_blocks(blocks: readonly Block[]): string {
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("\n");
}

export function system_text(body: MessagesRequestBody): string {
  if (body.system === undefined) return "";
  return typeof body.system === "string" ? body.system : body.system.map((block) => block.text).join("\n");
}

function last_user_message(body: MessagesRequestBody) {
  return body.messages.findLast((message) => message.role === "user");
}

/** The text of the last user message (its text blocks; tool results are not user text). */
export function last_user_text(body: MessagesRequestBody): string {
  const message = last_user_message(body);
  if (message === undefined) return "";
  return typeof message.content === "string" ? message.content : text_of_blocks(message.content);
}

/** The tool results of the last user message, each as text. */
export function last_tool_results(body: MessagesRequestBody): string[] {
  const message = last_user_message(body);
  if (message === undefined || typeof message.content === "string") return [];
  return message.content
    .filter((block) => block.type === "tool_result")
    .map((block) => {
      const content = block.content;
      if (typeof content === "string") return content;
      if (Array.isArray(content)) return text_of_blocks(content as Block[]);
      return "";
    });
}

export function offered_tools(body: MessagesRequestBody): string[] {
  return (body.tools ?? []).map((tool) => tool.name);
}

/** A rough token count (4 characters a token): enough for usage figures that grow with the prompt. */
export function estimate_tokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}

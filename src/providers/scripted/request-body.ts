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
  messages: v.pipe(v.array(v.looseObject({ role: v.picklist(["user", "assistant"]), content: v.union([v.string(), v.array(Block)]) })), v.minLength(1)),
  system: v.optional(v.union([v.string(), v.array(v.looseObject({ type: v.literal("text"), text: v.string() }))])),
  tools: v.optional(
    v.array(
      v.looseObject({
        name: v.pipe(v.string(), v.regex(WIRE_TOOL_NAME, "tool names must match ^[a-zA-Z0-9_-]{1,128}$")),
      }),
    ),
  ),
  stream: v.optional(v.boolean()),
});
export type MessagesRequestBody = v.InferOutput<typeof MessagesRequestBody>;

export const CountTokensRequestBody = v.looseObject({
  model: v.pipe(v.string(), v.minLength(1)),
  messages: MessagesRequestBody.entries.messages,
});

/** What a turn's expectations look at, whichever API the request came in on. */
export type RequestView = {
  /** The system prompt as text. */
  readonly system: string;
  /** The text of the last user turn (tool results are not user text). */
  readonly last_user_text: string;
  /** The text of the conversation's first user message: an executor's task instruction. */
  readonly first_user_text: string;
  /** The tool results of the last user turn, each as text. */
  readonly tool_results: readonly string[];
  /** The tool names offered, in their wire form. */
  readonly tools: readonly string[];
};

function text_of_blocks(blocks: readonly Block[]): string {
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("\n");
}

function system_text(body: MessagesRequestBody): string {
  if (body.system === undefined) return "";
  return typeof body.system === "string" ? body.system : body.system.map((block) => block.text).join("\n");
}

function tool_result_text(block: Block): string {
  const content = block.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return text_of_blocks(content as Block[]);
  return "";
}

function user_text(message: MessagesRequestBody["messages"][number] | undefined): string {
  if (message === undefined) return "";
  return typeof message.content === "string" ? message.content : text_of_blocks(message.content);
}

export function messages_view(body: MessagesRequestBody): RequestView {
  const last_user = body.messages.findLast((message) => message.role === "user");
  const blocks = last_user === undefined || typeof last_user.content === "string" ? [] : last_user.content;
  return {
    system: system_text(body),
    last_user_text: user_text(last_user),
    first_user_text: user_text(body.messages.find((message) => message.role === "user")),
    tool_results: blocks.filter((block) => block.type === "tool_result").map(tool_result_text),
    tools: (body.tools ?? []).map((tool) => tool.name),
  };
}

/** A rough token count (4 characters a token): enough for usage figures that grow with the prompt. */
export function estimate_tokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}

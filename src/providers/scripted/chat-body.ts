import * as v from "valibot";
import type { RequestView } from "./request-body.js";

/** What the OpenAI API accepts as a function name (shorter than Anthropic's limit). */
const OPENAI_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const NonEmpty = v.pipe(v.string(), v.minLength(1));
const TextPart = v.looseObject({ type: v.literal("text"), text: v.string() });
const UserPart = v.variant("type", [
  TextPart,
  v.looseObject({ type: v.literal("image_url"), image_url: v.looseObject({ url: NonEmpty }) }),
  v.looseObject({ type: v.literal("input_audio"), input_audio: v.looseObject({}) }),
  v.looseObject({ type: v.literal("file"), file: v.looseObject({}) }),
]);
const AssistantPart = v.variant("type", [TextPart, v.looseObject({ type: v.literal("refusal"), refusal: v.string() })]);
const ToolCall = v.looseObject({
  id: NonEmpty,
  type: v.literal("function"),
  function: v.looseObject({
    name: v.pipe(v.string(), v.regex(OPENAI_FUNCTION_NAME, "function names must match ^[a-zA-Z0-9_-]{1,64}$")),
    arguments: v.string(),
  }),
});

const ChatMessage = v.variant("role", [
  v.looseObject({ role: v.picklist(["system", "developer"]), content: v.union([v.string(), v.array(TextPart)]) }),
  v.looseObject({ role: v.literal("user"), content: v.union([v.string(), v.pipe(v.array(UserPart), v.minLength(1))]) }),
  v.looseObject({
    role: v.literal("assistant"),
    content: v.optional(v.nullable(v.union([v.string(), v.array(AssistantPart)]))),
    tool_calls: v.optional(v.array(ToolCall)),
  }),
  v.looseObject({ role: v.literal("tool"), tool_call_id: NonEmpty, content: v.union([v.string(), v.array(TextPart)]) }),
]);
type ChatMessage = v.InferOutput<typeof ChatMessage>;

const MaxTokens = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)));

/**
 * The part of a Chat Completions request body the scripted server checks, as strictly as the OpenAI API
 * does where a conversion bug would show: message shapes, function names, and every tool call answered
 * by a tool message before the conversation goes on.
 */
export const ChatRequestBody = v.pipe(
  v.looseObject({
    model: NonEmpty,
    messages: v.pipe(v.array(ChatMessage), v.minLength(1)),
    tools: v.optional(
      v.array(
        v.looseObject({
          type: v.literal("function"),
          function: v.looseObject({
            name: ToolCall.entries.function.entries.name,
            description: v.optional(v.string()),
            parameters: v.optional(v.looseObject({})),
          }),
        }),
      ),
    ),
    stream: v.optional(v.nullable(v.boolean())),
    stream_options: v.optional(v.nullable(v.looseObject({ include_usage: v.optional(v.boolean()) }))),
    max_tokens: MaxTokens,
    max_completion_tokens: MaxTokens,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const problem of tool_sequence_problems(dataset.value.messages)) addIssue({ message: problem });
  }),
);
export type ChatRequestBody = v.InferOutput<typeof ChatRequestBody>;

/** The OpenAI API's rule: tool messages answer the tool calls of the assistant message right before them, all of them. */
function tool_sequence_problems(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let open: Set<string> | undefined;
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      if (open === undefined || !open.delete(message.tool_call_id)) {
        problems.push(`messages[${index}]: a tool message must answer a tool call of the assistant message before it (tool_call_id ${message.tool_call_id})`);
      }
      return;
    }
    if (open !== undefined && open.size > 0) {
      problems.push(`messages[${index}]: the tool calls ${[...open].join(", ")} were not answered by tool messages`);
    }
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    open = calls.length > 0 ? new Set(calls.map((call) => call.id)) : undefined;
  });
  if (open !== undefined && open.size > 0) problems.push(`the tool calls ${[...open].join(", ")} of the last assistant message were not answered`);
  return problems;
}

function text_of(content: string | readonly { type: string; text?: unknown }[] | null | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : "")).join("\n");
}

/**
 * The request as expectations see it. The last user turn is the run of user and tool messages at the
 * end, what the Messages API sends as one user message of tool results and text.
 */
export function chat_view(body: ChatRequestBody): RequestView {
  const messages = body.messages;
  let start = messages.findLastIndex((message) => message.role === "user" || message.role === "tool");
  while (start > 0 && (messages[start - 1]?.role === "user" || messages[start - 1]?.role === "tool")) start -= 1;
  const turn = start < 0 ? [] : messages.slice(start).filter((message) => message.role === "user" || message.role === "tool");
  return {
    system: messages
      .filter((message) => message.role === "system" || message.role === "developer")
      .map((message) => text_of(message.content))
      .join("\n"),
    last_user_text: turn
      .filter((message) => message.role === "user")
      .map((message) => text_of(message.content))
      .join("\n"),
    first_user_text: text_of(messages.find((message) => message.role === "user")?.content),
    tool_results: turn.filter((message) => message.role === "tool").map((message) => text_of(message.content)),
    tools: (body.tools ?? []).map((tool) => tool.function.name),
  };
}

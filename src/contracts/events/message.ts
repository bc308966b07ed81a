import * as v from "valibot";
import { AirError } from "../errors.js";
import { AgentId, ArtifactId, MessageId, TaskId } from "../ids.js";
import { durable, ephemeral } from "./define.js";
import { CanonicalContent, Count, NonEmpty } from "./common.js";

export const MessageRole = v.picklist(["user", "assistant"]);
export type MessageRole = v.InferOutput<typeof MessageRole>;

export const TokenUsage = v.strictObject({
  input_tokens: Count,
  output_tokens: Count,
  cache_creation_input_tokens: v.optional(Count),
  cache_read_input_tokens: v.optional(Count),
});
export type TokenUsage = v.InferOutput<typeof TokenUsage>;

const authorship = {
  task_id: v.optional(TaskId),
  agent_id: v.optional(AgentId),
};

export const message_events = {
  "user.message.created": durable(
    v.strictObject({ message_id: MessageId, content: CanonicalContent, ...authorship }),
    "A user-role message: the user's words, or (with task/agent) what a worker's conversation sends its model — the task prompt, tool results; inserts messages.",
  ),
  "assistant.message.started": durable(
    v.strictObject({ message_id: MessageId, model_id: v.optional(NonEmpty), ...authorship }),
    "An assistant message began streaming; upserts message_drafts (streaming) so a crash keeps the partial text.",
  ),
  "assistant.message.created": durable(
    v.strictObject({
      message_id: MessageId,
      content: CanonicalContent,
      model_id: v.optional(NonEmpty),
      stop_reason: v.optional(NonEmpty),
      usage: v.optional(TokenUsage),
      ...authorship,
    }),
    "An assistant message is final; inserts messages and deletes its draft.",
  ),
  "assistant.message.failed": durable(
    v.strictObject({
      message_id: MessageId,
      error: AirError,
      partial_content: v.optional(CanonicalContent),
      failure_artifact_id: v.optional(ArtifactId),
      ...authorship,
    }),
    "Streaming failed; marks the draft error and keeps what had arrived.",
  ),
  "assistant.message.delta": ephemeral(v.strictObject({ message_id: MessageId, text: v.string() }), "Streamed assistant text.", {
    mode: "append",
    key: "message_id",
    text: "text",
  }),
  "token.delta": ephemeral(
    v.strictObject({ request_id: NonEmpty, agent_id: v.optional(AgentId), text: v.string() }),
    "Raw model tokens of one provider request (a worker's model call), before they form a message.",
    { mode: "append", key: "request_id", text: "text" },
  ),
} as const;

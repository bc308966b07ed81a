import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { SessionPrompts } from "../../context/session-prompts.js";
import type { TaskBudget } from "../../contracts/budget.js";
import { air_failure } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import type { ModelRequest, ModelResponse } from "../../contracts/provider.js";
import { TaskSpec } from "../../contracts/task.js";
import type { ToolSchema } from "../../contracts/tool.js";
import type { Classification, UserRequest } from "../../machines/main-agent.js";

const Line = v.pipe(v.string(), v.minLength(1));

/** What the model must answer through the `classify_request` tool: untrusted until it parses. */
const ClassificationReply = v.variant("intent", [
  v.strictObject({ intent: v.literal("chat"), answer: Line }),
  v.strictObject({
    intent: v.literal("task"),
    title: v.pipe(Line, v.maxLength(200)),
    description: Line,
    acceptance_criteria: v.array(Line),
    verification_commands: v.array(Line),
    write_area: v.optional(v.array(Line)),
  }),
]);
const CLASSIFY_TOOL = "classify_request";

export type TaskDefaults = { max_turns: number; soft_timeout_ms: number; hard_timeout_ms: number; retry_budget: number; budget?: TaskBudget };

const CLASSIFY_TOOL_SCHEMA: ToolSchema = {
  name: CLASSIFY_TOOL,
  description: "Record whether the message is a question (chat) or work on the project (task).",
  input_schema: toJsonSchema(ClassificationReply) as Record<string, unknown>,
};

/**
 * The classification request: the Main Agent's stable layers (L0, its role prompt `prompts/roles/main.md`,
 * the permission mode, the project rules) with their cache breakpoint, then the user's message.
 */
export function classification_request(request: UserRequest, prompts: Pick<SessionPrompts, "assemble_main">): ModelRequest {
  const conversation = [{ id: request.message_id, message: { role: "user" as const, content: request.text } }];
  return prompts.assemble_main("classification", conversation, [CLASSIFY_TOOL_SCHEMA]).request;
}

function reply_of(response: ModelResponse): unknown {
  const call = response.content.find((block) => block.type === "tool_use" && block.name === CLASSIFY_TOOL);
  if (call !== undefined) return call.input;
  const text = response.content
    .filter((block) => block.type === "text")
    .map((block) => String(block.text ?? ""))
    .join("")
    .trim();
  // A model that answers in prose instead of calling the tool has answered a question.
  return text === "" ? undefined : { intent: "chat", answer: text };
}

/** The model's classification as a `Classification`, with a task request turned into one TaskSpec. */
export function parse_classification(response: ModelResponse, defaults: TaskDefaults): Classification {
  const parsed = v.safeParse(ClassificationReply, reply_of(response));
  if (!parsed.success) {
    throw air_failure({
      kind: "provider_error",
      message: `the model's classification does not fit its schema: ${v.summarize(parsed.issues)}`,
      retryability: "retryable",
      user_action: "Retry; if the model keeps answering out of schema, choose a more capable model.",
    });
  }
  const reply = parsed.output;
  if (reply.intent === "chat") return { intent: "chat", answer: reply.answer };
  const commands = reply.verification_commands;
  const spec = v.parse(TaskSpec, {
    id: new_id("task"),
    type: "execute",
    title: reply.title,
    description: reply.description,
    acceptance_criteria: reply.acceptance_criteria,
    scope: reply.write_area === undefined ? {} : { write_area: reply.write_area },
    dependencies: { hard: [], soft: [] },
    verification: { commands, required: commands.length > 0, fallback_allowed: commands.length === 0 },
    constraints: { ...defaults, model_policy: "agent_select" },
    context_refs: {},
    output_contract: "ExecutorResult",
  });
  return { intent: "task", spec };
}

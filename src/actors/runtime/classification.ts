import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { ConversationEntry } from "../../context/conversation.js";
import type { SessionPrompts } from "../../context/session-prompts.js";
import { air_failure, AirFailure } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import type { ContentBlock, ModelRequest, ModelResponse } from "../../contracts/provider.js";
import type { ToolSchema } from "../../contracts/tool.js";
import { VerificationTool } from "../../contracts/task.js";
import { WriteArea } from "../../contracts/write-area.js";
import type { Classification, UserRequest } from "../../machines/main-agent.js";
import { PlanReply } from "../../orchestration/plan/plan-reply.js";
import { execute_task_spec, type TaskDefaults } from "../../orchestration/plan/task-spec.js";
import { PLAN_REFUSED, validate_plan } from "../../orchestration/plan/validate-plan.js";

const Line = v.pipe(v.string(), v.minLength(1));

const ChatReply = v.strictObject({ intent: v.literal("chat"), answer: Line });

/** The single-task answer of before plans: a plan of one task, whose write area may be left to the worker. */
const TaskReply = v.strictObject({
  intent: v.literal("task"),
  title: v.pipe(Line, v.maxLength(200)),
  description: Line,
  acceptance_criteria: v.array(Line),
  verification_commands: v.array(Line),
  verification_tools: v.optional(v.array(VerificationTool), []),
  write_area: v.optional(WriteArea),
  touches_architecture: v.optional(v.boolean()),
});

/** What the model must answer through the `classify_request` tool: untrusted until it parses. */
const ClassificationReply = v.variant("intent", [ChatReply, TaskReply, PlanReply]);
const CLASSIFY_TOOL = "classify_request";

const CLASSIFY_TOOL_SCHEMA: ToolSchema = {
  name: CLASSIFY_TOOL,
  description:
    "Record whether the message is a question (chat) or work on the project: one task, or a plan of tasks, each with its own " +
    "write area (globs inside the project) and its hard and soft dependencies on other tasks of the plan by key.",
  // The checks a glob must pass (no `..`, not in .git) have no JSON Schema form; the model is told of a breach instead.
  input_schema: toJsonSchema(ClassificationReply, { errorMode: "ignore" }) as Record<string, unknown>,
};

export type ClassifyDependencies = {
  readonly complete: (request: ModelRequest) => Promise<ModelResponse>;
  readonly prompts: Pick<SessionPrompts, "assemble_main">;
  readonly task_defaults: TaskDefaults;
  /** The conversation up to the user's message (what was said before it in the session); the message alone without it. */
  readonly history?: (message: ConversationEntry) => ConversationEntry[];
};

/**
 * The classification request: the Main Agent's stable layers (L0, its role prompt `prompts/roles/main.md`,
 * the permission mode, the project rules) with their cache breakpoint, then the conversation — what was said
 * before, the user's message, and after a refused plan the model's answer and the reason it was refused.
 */
function classification_request(request: UserRequest, dependencies: ClassifyDependencies, retry: readonly ConversationEntry[] = []): ModelRequest {
  const message: ConversationEntry = { id: request.message_id, message: { role: "user", content: request.text } };
  const conversation = [...(dependencies.history?.(message) ?? [message]), ...retry];
  return dependencies.prompts.assemble_main("classification", conversation, [CLASSIFY_TOOL_SCHEMA]).request;
}

const classify_call = (response: ModelResponse): ContentBlock | undefined =>
  response.content.find((block) => block.type === "tool_use" && block.name === CLASSIFY_TOOL);

function reply_of(response: ModelResponse): unknown {
  const call = classify_call(response);
  if (call !== undefined) return call.input;
  const text = response.content
    .filter((block) => block.type === "text")
    .map((block) => String(block.text ?? ""))
    .join("")
    .trim();
  // A model that answers in prose instead of calling the tool has answered a question.
  return text === "" ? undefined : { intent: "chat", answer: text };
}

const touches_architecture = (reply: unknown) =>
  typeof reply === "object" && reply !== null && "touches_architecture" in reply && reply.touches_architecture === true;
const is_plan = (reply: unknown) => typeof reply === "object" && reply !== null && "intent" in reply && reply.intent === "plan";

/**
 * The model's classification as a `Classification`: a plan goes through `validate_plan` (its failure names
 * the plan's problem), a single task becomes a plan of one.
 */
function parse_classification(response: ModelResponse, defaults: TaskDefaults): Classification {
  const raw = reply_of(response);
  if (is_plan(raw)) return { intent: "plan", tasks: validate_plan(raw, defaults), touches_architecture: touches_architecture(raw) };
  const parsed = v.safeParse(v.variant("intent", [ChatReply, TaskReply]), raw);
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
  const spec = execute_task_spec(
    {
      id: new_id("task"),
      title: reply.title,
      description: reply.description,
      acceptance_criteria: reply.acceptance_criteria,
      verification_commands: reply.verification_commands,
      verification_tools: reply.verification_tools,
      scope: reply.write_area === undefined ? {} : { write_area: reply.write_area },
      dependencies: { hard: [], soft: [] },
    },
    defaults,
  );
  return { intent: "plan", tasks: [spec], touches_architecture: reply.touches_architecture === true };
}

const refused_plan = (error: unknown): error is AirFailure => error instanceof AirFailure && error.error.metadata?.reason === PLAN_REFUSED;

/** The model's refused answer and, as the result of its tool call, why it was refused. */
function refusal_turn(response: ModelResponse, error: AirFailure): ConversationEntry[] | undefined {
  const call = classify_call(response);
  if (typeof call?.id !== "string") return undefined;
  const result = { type: "tool_result", tool_use_id: call.id, is_error: true, content: `${error.message}. Call ${CLASSIFY_TOOL} again with a corrected plan.` };
  return [
    { id: new_id("message"), message: { role: "assistant", content: response.content } },
    { id: new_id("message"), message: { role: "user", content: [result] } },
  ];
}

/**
 * Classifies a user message. A refused plan goes back to the model once, with the reason as the result of
 * its tool call; a second refusal is the request's error.
 */
export async function classify(request: UserRequest, dependencies: ClassifyDependencies): Promise<Classification> {
  const first = await dependencies.complete(classification_request(request, dependencies));
  try {
    return parse_classification(first, dependencies.task_defaults);
  } catch (error) {
    const retry = refused_plan(error) ? refusal_turn(first, error) : undefined;
    if (retry === undefined) throw error;
    const second = await dependencies.complete(classification_request(request, dependencies, retry));
    return parse_classification(second, dependencies.task_defaults);
  }
}

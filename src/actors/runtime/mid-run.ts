import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { SessionPrompts } from "../../context/session-prompts.js";
import { air_failure } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import type { ModelRequest, ModelResponse } from "../../contracts/provider.js";
import type { ToolSchema } from "../../contracts/tool.js";
import { tasks } from "../../db/schema.js";
import type { UserRequest } from "../../machines/main-agent.js";
import type { ChangeClassification, MidRunTriage, RequirementChange, TaskRevision } from "../../machines/requirement-change.js";
import { PlannedTask } from "../../orchestration/plan/plan-reply.js";
import { validate_plan } from "../../orchestration/plan/validate-plan.js";
import type { TaskDefaults } from "../../orchestration/plan/task-spec.js";
import type { Session } from "../../project/session-manager.js";
import { emitter } from "./emit.js";

const emit = emitter("main");
const Line = v.pipe(v.string(), v.trim(), v.minLength(1));

const TRIAGE_TOOL = "triage_message";
const CLASSIFY_CHANGE_TOOL = "classify_change";
/** The heading of the running plan's state in a mid-run request: the model answers from it, never from memory. */
const PLAN_STATE_HEADING = "# The plan as it runs";

const TriageReply = v.variant("kind", [
  v.strictObject({ kind: v.literal("question"), answer: Line }),
  v.strictObject({ kind: v.literal("requirement_change"), summary: Line }),
]);

/** A task of the running plan, named by its id or its exact title (the model sees both). */
const Revision = v.strictObject({ task: Line, description: Line, acceptance_criteria: v.optional(v.array(Line), []) });
const ChangeReply = v.variant("level", [
  v.strictObject({ level: v.literal("implementation"), summary: Line, revise: v.array(Revision) }),
  v.strictObject({
    level: v.literal("design"),
    summary: Line,
    cancel: v.optional(v.array(Line), []),
    revise: v.optional(v.array(Revision), []),
    add: v.optional(v.array(PlannedTask), []),
  }),
]);

const tool = (name: string, description: string, schema: v.GenericSchema): ToolSchema => ({
  name,
  description,
  input_schema: toJsonSchema(schema, { errorMode: "ignore" }) as Record<string, unknown>,
});
const TRIAGE_SCHEMA = tool(
  TRIAGE_TOOL,
  "While the plan runs: answer a question about it from the plan's state (kind question), or record that the user changed the requirement (kind requirement_change, with a one-line summary).",
  TriageReply,
);
const CHANGE_SCHEMA = tool(
  CLASSIFY_CHANGE_TOOL,
  "Classify a requirement change against the running plan: implementation (only what pending tasks do changes: revise them) or design (cancel tasks, revise pending ones, add new tasks of the plan's form).",
  ChangeReply,
);

export type MidRunDependencies = {
  readonly complete: (request: ModelRequest) => Promise<ModelResponse>;
  readonly prompts: Pick<SessionPrompts, "assemble_main">;
  readonly task_defaults: TaskDefaults;
};

const WithSummary = v.object({ summary: v.string() });

/** The task graph from rows: each task's id, title, status, and the worker's summary once it reported. */
function plan_state(session: Session): string {
  const rows = session.connection.db
    .select({ id: tasks.id, title: tasks.title, status: tasks.status, type: tasks.type, result: tasks.worker_result_json })
    .from(tasks)
    .all()
    .filter((row) => row.type !== "compact");
  const lines = rows.map((row) => {
    const result = row.result === null ? undefined : v.safeParse(WithSummary, JSON.parse(row.result));
    const summary = result?.success === true ? ` — ${result.output.summary}` : "";
    return `- ${row.id} "${row.title}": ${row.status}${summary}`;
  });
  return [PLAN_STATE_HEADING, ...lines].join("\n");
}

/** One tool call of the Main Agent, parsed: a reply out of schema is the model's error, said as such. */
async function call_tool<S extends v.GenericSchema>(
  dependencies: MidRunDependencies,
  purpose: ModelRequest["purpose"],
  text: string,
  schema: ToolSchema,
  reply: S,
) {
  const conversation = [{ id: new_id("message"), message: { role: "user" as const, content: text } }];
  const response = await dependencies.complete(dependencies.prompts.assemble_main(purpose, conversation, [schema]).request);
  const call = response.content.find((block) => block.type === "tool_use" && block.name === schema.name);
  const parsed = v.safeParse(reply, call?.input);
  if (parsed.success) return parsed.output;
  throw air_failure({
    kind: "provider_error",
    message: `the model's ${schema.name} answer does not fit its schema${call === undefined ? ": it did not call the tool" : `: ${v.summarize(parsed.issues)}`}`,
    retryability: "retryable",
    user_action: "Send the message again; if the model keeps answering out of schema, choose a more capable model.",
  });
}

/**
 * A message while the plan runs, with the plan's state read from rows: a question is answered from it; a
 * requirement change is recorded (`requirement.changed`) before the Main Agent weighs it.
 */
export async function triage(session: Session, request: UserRequest, dependencies: MidRunDependencies): Promise<MidRunTriage> {
  const text = `${plan_state(session)}\n\n# The user's message while the plan runs\n${request.text}`;
  const reply = await call_tool(dependencies, "answer", text, TRIAGE_SCHEMA, TriageReply);
  if (reply.kind === "requirement_change") emit(session, "requirement.changed", { requirement_id: new_id("requirement"), description: request.text });
  return reply;
}

/** Finds a task of the plan by its id, else by its exact title; a name that fits none is the model's error. */
function task_named(session: Session, name: string): string {
  const rows = session.connection.db.select({ id: tasks.id, title: tasks.title }).from(tasks).all();
  const found = rows.find((row) => row.id === name) ?? rows.find((row) => row.title === name);
  if (found !== undefined) return found.id;
  throw air_failure({
    kind: "provider_error",
    message: `the model's change names no task of the plan: "${name}"`,
    retryability: "retryable",
    user_action: "Send the change again, naming the tasks as the plan shows them.",
  });
}

const revision_of = (session: Session, revision: v.InferOutput<typeof Revision>): TaskRevision => ({
  task_id: task_named(session, revision.task),
  description: revision.description,
  acceptance_criteria: revision.acceptance_criteria,
});

/** Implementation-level or design-level (seeds 000 §20.1 INTERRUPTING), against the plan's state from rows. */
export async function classify_change(session: Session, change: RequirementChange, dependencies: MidRunDependencies): Promise<ChangeClassification> {
  const named = change.task_ids.length === 0 ? "" : `\n\nThe tasks concerned: ${change.task_ids.join(", ")}.`;
  const text = `${plan_state(session)}\n\n# A requirement change while the plan runs\n${change.text}${named}`;
  const reply = await call_tool(dependencies, "classification", text, CHANGE_SCHEMA, ChangeReply);
  const revise = reply.revise.map((revision) => revision_of(session, revision));
  if (reply.level === "implementation") return { level: "implementation", summary: reply.summary, revise };
  const add = reply.add.length === 0 ? [] : validate_plan({ intent: "plan", tasks: reply.add }, dependencies.task_defaults);
  return { level: "design", summary: reply.summary, cancel: reply.cancel.map((name) => task_named(session, name)), revise, add };
}

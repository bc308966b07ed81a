import fs from "node:fs";
import path from "node:path";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { ContextAssembler } from "../context/assembler.js";
import { token_budget_of, DEFAULT_CONTEXT_WINDOW } from "../context/budget.js";
import type { ConversationEntry } from "../context/conversation.js";
import { safety_layer } from "../context/layers.js";
import { PromptLayerLoader } from "../context/prompt-loader.js";
import { architecture_layers } from "../context/task-layers.js";
import { ArchitectureImpact, type ArchitectureDesigner, type ImpactRequest } from "../contracts/architecture.js";
import { air_failure, AirFailure } from "../contracts/errors.js";
import type { PermissionMode } from "../contracts/events/permission.js";
import { new_id } from "../contracts/ids.js";
import type { PromptLayer } from "../contracts/prompt-layer.js";
import { ModelResponse, type ContentBlock, type ModelRequest } from "../contracts/provider.js";
import { MODEL_COMPLETE_TOOL, type ToolSchema } from "../contracts/tool.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";

/** The requester the designer's model calls carry: the scripted server's turns and the usage records know it so. */
const ARCHITECT_REQUESTER = "architect";

const SUBMIT_TOOL = "submit_impact";

const SUBMIT_TOOL_SCHEMA: ToolSchema = {
  name: SUBMIT_TOOL,
  description:
    "Record the architecture impact of the change: its result class, a summary, the tasks whose plan it invalidates " +
    "(ids from the request only), and optionally the new text of one plan document under .air/shared/plan/.",
  input_schema: toJsonSchema(ArchitectureImpact, { errorMode: "ignore" }) as Record<string, unknown>,
};

/** Longest diff put in the request; the designer weighs contracts, not every line of a large change. */
const CHANGE_MAX_CHARS = 48_000;

export type DesignerOptions = {
  readonly session: Session;
  /** Its one model call goes through the registry's `model.complete`: a recorded tool run, under the run's budget. */
  readonly registry: ToolRegistry;
  readonly mode: PermissionMode;
  readonly context_window?: number;
  readonly loader?: PromptLayerLoader;
};

/** L4: every document of `.air/shared/plan/`, by path (the designer weighs a change against the whole plan). */
function plan_pack(project_root: string, plan_dir: string): PromptLayer[] {
  let names: string[];
  try {
    names = fs.readdirSync(plan_dir, { recursive: true, encoding: "utf8" });
  } catch {
    return [];
  }
  return names
    .map((name) => name.split(path.sep).join("/"))
    .sort()
    .flatMap((name) => architecture_layers(project_root, { context_refs: { plan_ref: name } }));
}

function request_text(request: ImpactRequest): string {
  const change =
    request.change.length <= CHANGE_MAX_CHARS
      ? request.change
      : `${request.change.slice(0, CHANGE_MAX_CHARS)}\n… [cut: the change has ${request.change.length} characters]`;
  return [
    `# Architecture gate: ${request.summary}`,
    "## What set it off",
    ...request.triggers.map((trigger) => `- ${trigger.kind}: ${trigger.detail}`),
    "## Tasks it may touch",
    ...(request.task_ids.length === 0 ? ["(none)"] : request.task_ids.map((task_id) => `- ${task_id}`)),
    ...(request.evidence_refs.length === 0 ? [] : ["## Evidence", ...request.evidence_refs.map((ref) => `- ${ref.kind} ${ref.ref}`)]),
    "## The change",
    "```diff",
    change,
    "```",
  ].join("\n");
}

const submitted = (response: ModelResponse): ContentBlock | undefined =>
  response.content.find((block) => block.type === "tool_use" && block.name === SUBMIT_TOOL);

type Parsed = { ok: true; impact: ArchitectureImpact } | { ok: false; why: string };

/** The answer, checked against the schema and against the tasks the request named. */
function parse_answer(response: ModelResponse, request: ImpactRequest): Parsed {
  const call = submitted(response);
  if (call === undefined) return { ok: false, why: `the answer did not call ${SUBMIT_TOOL}` };
  const parsed = v.safeParse(ArchitectureImpact, call.input);
  if (!parsed.success) return { ok: false, why: `the ${SUBMIT_TOOL} input does not fit its schema: ${v.summarize(parsed.issues)}` };
  const unknown = parsed.output.impacted_task_ids.filter((task_id) => !request.task_ids.includes(task_id));
  if (unknown.length > 0) return { ok: false, why: `impacted_task_ids names tasks the request did not: ${unknown.join(", ")}` };
  return { ok: true, impact: parsed.output };
}

/** The refused answer and, as the result of its call (or a message when it called nothing), why it was refused. */
function correction_turn(response: ModelResponse, why: string): ConversationEntry[] {
  const call = submitted(response);
  const text = `${why}. Call ${SUBMIT_TOOL} again, corrected.`;
  const reply =
    typeof call?.id === "string"
      ? { role: "user" as const, content: [{ type: "tool_result", tool_use_id: call.id, is_error: true, content: text }] }
      : { role: "user" as const, content: text };
  return [
    { id: new_id("message"), message: { role: "assistant", content: response.content } },
    { id: new_id("message"), message: reply },
  ];
}

function out_of_schema(why: string) {
  return air_failure({
    kind: "architecture_error",
    message: `the Architecture Designer's answer was refused twice: ${why}`,
    retryability: "retryable",
    user_action: "Look at the change yourself and unblock the task (or retry it); if the model keeps answering out of schema, choose a more capable model.",
    metadata: { reason: "designer_out_of_schema" },
  });
}

/**
 * The Architecture Designer (seeds 000 §14.2) in the runtime process: one read-only assessment per change,
 * from the L4 plan pack and the change, answered through `submit_impact`; a refused answer gets one
 * correction turn, a second refusal is an `architecture_error`.
 */
class ModelArchitectureDesigner implements ArchitectureDesigner {
  readonly #options: DesignerOptions;
  readonly #loader: PromptLayerLoader;
  readonly #assembler: ContextAssembler;

  constructor(options: DesignerOptions) {
    this.#options = options;
    this.#loader = options.loader ?? new PromptLayerLoader();
    this.#assembler = new ContextAssembler({
      write_messages_artifact: (json) =>
        options.session.artifacts.create({
          type: "messages",
          content: json,
          mime_type: "application/json",
          extension: ".json",
          original_name: "architect-request",
        }).id,
    });
  }

  async assess(request: ImpactRequest, signal?: AbortSignal): Promise<ArchitectureImpact> {
    const opening: ConversationEntry = { id: new_id("message"), message: { role: "user", content: request_text(request) } };
    const first = await this.#complete([opening], signal);
    const answer = parse_answer(first, request);
    if (answer.ok) return answer.impact;
    const second = await this.#complete([opening, ...correction_turn(first, answer.why)], signal);
    const corrected = parse_answer(second, request);
    if (corrected.ok) return corrected.impact;
    throw out_of_schema(corrected.why);
  }

  #layers(): PromptLayer[] {
    const { session, mode } = this.#options;
    const root = session.project.layout.root;
    return [
      this.#loader.load_runtime_invariant(),
      this.#loader.load_role("architect"),
      safety_layer(mode),
      ...this.#loader.load_project_rules(root),
      ...plan_pack(root, session.project.layout.plan),
    ];
  }

  async #complete(conversation: readonly ConversationEntry[], signal: AbortSignal | undefined): Promise<ModelResponse> {
    const request: ModelRequest = this.#assembler.assemble({
      purpose: "classification",
      layers: this.#layers(),
      conversation,
      tools: [SUBMIT_TOOL_SCHEMA],
      token_budget: token_budget_of(this.#options.context_window ?? DEFAULT_CONTEXT_WINDOW),
    }).request;
    const { session, registry } = this.#options;
    const outcome = await registry.call(
      { tool_name: MODEL_COMPLETE_TOOL, input: request },
      { session, requester: ARCHITECT_REQUESTER, ...(signal === undefined ? {} : { signal }) },
    );
    if (!outcome.ok) throw new AirFailure(outcome.error);
    return v.parse(ModelResponse, outcome.output);
  }
}

/** The designer the runtime's architecture gate and the Main Agent share (one per session). */
export function make_architecture_designer(options: DesignerOptions): ArchitectureDesigner {
  return new ModelArchitectureDesigner(options);
}

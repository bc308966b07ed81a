import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { ContentBlock, ModelDelta } from "../../contracts/provider.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { ToolSchema } from "../../contracts/tool.js";
import { ReviewerResult, type WorkerResult, type WorkerStatus } from "../../contracts/worker-result.js";
import type { AgentContext } from "../../context/agent-context.js";
import { answer_tool_use, tool_uses_of, type ToolUse } from "../../context/model-turn.js";
import type { WorkerRuntime } from "../runtime.js";
import type { WorkerRole } from "./role.js";
import { guarded, role_context } from "./role-context.js";

/** The reviewer's one structured answer: served by the worker itself, never by the parent's registry. */
export const SUBMIT_REVIEW_TOOL = "submit_review";

const SUBMIT_REVIEW_SCHEMA: ToolSchema = {
  name: SUBMIT_REVIEW_TOOL,
  description:
    "Record your review and end it: the verdict (approved, changes_requested or rejected) and every finding, each " +
    "with severity P0–P3, confidence 0–1, category, file and line range where it applies, message and optional suggestion.",
  // A finding's line range check has no JSON Schema form; a breach is answered as a tool error instead.
  input_schema: toJsonSchema(ReviewerResult, { errorMode: "ignore" }) as Record<string, unknown>,
};

/** What a reviewer is asked first; the parent's instructions (the diff, the evidence) follow it. */
export function review_instruction(task: TaskSpec): string {
  return [
    `# Review: ${task.title}`,
    "",
    `Review the work done for the task "${task.title}" against its task specification, the project rules and the evidence below. ` +
      `You may read, never write. End by calling ${SUBMIT_REVIEW_TOOL} once with your verdict and findings.`,
  ].join("\n");
}

type Ending = "submitted" | "no_verdict" | "cancelled" | "error";

/**
 * The reviewer loop: model ↔ read-only tools until the model submits its review through `submit_review`, whose
 * input is checked against `ReviewerResult` (an invalid one is answered as a tool error, for the model to
 * correct). A model that ends its turn without a verdict is reminded once.
 */
class ReviewerRun {
  #review: ReviewerResult | undefined;
  #turns = 0;
  #failure: AirError | undefined;
  #reminded = false;

  constructor(
    private readonly task: TaskSpec,
    private readonly brief: AgentBrief,
    private readonly runtime: WorkerRuntime,
  ) {}

  async run(): Promise<WorkerResult> {
    const ending = await guarded(
      this.runtime,
      () => this.#loop(),
      (failure) => {
        this.#failure = failure;
      },
    );
    return this.#result(ending);
  }

  async #loop(): Promise<Ending> {
    const context = role_context(this.task, this.brief, this.runtime, "task_execution", [...this.brief.tools, SUBMIT_REVIEW_SCHEMA]);
    const extra = this.brief.instructions;
    context.add_user(extra === undefined || extra === "" ? review_instruction(this.task) : `${review_instruction(this.task)}\n\n${extra}`);
    for (let turn = 1; turn <= this.brief.max_turns; turn += 1) {
      if (turn > 1 && this.runtime.wrap_up_reason !== undefined) return "no_verdict";
      this.#turns = turn;
      const uses = await this.#turn(context, turn);
      if (this.#review !== undefined) return "submitted";
      if (uses > 0) continue;
      if (this.#reminded) return "no_verdict";
      this.#reminded = true;
      context.add_user(`You have not submitted a verdict. Call ${SUBMIT_REVIEW_TOOL} with your verdict and findings.`);
    }
    return "no_verdict";
  }

  /** One model call and the answers to its tool uses; returns how many tools it called. */
  async #turn(context: AgentContext, turn: number): Promise<number> {
    const request_id = `${this.runtime.address.agent_id}.turn${turn}`;
    const { request } = await context.next_request(turn);
    const response = await this.runtime.complete(request, (delta: ModelDelta) => {
      if (delta.kind === "text" && delta.text.length > 0) {
        this.runtime.emit("token.delta", { request_id, agent_id: this.runtime.address.agent_id, text: delta.text });
      }
    });
    context.add_assistant(response);
    const uses = tool_uses_of(response.content);
    if (uses.length === 0) return 0;
    const offered = new Set(this.brief.tools.map((tool) => tool.name));
    const results: ContentBlock[] = [];
    for (const use of uses) {
      if (use.name === SUBMIT_REVIEW_TOOL) results.push(this.#submit(use));
      else
        results.push(
          (
            await answer_tool_use(
              use,
              (name) => offered.has(name),
              (call) => this.runtime.call_tool(call),
            )
          ).result,
        );
    }
    context.add_user(results);
    return uses.length;
  }

  /** The verdict, once it parses; until then the model is told what to correct. */
  #submit(use: ToolUse): ContentBlock {
    const parsed = v.safeParse(ReviewerResult, use.input);
    if (!parsed.success) {
      return { type: "tool_result", tool_use_id: use.id, content: `error: the review is not valid: ${v.summarize(parsed.issues)}`, is_error: true };
    }
    this.#review ??= parsed.output;
    return { type: "tool_result", tool_use_id: use.id, content: `review recorded: ${parsed.output.verdict}` };
  }

  #status(ending: Ending): WorkerStatus {
    if (ending === "submitted") return "completed";
    return ending === "cancelled" ? "cancelled" : "failed";
  }

  #summary(ending: Ending): string {
    const review = this.#review;
    if (ending === "submitted" && review !== undefined) {
      return `Review after ${this.#turns} turn(s): ${review.verdict}, ${review.findings.length} finding(s).`;
    }
    const how: Record<Exclude<Ending, "submitted">, string> = {
      no_verdict: `The reviewer gave no valid verdict in ${this.#turns} turn(s)`,
      cancelled: `The review was cancelled (${this.runtime.cancel_reason ?? "by the parent"})`,
      error: `The review stopped on an error: ${this.#failure?.message ?? "unknown"}`,
    };
    return `${how[ending === "submitted" ? "no_verdict" : ending]}.`;
  }

  #result(ending: Ending): WorkerResult {
    const status = this.#status(ending);
    return {
      task_id: this.task.id,
      agent_id: this.runtime.address.agent_id,
      agent_type: "reviewer",
      status,
      summary: this.#summary(ending),
      changed_files: [],
      artifacts: [],
      verification: [],
      risks: status === "completed" ? [] : [{ severity: "high", description: this.#summary(ending) }],
      follow_up_tasks: [],
      evidence_refs: [],
      // Without a verdict the result still needs one; the gate reads the status first and never this one.
      result: this.#review ?? { verdict: "rejected", findings: [] },
    };
  }
}

export const reviewer_role: WorkerRole = {
  agent_type: "reviewer",
  run: (task, brief, runtime) => new ReviewerRun(task, brief, runtime).run(),
};

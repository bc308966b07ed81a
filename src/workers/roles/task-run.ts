import { new_id } from "../../contracts/ids.js";
import type { EvidenceRef } from "../../contracts/artifact.js";
import type { AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { ContentBlock, ModelDelta } from "../../contracts/provider.js";
import type { TaskSpec } from "../../contracts/task.js";
import { effects_of, type ToolOutcome, type ToolSchema } from "../../contracts/tool.js";
import type { Risk, VerificationResult, WorkerStatus } from "../../contracts/worker-result.js";
import { task_instruction } from "../../context/layers.js";
import { guarded, role_context } from "./role-context.js";
import type { WorkerRuntime } from "../runtime.js";
import { answer_tool_use, text_of, tool_uses_of, type ToolUse } from "../../context/model-turn.js";
import { ending_risk, worker_summary, type Ending, type RunFacts } from "./run-wording.js";
import { run_verification } from "./verification-run.js";

const SUMMARY_TEXT_MAX_CHARS = 600;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * A tool the role answers itself, in the worker (a structured report such as the Debugger's diagnosis): the
 * model sees its schema beside the parent's tools; `ends_run` stops the loop after it as if the model had ended
 * its turn.
 */
export type LocalTool = {
  readonly schema: ToolSchema;
  answer(input: unknown): { readonly content: string; readonly is_error: boolean; readonly ends_run: boolean };
};

export type TaskRunOptions = {
  readonly local_tools?: readonly LocalTool[];
  /** Why the role stops without verifying (the Debugger's blocker); the run ends `blocked` with it as a risk. */
  readonly blocked_by?: () => string | undefined;
};

/** What a finished run gives its role to shape into a WorkerResult of its own agent_type. */
export type TaskRunReport = {
  /** The fields every WorkerResult has, as this run filled them. */
  readonly fields: RunFields;
  readonly commands_run: string[];
  readonly notes?: string;
};

type RunFields = {
  readonly status: WorkerStatus;
  readonly summary: string;
  readonly changed_files: string[];
  readonly diff_ref?: string;
  readonly verification: VerificationResult[];
  readonly risks: Risk[];
  readonly evidence_refs: EvidenceRef[];
};

/**
 * The loop of the roles that work on a task (executor, debugger): model ↔ tools until the model ends its turn
 * or the turn budget runs out, then the TaskSpec's verification, then a report whose status follows seeds 003
 * §10.10 — a code-changing result is `completed` only when its verification passed (or, with no commands,
 * when the policy allows the fallback, recorded as a risk).
 */
export class TaskRun {
  readonly #changed_files = new Set<string>();
  readonly #evidence: EvidenceRef[] = [];
  readonly #risks: Risk[] = [];
  readonly #verification: VerificationResult[] = [];
  readonly #commands_run: string[] = [];
  #diff_ref: string | undefined;
  #code_changed = false;
  #turns = 0;
  #final_text = "";
  /** The text of the model's latest response: its closing words once the loop has ended. */
  #closing_text = "";
  #failure: AirError | undefined;
  #verification_blocked = false;

  #blocker: string | undefined;

  constructor(
    private readonly task: TaskSpec,
    private readonly brief: AgentBrief,
    private readonly runtime: WorkerRuntime,
    private readonly options: TaskRunOptions = {},
  ) {}

  async run(): Promise<TaskRunReport> {
    let ending = await this.#guard(() => this.#loop());
    this.#blocker = this.options.blocked_by?.();
    if (ending === "end_turn" && this.#blocker === undefined) {
      const verified = await this.#guard(async () => {
        await this.#verify();
        return "end_turn" as const;
      });
      ending = verified;
    }
    return this.#result(ending);
  }

  #guard(work: () => Promise<Ending>): Promise<Ending> {
    return guarded(this.runtime, work, (failure) => {
      this.#failure = failure;
    });
  }

  async #loop(): Promise<Ending> {
    const context = role_context(this.task, this.brief, this.runtime, "task_execution", [
      ...this.brief.tools,
      ...(this.options.local_tools ?? []).map((tool) => tool.schema),
    ]);
    const extra = this.brief.instructions;
    context.add_user(extra === undefined || extra === "" ? task_instruction(this.task) : `${task_instruction(this.task)}\n\n${extra}`);
    const tool_names = new Set(this.brief.tools.map((tool) => tool.name));
    const local = new Map((this.options.local_tools ?? []).map((tool) => [tool.schema.name, tool]));
    for (let turn = 1; turn <= this.brief.max_turns; turn += 1) {
      // Asked to wrap up (the soft timeout passed): the turn that was running is done; report instead of another.
      if (turn > 1 && this.runtime.wrap_up_reason !== undefined) return "wrapped_up";
      this.#turns = turn;
      const request_id = `${this.runtime.address.agent_id}.turn${turn}`;
      const { request } = await context.next_request(turn);
      let block: number | undefined;
      const response = await this.runtime.complete(request, (delta: ModelDelta) => {
        if (delta.kind !== "text" || delta.text.length === 0) return;
        // Separate text blocks are separate paragraphs on screen, as they are in the recorded message.
        const text = block === undefined || block === delta.index ? delta.text : `\n\n${delta.text}`;
        block = delta.index;
        this.runtime.emit("token.delta", { request_id, agent_id: this.runtime.address.agent_id, text });
      });
      context.add_assistant(response);
      const text = text_of(response.content);
      if (text.length > 0) this.#final_text = text;
      this.#closing_text = text;
      const uses = tool_uses_of(response.content);
      if (uses.length > 0) {
        const results: ContentBlock[] = [];
        let ends = false;
        for (const use of uses) {
          const own = local.get(use.name);
          if (own !== undefined) {
            const answer = answer_locally(own, use);
            ends ||= answer.ends_run;
            results.push(answer.result);
            continue;
          }
          const answer = await answer_tool_use(
            use,
            (name) => tool_names.has(name),
            (call) => this.runtime.call_tool(call),
          );
          if (answer.outcome !== undefined) this.#record(use.name, answer.outcome);
          results.push(answer.result);
        }
        context.add_user(results);
        if (ends) return "end_turn";
        continue;
      }
      switch (response.stop_reason) {
        case "end_turn":
        case "stop_sequence":
          return "end_turn";
        case "refusal":
          return "refusal";
        case "pause_turn":
          continue;
        default:
          return "truncated";
      }
    }
    return "max_turns";
  }

  /** What a tool run contributes to the result, read from its effects: changed files, the diff, commands. */
  #record(tool_name: string, outcome: ToolOutcome): void {
    const effects = effects_of(outcome);
    for (const run of effects.command_runs) this.#commands_run.push(run.command);
    if (effects.changed_files.length === 0) return;
    this.#code_changed = true;
    for (const file of effects.changed_files) this.#changed_files.add(file);
    const diff = effects.diff_artifact_ids.at(-1);
    if (diff !== undefined) this.#diff_ref = diff;
    this.#evidence.push({
      id: new_id("evidence"),
      kind: "tool_run",
      ref: outcome.tool_run_id ?? tool_name,
      claim: `${tool_name} changed ${effects.changed_files.join(", ")}`,
    });
  }

  async #verify(): Promise<void> {
    const record = await run_verification(this.task, this.runtime);
    this.#verification.push(...record.results);
    this.#evidence.push(...record.evidence);
    this.#commands_run.push(...record.commands_run);
    if (record.blocked) this.#verification_blocked = true;
  }

  #status(ending: Ending): WorkerStatus {
    switch (ending) {
      case "cancelled":
        return "cancelled";
      // A spent turn budget is a blocker like any budget: another try with the same budget ends the same way.
      case "refusal":
      case "max_turns":
        return "blocked";
      case "error":
      case "truncated":
      case "wrapped_up":
        return "failed";
      case "end_turn":
        break;
    }
    if (this.#blocker !== undefined) {
      this.#risks.push({ severity: "high", description: this.#blocker });
      return "blocked";
    }
    const policy = this.task.verification;
    const ran = this.#verification.length;
    const all_passed = ran > 0 && this.#verification.every((result) => result.passed);
    if (this.#verification_blocked) {
      this.#risks.push({
        severity: "high",
        description: "A verification command was refused by the permission engine.",
        mitigation: "Grant the command or change the verification policy.",
      });
      return "blocked";
    }
    if (ran > 0 && !all_passed) {
      const failing = this.#verification.filter((result) => !result.passed).map((result) => result.command);
      this.#risks.push({ severity: "high", description: `Verification failed: ${failing.join(", ")}.` });
      return "failed";
    }
    if (!this.#code_changed || all_passed) return "completed";
    if (policy.fallback_allowed) {
      this.#risks.push({
        severity: "medium",
        description: "The changes were not verified: the task names no verification command.",
        mitigation: "Review the diff or run the project's checks before merging.",
      });
      return "completed";
    }
    this.#risks.push({
      severity: "high",
      description: "The changes were not verified: the task names no verification command and does not allow skipping verification.",
      mitigation: "Add verification commands to the task.",
    });
    return "failed";
  }

  #result(ending: Ending): TaskRunReport {
    const status = this.#status(ending);
    const facts: RunFacts = {
      max_turns: this.brief.max_turns,
      turns: this.#turns,
      wrap_up_reason: this.runtime.wrap_up_reason,
      cancel_reason: this.runtime.cancel_reason,
      failure: this.#failure,
      changed_files: [...this.#changed_files],
      verification: this.#verification,
      risks: this.#risks,
    };
    const risk = ending_risk(ending, facts);
    if (risk !== undefined) this.#risks.push(risk);
    const notes = this.#final_text.length > 0 ? clip(this.#final_text, SUMMARY_TEXT_MAX_CHARS) : undefined;
    const fields: RunFields = {
      status,
      summary: worker_summary(this.#closing_text, status, ending, facts),
      changed_files: [...this.#changed_files],
      ...(this.#diff_ref === undefined ? {} : { diff_ref: this.#diff_ref }),
      verification: this.#verification,
      risks: this.#risks,
      evidence_refs: this.#evidence,
    };
    return { fields, commands_run: this.#commands_run, ...(notes === undefined ? {} : { notes }) };
  }
}

function answer_locally(tool: LocalTool, use: ToolUse): { result: ContentBlock; ends_run: boolean } {
  const answer = tool.answer(use.input);
  const result: ContentBlock = answer.is_error
    ? { type: "tool_result", tool_use_id: use.id, content: answer.content, is_error: true }
    : { type: "tool_result", tool_use_id: use.id, content: answer.content };
  return { result, ends_run: answer.ends_run && !answer.is_error };
}

import { new_id } from "../../contracts/ids.js";
import type { EvidenceRef } from "../../contracts/artifact.js";
import { AirFailure, type AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { ContentBlock, ModelDelta } from "../../contracts/provider.js";
import { verification_label, type TaskSpec } from "../../contracts/task.js";
import { effects_of, type ToolOutcome } from "../../contracts/tool.js";
import type { Risk, VerificationResult, WorkerResult, WorkerStatus } from "../../contracts/worker-result.js";
import { task_instruction } from "../../context/layers.js";
import { is_cancellation, type WorkerRuntime } from "../runtime.js";
import type { WorkerRole } from "./role.js";
import { role_context } from "./role-context.js";
import { answer_tool_use, text_of, tool_uses_of } from "../../context/model-turn.js";

export const SHELL_TOOL = "shell.run";

const SUMMARY_TEXT_MAX_CHARS = 600;

type Ending = "end_turn" | "max_turns" | "wrapped_up" | "refusal" | "truncated" | "cancelled" | "error";

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * The executor loop: model ↔ tools until the model ends its turn or the turn budget runs out, then the
 * TaskSpec's verification commands through `shell.run`, then a WorkerResult whose status follows seeds 003
 * §10.10 — a code-changing result is `completed` only when its verification passed (or, with no commands,
 * when the policy allows the fallback, recorded as a risk).
 */
class ExecutorRun {
  readonly #changed_files = new Set<string>();
  readonly #evidence: EvidenceRef[] = [];
  readonly #risks: Risk[] = [];
  readonly #verification: VerificationResult[] = [];
  readonly #commands_run: string[] = [];
  #diff_ref: string | undefined;
  #code_changed = false;
  #turns = 0;
  #final_text = "";
  #failure: AirError | undefined;
  #verification_blocked = false;

  constructor(
    private readonly task: TaskSpec,
    private readonly brief: AgentBrief,
    private readonly runtime: WorkerRuntime,
  ) {}

  async run(): Promise<WorkerResult> {
    let ending = await this.#guard(() => this.#loop());
    if (ending === "end_turn") {
      const verified = await this.#guard(async () => {
        await this.#verify();
        return "end_turn" as const;
      });
      ending = verified;
    }
    return this.#result(ending);
  }

  /** Cancellation and AirFailures (a provider outage, a broken channel) end the run with a result; bugs propagate. */
  async #guard(work: () => Promise<Ending>): Promise<Ending> {
    try {
      return await work();
    } catch (error) {
      if (is_cancellation(error) || this.runtime.cancelled) return "cancelled";
      if (error instanceof AirFailure) {
        this.#failure = error.error;
        return "error";
      }
      throw error;
    }
  }

  async #loop(): Promise<Ending> {
    const context = role_context(this.task, this.brief, this.runtime, "task_execution");
    const extra = this.brief.instructions;
    context.add_user(extra === undefined || extra === "" ? task_instruction(this.task) : `${task_instruction(this.task)}\n\n${extra}`);
    const tool_names = new Set(this.brief.tools.map((tool) => tool.name));
    for (let turn = 1; turn <= this.brief.max_turns; turn += 1) {
      // Asked to wrap up (the soft timeout passed): the turn that was running is done; report instead of another.
      if (turn > 1 && this.runtime.wrap_up_reason !== undefined) return "wrapped_up";
      this.#turns = turn;
      const request_id = `${this.runtime.address.agent_id}.turn${turn}`;
      const { request } = await context.next_request(turn);
      const response = await this.runtime.complete(request, (delta: ModelDelta) => {
        if (delta.kind === "text" && delta.text.length > 0) {
          this.runtime.emit("token.delta", { request_id, agent_id: this.runtime.address.agent_id, text: delta.text });
        }
      });
      context.add_assistant(response);
      const text = text_of(response.content);
      if (text.length > 0) this.#final_text = text;
      const uses = tool_uses_of(response.content);
      if (uses.length > 0) {
        const results: ContentBlock[] = [];
        for (const use of uses) {
          const answer = await answer_tool_use(
            use,
            (name) => tool_names.has(name),
            (call) => this.runtime.call_tool(call),
          );
          if (answer.outcome !== undefined) this.#record(use.name, answer.outcome);
          results.push(answer.result);
        }
        context.add_user(results);
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
    for (const command of this.task.verification.commands ?? []) {
      const started = Date.now();
      const outcome = await this.runtime.call_tool({ tool_name: SHELL_TOOL, input: { command } });
      this.#commands_run.push(command);
      // A command that could not finish (timeout, spawn failure) still has its command run, with no exit code.
      const ran = effects_of(outcome).command_runs[0];
      const exit_code = ran?.exit_code ?? null;
      this.#verification.push({
        command,
        exit_code,
        passed: outcome.ok && exit_code === 0,
        duration_ms: ran?.duration_ms ?? Date.now() - started,
        ...(ran?.stdout_artifact_id === undefined ? {} : { artifact_id: ran.stdout_artifact_id }),
      });
      if (!outcome.ok && outcome.error.kind === "permission_error") this.#verification_blocked = true;
      this.#evidence.push({
        id: new_id("evidence"),
        kind: "command_run",
        ref: ran?.command_run_id ?? outcome.tool_run_id ?? `${SHELL_TOOL}: ${command}`,
        claim: outcome.ok ? `\`${command}\` exited ${exit_code ?? "without an exit code"}` : `\`${command}\` could not run: ${outcome.error.message}`,
      });
    }
    for (const tool of this.task.verification.tools) await this.#verify_with(tool);
  }

  /** A verification tool passes when its call succeeds; its last command run is its evidence. */
  async #verify_with(tool: TaskSpec["verification"]["tools"][number]): Promise<void> {
    const label = verification_label(tool);
    const started = Date.now();
    const outcome = await this.runtime.call_tool(tool);
    this.#commands_run.push(label);
    const ran = effects_of(outcome).command_runs.at(-1);
    this.#verification.push({
      command: label,
      exit_code: ran?.exit_code ?? null,
      passed: outcome.ok,
      duration_ms: ran?.duration_ms ?? Date.now() - started,
      ...(ran?.stdout_artifact_id === undefined ? {} : { artifact_id: ran.stdout_artifact_id }),
    });
    if (!outcome.ok && outcome.error.kind === "permission_error") this.#verification_blocked = true;
    this.#evidence.push({
      id: new_id("evidence"),
      kind: outcome.tool_run_id === undefined ? "message" : "tool_run",
      ref: outcome.tool_run_id ?? ran?.command_run_id ?? label,
      claim: outcome.ok ? `${label} passed` : `${label} failed: ${outcome.error.message}`,
    });
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

  #result(ending: Ending): WorkerResult {
    const status = this.#status(ending);
    if (ending === "max_turns") {
      this.#risks.push({
        severity: "medium",
        description: `The turn budget of ${this.brief.max_turns} ran out before the model finished.`,
        mitigation: "Split the task or raise max_turns.",
      });
    } else if (ending === "wrapped_up") {
      this.#risks.push({
        severity: "medium",
        description: `The run was asked to wrap up before the model finished (${this.runtime.wrap_up_reason ?? "soft timeout"}); the work may be partial.`,
        mitigation: "Resume or split the task, or raise constraints.soft_timeout_ms.",
      });
    } else if (ending === "refusal") {
      this.#risks.push({ severity: "high", description: "The model refused to continue the task.", mitigation: "Review the task; a decision may be missing." });
    } else if (ending === "truncated") {
      this.#risks.push({ severity: "medium", description: "The model's answer was cut off before it finished." });
    } else if (ending === "error" && this.#failure !== undefined) {
      this.#risks.push({ severity: "high", description: `The run stopped on an error: ${this.#failure.message}` });
    }
    const notes = this.#final_text.length > 0 ? clip(this.#final_text, SUMMARY_TEXT_MAX_CHARS) : undefined;
    return {
      task_id: this.task.id,
      agent_id: this.runtime.address.agent_id,
      agent_type: "executor",
      status,
      summary: this.#summary(status, ending),
      changed_files: [...this.#changed_files],
      ...(this.#diff_ref === undefined ? {} : { diff_ref: this.#diff_ref }),
      artifacts: [],
      verification: this.#verification,
      risks: this.#risks,
      follow_up_tasks: [],
      evidence_refs: this.#evidence,
      result: { commands_run: this.#commands_run, tests_added: [], ...(notes === undefined ? {} : { notes }) },
    };
  }

  #summary(status: WorkerStatus, ending: Ending): string {
    const how: Record<Ending, string> = {
      end_turn: "The model finished the task",
      max_turns: `The turn budget of ${this.brief.max_turns} ran out`,
      wrapped_up: "The run wrapped up at its soft timeout",
      refusal: "The model refused to continue",
      truncated: "The model's answer was cut off",
      cancelled: `The run was cancelled (${this.runtime.cancel_reason ?? "by the parent"})`,
      error: `The run stopped on an error: ${this.#failure?.message ?? "unknown"}`,
    };
    const files =
      this.#changed_files.size === 0 ? "No files were changed." : `Changed ${this.#changed_files.size} file(s): ${[...this.#changed_files].join(", ")}.`;
    const ran = this.#verification.length;
    const passed = this.#verification.filter((result) => result.passed).length;
    const verification = ran === 0 ? "No verification command ran." : `Verification: ${passed} of ${ran} command(s) passed.`;
    const risks = this.#risks.length === 0 ? "" : ` Risks: ${this.#risks.map((risk) => risk.description).join(" ")}`;
    return `${how[ending]} after ${this.#turns} turn(s). ${files} ${verification} Status: ${status}.${risks}`;
  }
}

export const executor_role: WorkerRole = {
  agent_type: "executor",
  run: (task, brief, runtime) => new ExecutorRun(task, brief, runtime).run(),
};

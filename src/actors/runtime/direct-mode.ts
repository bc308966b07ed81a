import { fromPromise } from "xstate";
import { Conversation } from "../../context/conversation.js";
import type { SessionPrompts } from "../../context/session-prompts.js";
import { air_failure } from "../../contracts/errors.js";
import { new_id, type MessageId } from "../../contracts/ids.js";
import type { ContentBlock, ModelRequest, ModelResponse } from "../../contracts/provider.js";
import { effects_of, type CommandRunEffect, type ToolOutcome, type ToolSchema } from "../../contracts/tool.js";
import type { UserRequest } from "../../machines/main-agent.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { answer_tool_use, text_of, tool_uses_of, type ToolUse } from "../../context/model-turn.js";
import { emitter } from "./emit.js";

/** Model calls of one direct message before the turn is ended for the user to steer. */
const DIRECT_MAX_MODEL_CALLS = 40;

/** Told to the model once, at the head of the direct conversation, so the stable layers stay shared with the Main Agent's. */
const DIRECT_MODE_NOTE =
  "Direct mode: the user works with you directly, without tasks or workers. Use the tools to do what they ask in the " +
  "project's main workspace, then answer briefly with what you did. Every tool call is judged by the session's permissions.";

/** What the Main Agent needs to run tools itself: its registry, the tools it offers the model, its model calls. */
export type DirectModeTools = {
  readonly registry: ToolRegistry;
  readonly tools: readonly ToolSchema[];
  readonly complete: (request: ModelRequest, signal: AbortSignal) => Promise<ModelResponse>;
  readonly max_model_calls?: number;
};

export type DirectModeDependencies = DirectModeTools & {
  readonly session: Session;
  readonly prompts: Pick<SessionPrompts, "assemble_main">;
};

/** One tool run of the direct session, as the `/done` summary reports it: whether it succeeded and what it did. */
type DirectRun = {
  readonly tool_run_id: string | undefined;
  readonly ok: boolean;
  readonly changed_files: readonly string[];
  readonly diff_artifact_ids: readonly string[];
  readonly command_runs: readonly CommandRunEffect[];
  readonly commits: readonly string[];
};

function run_of(outcome: ToolOutcome): DirectRun {
  return { tool_run_id: outcome.tool_run_id, ok: outcome.ok, ...effects_of(outcome) };
}

/** `/done`'s lines about one run's effects: the files it changed with their diffs, the commands it ran, its commits. */
function effect_lines(run: DirectRun): string[] {
  const lines: string[] = [];
  if (run.changed_files.length > 0) {
    const diffs = run.diff_artifact_ids.length === 0 ? "" : ` (${run.diff_artifact_ids.length === 1 ? "diff" : "diffs"} ${run.diff_artifact_ids.join(", ")})`;
    lines.push(`Changed ${run.changed_files.join(", ")}${diffs}.`);
  }
  for (const command of run.command_runs) {
    lines.push(`Ran \`${command.command}\`${command.exit_code === null ? " (did not finish)" : ` (exit ${command.exit_code})`}.`);
  }
  for (const sha of run.commits) lines.push(`Committed ${sha.slice(0, 12)}.`);
  return lines;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * One direct session (`/direct` … `/done`): the Main Agent's own model ↔ tools loop over one append-only
 * conversation (its stable layers first, so every request starts with the bytes of the one before), each tool
 * called with no task or agent — the main workspace, judged by the session's permission engine.
 */
class DirectSession {
  readonly #conversation = new Conversation();
  readonly #runs: DirectRun[] = [];
  #messages = 0;

  constructor(private readonly dependencies: DirectModeDependencies) {}

  /** The user's message (already recorded) through the loop; resolves with the model's last text. */
  async turn(request: UserRequest, signal: AbortSignal): Promise<string> {
    this.#messages += 1;
    this.#close_unanswered();
    const opening = this.#conversation.length === 0;
    this.#conversation.append(request.message_id, {
      role: "user",
      content: opening
        ? [
            { type: "text", text: DIRECT_MODE_NOTE },
            { type: "text", text: request.text },
          ]
        : request.text,
    });
    const limit = this.dependencies.max_model_calls ?? DIRECT_MAX_MODEL_CALLS;
    for (let call = 1; call <= limit; call += 1) {
      signal.throwIfAborted();
      const { request: model_request } = this.dependencies.prompts.assemble_main("answer", this.#conversation.entries, this.dependencies.tools);
      const response = await this.dependencies.complete(model_request, signal);
      this.#record_assistant(response);
      const uses = tool_uses_of(response.content);
      if (uses.length === 0) return text_of(response.content) || "(the model ended its turn without text)";
      const results: ContentBlock[] = [];
      for (const use of uses) results.push(await this.#run_tool(use, request, signal));
      this.#record_tool_results(results);
    }
    throw air_failure({
      kind: "user_error",
      message: `the direct turn made ${limit} model calls without a final answer and was stopped`,
      retryability: "retryable",
      user_action: "Send a message that narrows what you want done, or leave direct mode with /done.",
    });
  }

  /** The evidence of the session — what ran, what changed, which commands — as the message `/done` shows. */
  summary(): string {
    const run_ids = new Set(this.#runs.map((run) => run.tool_run_id).filter((id) => id !== undefined));
    const evidence = this.dependencies.session.store
      .query({ types: ["tool.completed"] })
      .flatMap(({ event }) => (event.type === "tool.completed" && run_ids.has(event.payload.tool_run_id) ? event.payload.evidence_ids : []));
    const failed = this.#runs.filter((run) => !run.ok).length;
    const lines = [
      `Direct mode ended: ${plural(this.#messages, "message")}, ${plural(this.#runs.length, "tool run")}` +
        `${failed === 0 ? "" : ` (${failed} failed)`}, ${plural(evidence.length, "evidence record")}.`,
    ];
    if (this.#runs.every((run) => run.changed_files.length === 0)) lines.push("No file changed.");
    return [...lines, ...this.#runs.flatMap(effect_lines)].join("\n");
  }

  /** An interrupted or stopped turn left no answer: one is added, since a user message must follow an assistant one. */
  #close_unanswered(): void {
    if (this.#conversation.entries.at(-1)?.message.role !== "user") return;
    this.#conversation.append(new_id("message"), { role: "assistant", content: "(the previous turn was interrupted before an answer)" });
  }

  async #run_tool(use: ToolUse, request: UserRequest, signal: AbortSignal): Promise<ContentBlock> {
    const { registry, session, tools } = this.dependencies;
    const answer = await answer_tool_use(
      use,
      (name) => tools.some((tool) => tool.name === name),
      (call) => registry.call(call, { session, origin_message_id: request.message_id as MessageId, signal }),
    );
    if (answer.outcome !== undefined) this.#runs.push(run_of(answer.outcome));
    return answer.result;
  }

  #record_assistant(response: ModelResponse): void {
    const message_id = new_id("message");
    this.#conversation.append(message_id, { role: "assistant", content: response.content });
    emit(this.dependencies.session, "assistant.message.created", {
      message_id,
      content: response.content,
      model_id: response.model_id,
      stop_reason: response.stop_reason,
      usage: response.usage,
    });
  }

  #record_tool_results(results: ContentBlock[]): void {
    const message_id = new_id("message");
    this.#conversation.append(message_id, { role: "user", content: results });
    emit(this.dependencies.session, "user.message.created", { message_id, content: results });
  }
}

/** The direct session's messages are the Main Agent's: no task, no agent. */
const emit = emitter("main");

/**
 * The `direct_turn` and `direct_summary` actors of the Main Agent: a session begins with the first message
 * after `/direct` and ends with `/done`, whose summary becomes an assistant message.
 */
export function direct_mode_actors(dependencies: DirectModeDependencies) {
  let current: DirectSession | undefined;
  return {
    direct_turn: fromPromise<string, UserRequest>(async ({ input, signal }) => {
      current ??= new DirectSession(dependencies);
      return current.turn(input, signal);
    }),
    direct_summary: fromPromise<string, void>(async () => {
      const summary = current?.summary() ?? "Direct mode ended: no message was sent, nothing changed.";
      current = undefined;
      emit(dependencies.session, "assistant.message.created", { message_id: new_id("message"), content: summary });
      return summary;
    }),
  };
}

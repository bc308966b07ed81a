import { fromPromise } from "xstate";
import { Conversation } from "../../context/conversation.js";
import type { SessionPrompts } from "../../context/session-prompts.js";
import { air_failure } from "../../contracts/errors.js";
import { make_event, type EventType, type PayloadInputOf } from "../../contracts/events/registry.js";
import { new_id, type MessageId } from "../../contracts/ids.js";
import type { ContentBlock, ModelRequest, ModelResponse } from "../../contracts/provider.js";
import type { ToolOutcome, ToolSchema } from "../../contracts/tool.js";
import type { UserRequest } from "../../machines/main-agent.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { CODE_CHANGING_TOOLS, is_object, render_outcome, text_of, tool_uses_of, type ToolUse } from "../../context/model-turn.js";

/** Model calls of one direct message before the turn is ended for the user to steer. */
export const DIRECT_MAX_MODEL_CALLS = 40;

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

/** One tool run of the direct session, as the `/done` summary reports it. */
type DirectRun = {
  readonly tool_name: string;
  readonly tool_run_id: string | undefined;
  readonly ok: boolean;
  readonly changed_path?: string;
  readonly diff_artifact_id?: string;
  readonly command?: string;
  readonly exit_code?: number;
};

function run_of(use: ToolUse, input: Record<string, unknown>, outcome: ToolOutcome): DirectRun {
  const output = outcome.ok && is_object(outcome.output) ? outcome.output : {};
  const changed = outcome.ok && CODE_CHANGING_TOOLS.has(use.name) && output.changed !== false;
  const path = typeof output.path === "string" ? output.path : typeof input.path === "string" ? input.path : undefined;
  return {
    tool_name: use.name,
    tool_run_id: outcome.tool_run_id,
    ok: outcome.ok,
    ...(changed && path !== undefined ? { changed_path: path } : {}),
    ...(changed && typeof output.diff_artifact_id === "string" ? { diff_artifact_id: output.diff_artifact_id } : {}),
    ...(use.name === "shell.run" && typeof input.command === "string" ? { command: input.command } : {}),
    ...(typeof output.exit_code === "number" ? { exit_code: output.exit_code } : {}),
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * One direct session (`/direct` … `/done`): the Main Agent's own model ↔ tools loop over one append-only
 * conversation (its stable layers first, so every request starts with the bytes of the one before), each tool
 * called with no task or agent — the main workspace, judged by the session's permission engine.
 */
export class DirectSession {
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
      content: opening ? [{ type: "text", text: DIRECT_MODE_NOTE }, { type: "text", text: request.text }] : request.text,
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
      .flatMap(({ event }) => {
        const payload = event.payload as { tool_run_id: string; evidence_ids?: string[] };
        return run_ids.has(payload.tool_run_id) ? (payload.evidence_ids ?? []) : [];
      });
    const failed = this.#runs.filter((run) => !run.ok).length;
    const lines = [
      `Direct mode ended: ${plural(this.#messages, "message")}, ${plural(this.#runs.length, "tool run")}` +
        `${failed === 0 ? "" : ` (${failed} failed)`}, ${plural(evidence.length, "evidence record")}.`,
    ];
    const changed = this.#runs.filter((run) => run.changed_path !== undefined);
    if (changed.length === 0) lines.push("No file changed.");
    for (const run of changed) lines.push(`Changed ${run.changed_path}${run.diff_artifact_id === undefined ? "" : ` (diff ${run.diff_artifact_id})`}.`);
    for (const run of this.#runs.filter((run) => run.command !== undefined)) {
      lines.push(`Ran \`${run.command}\`${run.exit_code === undefined ? " (did not finish)" : ` (exit ${run.exit_code})`}.`);
    }
    return lines.join("\n");
  }

  /** An interrupted or stopped turn left no answer: one is added, since a user message must follow an assistant one. */
  #close_unanswered(): void {
    if (this.#conversation.entries.at(-1)?.message.role !== "user") return;
    this.#conversation.append(new_id("message"), { role: "assistant", content: "(the previous turn was interrupted before an answer)" });
  }

  async #run_tool(use: ToolUse, request: UserRequest, signal: AbortSignal): Promise<ContentBlock> {
    const reply = (content: string, is_error: boolean): ContentBlock =>
      is_error ? { type: "tool_result", tool_use_id: use.id, content, is_error: true } : { type: "tool_result", tool_use_id: use.id, content };
    if (!this.dependencies.tools.some((tool) => tool.name === use.name)) return reply(`error: no tool named "${use.name}" is available`, true);
    if (!is_object(use.input)) return reply(`error: the input of ${use.name} must be a JSON object`, true);
    const outcome = await this.dependencies.registry.call(
      { tool_name: use.name, input: use.input },
      { session: this.dependencies.session, origin_message_id: request.message_id as MessageId, signal },
    );
    this.#runs.push(run_of(use, use.input, outcome));
    return reply(render_outcome(outcome), !outcome.ok);
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
function emit<T extends EventType>(session: Session, type: T, payload: PayloadInputOf<T>): void {
  session.ingestor.ingest(make_event(type, payload, { ...session.origin, source: { kind: "main" }, route: ["main"] }));
}

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

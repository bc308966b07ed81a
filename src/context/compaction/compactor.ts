import { air_failure, AirFailure, to_air_error } from "../../contracts/errors.js";
import type { EventType, PayloadInputOf } from "../../contracts/events/registry.js";
import type { TokenUsage } from "../../contracts/events/message.js";
import { new_id } from "../../contracts/ids.js";
import type { Connection } from "../../db/connection.js";
import type { ProjectLayout } from "../../project/layout.js";
import type { ModelCompleter } from "../../tools/model/complete.js";
import { estimate_tokens } from "../layers.js";
import { PromptLayerLoader } from "../prompt-loader.js";
import { covered_count, load_conversation, type CompactionScope, type Conversation, type StoredMessage } from "./stored-conversation.js";
import { read_pinned_state, render_pinned } from "./pinned.js";
import type { CompactionRules } from "./rules.js";
import { render_transcript } from "./transcript.js";

/** The requester the compactor's model calls carry (the scripted server's turns and usage records know it so). */
const COMPACTOR_REQUESTER = "compactor";

export type CompactionPlan = {
  readonly conversation: Conversation;
  readonly covered: readonly StoredMessage[];
  readonly kept: readonly StoredMessage[];
  /** The conversation as the next request carries it now: the previous summary and every message it does not cover. */
  readonly tokens_before: number;
};

export type CompactionSkip = { readonly skip: string; readonly token_estimate: number };

export type CompactionResult = {
  readonly summary_id: string;
  readonly summary: string;
  /** Every message the summary stands for, those of an earlier summary it folds in included. */
  readonly covered_message_ids: string[];
  readonly tokens_before: number;
  /** The summary and the kept messages. */
  readonly tokens_after: number;
  /** The `compact` task that recorded this compaction. */
  readonly task_id: string;
  readonly usage: TokenUsage;
  /** The model that wrote the summary, so its tokens are priced and counted in the caller's budget. */
  readonly model_id: string;
};

export type CompactInput = {
  readonly connection: Connection;
  readonly layout: ProjectLayout;
  readonly scope: CompactionScope;
  readonly reason: string;
  readonly rules: CompactionRules;
  readonly model: ModelCompleter;
  readonly context_window: number;
  /** Records an event (a tool's `execution.emit`). */
  readonly emit: <T extends EventType>(type: T, payload: PayloadInputOf<T>) => void;
  readonly signal?: AbortSignal;
};

function message_tokens(message: StoredMessage): number {
  return estimate_tokens(typeof message.content === "string" ? message.content : JSON.stringify(message.content));
}

function sum_tokens(messages: readonly StoredMessage[]): number {
  return messages.reduce((total, message) => total + message_tokens(message), 0);
}

/** What a compaction of `scope` would cover, or why there is nothing worth covering. */
export function plan_compaction(connection: Connection, scope: CompactionScope, rules: CompactionRules): CompactionPlan | CompactionSkip {
  const conversation = load_conversation(connection, scope);
  const { keep_recent_turns, min_covered_messages } = rules.settings;
  const count = covered_count(conversation.messages, keep_recent_turns);
  const tokens_before = (conversation.previous === undefined ? 0 : estimate_tokens(conversation.previous.content)) + sum_tokens(conversation.messages);
  if (count < min_covered_messages) {
    return {
      skip: `only ${count} message(s) older than the last ${keep_recent_turns} turn(s) of ${conversation.messages.length} uncovered message(s); at least ${min_covered_messages} are needed`,
      token_estimate: tokens_before,
    };
  }
  return { conversation, covered: conversation.messages.slice(0, count), kept: conversation.messages.slice(count), tokens_before };
}

function summary_text(content: readonly { type: string; text?: unknown }[]): string {
  return content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n")
    .trim();
}

function compose_summary(pinned: string, narrative: string, covered_ids: readonly string[]): string {
  const header = [
    "# Summary of the earlier conversation (compacted by air)",
    "",
    `It stands for ${covered_ids.length} earlier message(s), ${covered_ids[0]} … ${covered_ids.at(-1)}; the originals stay in the session database.`,
  ].join("\n");
  return [header, pinned, `## Summary\n\n${narrative}`].filter((part) => part !== "").join("\n\n");
}

async function summarise(input: CompactInput, plan: CompactionPlan): Promise<{ narrative: string; usage: TokenUsage; model_id: string }> {
  const { settings, instructions } = input.rules;
  const transcript = render_transcript(plan.covered, settings, plan.conversation.previous?.content);
  // L0 and the compactor's role first: the transcript quotes tool output and files, which are data, not instructions.
  const loader = new PromptLayerLoader();
  const system = [loader.load_runtime_invariant().text, loader.load_role("compactor").text, instructions].join("\n\n");
  const response = await input.model.complete(
    { purpose: "summary", system, messages: [{ role: "user", content: transcript.text }], max_tokens: settings.max_summary_tokens },
    { requester: COMPACTOR_REQUESTER, ...(input.signal === undefined ? {} : { signal: input.signal }) },
  );
  const narrative = summary_text(response.content);
  if (narrative === "") {
    throw air_failure({
      kind: "context_error",
      message: `the compactor model answered without any summary text (stop reason ${response.stop_reason})`,
      retryability: "retryable",
      user_action: "Retry the compaction; if it keeps failing, check the compaction rules' instructions.",
    });
  }
  return { narrative, usage: response.usage, model_id: response.model_id };
}

/**
 * The CompactorRole (seeds 000 §19.3), copy-on-write: the covered messages are summarised by the model, the
 * pinned state is added verbatim, and the events `context.compaction.requested` (accepted, a new `compact`
 * task) → `started` → `summary.created` → `completed` record it; on failure `context.compaction.failed`. The
 * original messages are never touched. A conversation with too little to cover is refused (not accepted).
 */
export async function compact_conversation(input: CompactInput): Promise<CompactionResult> {
  const plan = plan_compaction(input.connection, input.scope, input.rules);
  const threshold_tokens = Math.floor(input.context_window * input.rules.settings.threshold_ratio);
  if ("skip" in plan) {
    const reason = `${input.reason} — not compacted: ${plan.skip}`.slice(0, 4000);
    input.emit("context.compaction.requested", { accepted: false, reason, token_estimate: plan.token_estimate, threshold_tokens });
    throw air_failure({
      kind: "context_error",
      message: `nothing to compact: ${plan.skip}`,
      retryability: "not_retryable",
      user_action: "Compact once the conversation is longer.",
    });
  }
  const task_id = new_id("task");
  input.emit("context.compaction.requested", {
    accepted: true,
    task_id,
    reason: input.reason.slice(0, 4000),
    token_estimate: plan.tokens_before,
    threshold_tokens,
  });
  input.emit("context.compaction.started", { task_id, attempt_id: new_id("attempt") });
  try {
    const { narrative, usage, model_id } = await summarise(input, plan);
    const pinned = render_pinned(read_pinned_state(input.connection, new PromptLayerLoader().load_project_rules(input.layout.root)), input.rules.settings.pin);
    const covered_message_ids = [...(plan.conversation.previous?.covered_message_ids ?? []), ...plan.covered.map((message) => message.id)];
    const summary = compose_summary(pinned, narrative, covered_message_ids);
    const tokens_after = estimate_tokens(summary) + sum_tokens(plan.kept);
    const summary_id = new_id("summary");
    input.emit("summary.created", {
      summary_id,
      kind: "compaction",
      content: summary,
      covered_message_ids,
      ...(plan.conversation.task_id === undefined ? {} : { task_id: plan.conversation.task_id }),
      tokens_before: plan.tokens_before,
      tokens_after,
    });
    input.emit("context.compaction.completed", { task_id, summary_id });
    return { summary_id, summary, covered_message_ids, tokens_before: plan.tokens_before, tokens_after, task_id, usage, model_id };
  } catch (error) {
    input.emit("context.compaction.failed", { task_id, error: to_air_error(error, "context_error") });
    throw error instanceof AirFailure
      ? error
      : air_failure({ kind: "context_error", message: `compaction failed: ${to_air_error(error).message}`, retryability: "unknown" }, error);
  }
}

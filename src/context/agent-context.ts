import * as v from "valibot";
import type { AssembledContext } from "../contracts/context.js";
import type { PromptLayer } from "../contracts/prompt-layer.js";
import { air_failure } from "../contracts/errors.js";
import { new_id } from "../contracts/ids.js";
import type { CanonicalMessage, ModelRequest, ModelResponse } from "../contracts/provider.js";
import type { ToolSchema } from "../contracts/tool.js";
import { ContextAssembler } from "./assembler.js";
import { CompactionPolicy, type CompactionPolicySettings } from "./compaction/policy.js";
import { Conversation, type CompactionOutcome } from "./conversation.js";

/** The part of `context.compact`'s output the conversation needs. */
const CompactOutput = v.looseObject({
  summary_id: v.pipe(v.string(), v.minLength(1)),
  summary: v.pipe(v.string(), v.minLength(1)),
  covered_message_ids: v.array(v.string()),
});

/** Without settings from the parent: compact at 80 % of the window, at most 3 times, 2 turns apart. */
const FALLBACK_POLICY: CompactionPolicySettings = { threshold_ratio: 0.8, circuit_breaker: { max_compactions: 3, min_turns_between: 2 } };

/** A conversation message on its way to the session's `messages` table (`user.message.created` / `assistant.message.created`). */
export type PersistedMessage =
  | { readonly role: "user"; readonly message_id: string; readonly content: CanonicalMessage["content"] }
  | { readonly role: "assistant"; readonly message_id: string; readonly response: ModelResponse };

/** Calls `context.compact` with a reason; undefined when it failed (the caller goes on without compaction). */
type Compact = (reason: string) => Promise<unknown>;

export type AgentContextOptions = {
  readonly purpose: ModelRequest["purpose"];
  readonly layers: readonly PromptLayer[];
  readonly tools: readonly ToolSchema[];
  readonly context_window: number;
  readonly token_budget: number;
  readonly persist: (message: PersistedMessage) => void;
  /** Present when the parent serves `context.compact`. */
  readonly compact?: Compact;
  readonly compaction?: CompactionPolicySettings;
};

/**
 * One agent's side of context assembly: its stable layers, its append-only conversation (each message
 * persisted as it is added, its id kept for compaction), and before each model call the compaction seam —
 * the CompactionPolicy decides, `context.compact` summarises, the covered messages give way to the summary.
 */
export class AgentContext {
  readonly conversation = new Conversation();
  readonly #options: AgentContextOptions;
  readonly #assembler = new ContextAssembler();
  readonly #policy: CompactionPolicy;

  constructor(options: AgentContextOptions) {
    this.#options = options;
    this.#policy = new CompactionPolicy(options.compaction ?? FALLBACK_POLICY);
  }

  add_user(content: CanonicalMessage["content"]): string {
    const message_id = new_id("message");
    this.conversation.append(message_id, { role: "user", content });
    this.#options.persist({ role: "user", message_id, content });
    return message_id;
  }

  add_assistant(response: ModelResponse): string {
    const message_id = new_id("message");
    this.conversation.append(message_id, { role: "assistant", content: response.content });
    this.#options.persist({ role: "assistant", message_id, response });
    return message_id;
  }

  /** The request of this turn: compacted first when the policy says so and the parent can; refused when it cannot fit the window at all. */
  async next_request(turn: number): Promise<AssembledContext> {
    let assembled = this.#assemble();
    const verdict = this.#policy.should_compact({ token_estimate: assembled.token_estimate, context_window: this.#options.context_window, turn });
    const compact = this.#options.compact;
    if (verdict.compact && compact !== undefined) assembled = await this.#compact(compact, verdict.reason, turn, assembled);
    if (assembled.token_estimate > this.#options.context_window) {
      throw air_failure({
        kind: "context_error",
        message: `the request needs about ${assembled.token_estimate} tokens, more than the model's context window of ${this.#options.context_window}, even with ${assembled.omissions.length} part(s) left out`,
        retryability: "retryable_after_change",
        user_action: "Split the task, shorten the project rules, or use a model with a larger context window.",
        metadata: { token_estimate: assembled.token_estimate, context_window: this.#options.context_window },
      });
    }
    return assembled;
  }

  async #compact(compact: Compact, reason: string, turn: number, before: AssembledContext): Promise<AssembledContext> {
    const output = v.safeParse(CompactOutput, await compact(reason));
    if (!output.success) {
      this.#policy.record({ turn, failed: true });
      return before;
    }
    this.conversation.apply_compaction(output.output satisfies CompactionOutcome);
    const after = this.#assemble();
    this.#policy.record({ turn, context_window: this.#options.context_window, token_estimate_after: after.token_estimate });
    return after;
  }

  #assemble(): AssembledContext {
    const { purpose, layers, tools, token_budget } = this.#options;
    return this.#assembler.assemble({ purpose, layers, conversation: this.conversation.entries, tools, token_budget });
  }
}

import * as v from "valibot";
import { Count, Reason } from "../../contracts/events/common.js";
import { TokenUsage } from "../../contracts/events/message.js";
import { ID_PREFIXES, MessageId, SummaryId, TaskId } from "../../contracts/ids.js";
import { DEFAULT_CONTEXT_WINDOW } from "../../context/budget.js";
import { compact_conversation } from "../../context/compaction/compactor.js";
import { load_compaction_rules } from "../../context/compaction/rules.js";
import type { CompactionScope } from "../../context/compaction/stored-conversation.js";
import { air_home } from "../../project/layout.js";
import { CONTEXT_COMPACT_TOOL } from "../../contracts/tool.js";
import { define_tool, type ToolExecution } from "../define.js";
import type { ModelCompleter } from "../model/complete.js";

/** The session's model, with its capabilities when the provider knows them (`ProviderSession` has them). */
export type CompactorModel = ModelCompleter & { readonly capabilities?: { readonly context_window: number } };

// Plain string patterns: branded ids have no JSON Schema, and the registry makes one for every tool.
const id_pattern = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `expected a ${prefix}_<ulid> id`));

const ContextCompactInput = v.strictObject({
  /** The agent whose conversation to compact; default: the calling agent, unless a task is named. */
  agent_id: v.optional(id_pattern(ID_PREFIXES.agent)),
  /** The task whose current conversation to compact. With neither (and no calling agent): the main conversation. */
  task_id: v.optional(id_pattern(ID_PREFIXES.task)),
  reason: Reason,
});
type ContextCompactInput = v.InferOutput<typeof ContextCompactInput>;

export const ContextCompactOutput = v.strictObject({
  summary_id: SummaryId,
  summary: v.pipe(v.string(), v.minLength(1)),
  covered_message_ids: v.array(MessageId),
  tokens_before: Count,
  tokens_after: Count,
  /** The `compact` task that recorded the compaction. */
  task_id: TaskId,
  /** What the compactor's model call used, and its model: the caller's budget counts the call (budget/usage.ts). */
  usage: TokenUsage,
  model_id: v.string(),
});
export type ContextCompactOutput = v.InferOutput<typeof ContextCompactOutput>;

function scope_of(input: ContextCompactInput, execution: ToolExecution): CompactionScope {
  if (input.agent_id !== undefined) return { kind: "agent", agent_id: input.agent_id };
  if (input.task_id !== undefined) return { kind: "task", task_id: input.task_id };
  if (execution.agent_id !== undefined) return { kind: "agent", agent_id: execution.agent_id };
  return { kind: "main" };
}

/**
 * `context.compact`: the CompactorRole run by the parent, which holds the model (seeds 000 §19.3). A worker's
 * executor calls it when its CompactionPolicy says so; `air compact` calls it for a whole session. Internal:
 * never offered to a model.
 */
export function context_compact_tool(model: CompactorModel) {
  return define_tool({
    name: CONTEXT_COMPACT_TOOL,
    version: 1,
    description: "Internal: compacts a conversation into a summary (copy-on-write; the original messages stay). Never offered to a model.",
    category: "internal",
    input: ContextCompactInput,
    output: ContextCompactOutput,
    permissions: {},
    async execute(input, execution) {
      const { layout } = execution.session.project;
      return compact_conversation({
        connection: execution.session.connection,
        layout,
        scope: scope_of(input, execution),
        reason: input.reason,
        rules: load_compaction_rules(layout, air_home()),
        model,
        context_window: model.capabilities?.context_window ?? DEFAULT_CONTEXT_WINDOW,
        emit: (type, payload) => execution.emit(type, payload),
        signal: execution.signal,
      });
    },
  });
}

/**
 * What a run's model calls used, counted from the bus as they complete: every model call is a
 * `model.complete` tool run (the Main Agent's and each worker's), a compaction a `context.compact` run, and
 * each one's output holds its model and usage — the rows `air tasks` sums for the session.
 */
import * as v from "valibot";
import { TokenUsage } from "../contracts/events/message.js";
import type { RuntimeEvent } from "../contracts/events/registry.js";
import { CONTEXT_COMPACT_TOOL, MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import { request_cost_usd } from "../providers/pricing.js";
import { NO_USAGE, type ModelUsage, type StreamUsage } from "./stream-json-messages.js";

const ModelOutput = v.object({ model_id: v.optional(v.string()), usage: TokenUsage });

type ModelRun = { readonly tool_name: string; readonly agent_id: string | undefined };

export class ModelTally {
  readonly usage: StreamUsage = { ...NO_USAGE };
  readonly by_model: Record<string, ModelUsage> = {};
  /** Model turns: each `model.complete` call (a compaction is no turn of its own, as in `air tasks`). */
  turns = 0;
  api_ms = 0;
  cost_usd = 0;
  readonly #runs = new Map<string, ModelRun>();
  readonly #agent_turns = new Map<string, number>();

  constructor(private readonly default_model: string) {}

  /** Takes the event's part in the tally; other events pass. */
  observe(event: RuntimeEvent): void {
    if (event.type === "tool.started" && (event.payload.tool_name === MODEL_COMPLETE_TOOL || event.payload.tool_name === CONTEXT_COMPACT_TOOL)) {
      this.#runs.set(event.payload.tool_run_id, { tool_name: event.payload.tool_name, agent_id: event.payload.agent_id });
    }
    if (event.type !== "tool.completed") return;
    const run = this.#runs.get(event.payload.tool_run_id);
    if (run === undefined) return;
    this.#runs.delete(event.payload.tool_run_id);
    this.api_ms += event.payload.duration_ms;
    const output = v.safeParse(ModelOutput, event.payload.output);
    if (run.tool_name === MODEL_COMPLETE_TOOL) {
      this.turns += 1;
      if (run.agent_id !== undefined) this.#agent_turns.set(run.agent_id, this.turns_of(run.agent_id) + 1);
    }
    if (output.success) this.#add(output.output.model_id ?? this.default_model, output.output.usage);
  }

  /** The model turns an agent has taken in this run. */
  turns_of(agent_id: string): number {
    return this.#agent_turns.get(agent_id) ?? 0;
  }

  #add(model: string, usage: TokenUsage): void {
    const cache_creation = usage.cache_creation_input_tokens ?? 0;
    const cache_read = usage.cache_read_input_tokens ?? 0;
    // A model with no known price adds nothing: air prices only the models it knows (pricing.ts).
    const cost = request_cost_usd(model, usage) ?? 0;
    this.usage.input_tokens += usage.input_tokens;
    this.usage.output_tokens += usage.output_tokens;
    this.usage.cache_creation_input_tokens += cache_creation;
    this.usage.cache_read_input_tokens += cache_read;
    this.cost_usd += cost;
    const entry = (this.by_model[model] ??= {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
    });
    entry.inputTokens += usage.input_tokens;
    entry.outputTokens += usage.output_tokens;
    entry.cacheReadInputTokens += cache_read;
    entry.cacheCreationInputTokens += cache_creation;
    entry.costUSD += cost;
  }
}

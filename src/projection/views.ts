/**
 * Building blocks shared by hydration (from rows) and folding (from events), so both produce the same
 * views from the same facts.
 */
import type { CanonicalContent } from "../contracts/events/common.js";
import type { TokenUsage } from "../contracts/events/message.js";
import type { CommandRunStatus } from "../contracts/status.js";
import type { ErrorView, ToolResultSummary, ToolUseSummary, UsageTotals } from "./types.js";

/** Prices one model request in US dollars; undefined when the model's price is unknown. */
export type Pricer = (model_id: string | null, usage: TokenUsage) => number | undefined;

export const DEFAULT_TAIL_CHARS = 4096;
const SUMMARY_CHARS = 200;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** The last `limit` characters of `tail + chunk`: a live view, never the record. */
export function append_tail(tail: string, chunk: string, limit: number): string {
  const joined = tail + chunk;
  return joined.length <= limit ? joined : joined.slice(joined.length - limit);
}

const SUMMARY_KEYS = ["command", "path", "pattern", "query", "purpose", "url", "message"];

/** The one field of a tool input a list shows: a shell command, a path, a pattern… */
export function input_summary(input: unknown): string {
  const fields = record(input);
  if (fields === undefined) return "";
  for (const key of SUMMARY_KEYS) {
    const value = fields[key];
    if (typeof value === "string" && value.length > 0) return clip(value.replace(/\s+/g, " "), SUMMARY_CHARS);
  }
  return "";
}

export type ContentView = {
  readonly text: string;
  readonly tool_uses: readonly ToolUseSummary[];
  readonly tool_results: readonly ToolResultSummary[];
};

/** Anthropic canonical content (a string or blocks) as text plus summaries of its tool blocks. */
export function content_view(content: CanonicalContent | null | undefined): ContentView {
  if (content === null || content === undefined) return { text: "", tool_uses: [], tool_results: [] };
  if (typeof content === "string") return { text: content, tool_uses: [], tool_results: [] };
  const texts: string[] = [];
  const tool_uses: ToolUseSummary[] = [];
  const tool_results: ToolResultSummary[] = [];
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    if (block.type === "tool_use") {
      tool_uses.push({ id: String(block.id ?? ""), name: String(block.name ?? ""), input_summary: input_summary(block.input) });
    }
    if (block.type === "tool_result") tool_results.push({ tool_use_id: String(block.tool_use_id ?? ""), is_error: block.is_error === true });
  }
  // Separate text blocks are separate paragraphs, never one run-on line.
  return { text: texts.join("\n\n"), tool_uses, tool_results };
}

/** An `AirError` (or anything stored where one is expected) as the UI shows it. */
export function error_view(error: unknown): ErrorView | null {
  const fields = record(error);
  if (fields === undefined || typeof fields.message !== "string") return null;
  return {
    kind: typeof fields.kind === "string" ? (fields.kind as ErrorView["kind"]) : "system_error",
    message: fields.message,
    user_action: typeof fields.user_action === "string" ? fields.user_action : null,
  };
}

/** Seeds 000 §4.4: a command run's status is derived from its row, never stored. */
export function derive_command_status(run: { completed_at: string | null; cancelled: boolean; exit_code: number | null }): CommandRunStatus {
  if (run.completed_at === null) return "running";
  if (run.cancelled) return "cancelled";
  if (run.exit_code === 0) return "ok";
  if (run.exit_code !== null) return "error";
  return "unknown";
}

export const EMPTY_USAGE: UsageTotals = {
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cost_micro_usd: null,
  context_tokens: null,
};

/** The tokens a request's exchange leaves in the conversation: everything it read plus what it wrote. */
export function context_tokens_of(usage: TokenUsage): number {
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + usage.output_tokens;
}

/** Adds one request; costs are summed in integer micro-dollars so the order of addition cannot matter. */
export function add_usage(totals: UsageTotals, usage: TokenUsage, model_id: string | null, price: Pricer | undefined): UsageTotals {
  const cost = price?.(model_id, usage);
  return {
    ...totals,
    requests: totals.requests + 1,
    input_tokens: totals.input_tokens + usage.input_tokens,
    output_tokens: totals.output_tokens + usage.output_tokens,
    cache_creation_input_tokens: totals.cache_creation_input_tokens + (usage.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: totals.cache_read_input_tokens + (usage.cache_read_input_tokens ?? 0),
    cost_micro_usd: price === undefined ? null : (totals.cost_micro_usd ?? 0) + Math.round((cost ?? 0) * 1_000_000),
  };
}

/** `usage` of a `model.complete` run's output (a `ModelResponse`), when it has one. */
export function model_usage_of(output: unknown): { usage: TokenUsage; model_id: string | null } | undefined {
  const response = record(output);
  const usage = record(response?.usage);
  if (usage === undefined || typeof usage.input_tokens !== "number" || typeof usage.output_tokens !== "number") return undefined;
  return { usage: usage as TokenUsage, model_id: typeof response?.model_id === "string" ? response.model_id : null };
}

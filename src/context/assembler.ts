import type { AssembledContext, ContextOmission, LayerSummary } from "../contracts/context.js";
import { PromptLayerLevel, type PromptLayer } from "../contracts/prompt-layer.js";
import type { ArtifactId } from "../contracts/ids.js";
import type { CanonicalMessage, ContentBlock, ModelRequest } from "../contracts/provider.js";
import type { ToolSchema } from "../contracts/tool.js";
import type { ConversationEntry } from "./conversation.js";
import { CHARS_PER_TOKEN, estimate_tokens, system_blocks } from "./layers.js";

/** Longest tool output handed back to the model in one tool_result; the rest stays in the tool run's record. */
const TOOL_RESULT_MAX_CHARS = 64 * 1024;
/** A request larger than this, serialized, is also written as a `messages` artifact. */
export const MESSAGES_ARTIFACT_THRESHOLD_BYTES = 256 * 1024;

/** The mutable stable layers, lowest priority first: what budget fitting gives up before conversation turns. */
const DROPPABLE_LEVELS = ["evidence", "architecture"] as const;
const LEVEL_ORDER = new Map(PromptLayerLevel.options.map((level, index) => [level, index]));

function level_rank(level: PromptLayerLevel): number {
  const rank = LEVEL_ORDER.get(level);
  if (rank === undefined) throw new Error(`unknown prompt layer level: ${level}`);
  return rank;
}

/** A conversation entry with the message as it is sent (tool output clipped) and its token estimate. */
type Turn = { readonly entry: ConversationEntry; readonly message: CanonicalMessage; readonly tokens: number };

/**
 * Cuts `text` to at most `max` characters, the cut marked. Idempotent: a clipped text is not clipped again,
 * so clipping when a result is recorded and again when a request is assembled gives the same bytes.
 */
export function clip_tool_output(text: string, max: number = TOOL_RESULT_MAX_CHARS): string {
  if (text.length <= max) return text;
  const marker = `… [${text.length} characters, clipped; the tool run's record has all of it]`;
  return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`;
}

export type AssembleInput = {
  readonly purpose: ModelRequest["purpose"];
  /** The stable layers L0–L6, in any order (assembled by level). */
  readonly layers: readonly PromptLayer[];
  /** L7/L8, oldest first: append-only between turns. The last entry is the newest turn (L9 or tool results). */
  readonly conversation: readonly ConversationEntry[];
  readonly tools?: readonly ToolSchema[];
  readonly max_tokens?: number;
  /** Input tokens the request may use (the context window less the output reserve). */
  readonly token_budget: number;
};

export type ContextAssemblerOptions = {
  /** A provider's count of a request's input tokens, when there is one; otherwise characters / 4. */
  readonly count_tokens?: (request: ModelRequest) => number;
  /** Writes a large request as a `messages` artifact: only where an ArtifactStore is (the parent side). */
  readonly write_messages_artifact?: (json: string) => ArtifactId;
  readonly artifact_threshold_bytes?: number;
  readonly tool_result_max_chars?: number;
};

function is_tool_results(message: CanonicalMessage): boolean {
  return message.role === "user" && typeof message.content !== "string" && message.content.some((block) => block.type === "tool_result");
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * ContextAssembler (seeds 000 §10.1, 001 D-046): an Anthropic-canonical request from the prompt layers and
 * the conversation, stable first — system blocks L0–L6 with one cache breakpoint after them, then the
 * conversation, whose newest turn is the immediate instruction or the latest tool results. Over budget it
 * drops L6, then L4, then the oldest turns (never splitting a tool_use from its tool_result, never L0–L3,
 * L5 or the newest turn), records each omission, and asks for compaction when even that does not fit.
 */
export class ContextAssembler {
  readonly #options: ContextAssemblerOptions;
  /** Per-message caches: conversations only grow, so each message is measured and clipped once. */
  readonly #estimates = new WeakMap<CanonicalMessage, number>();
  readonly #clipped = new WeakMap<CanonicalMessage, CanonicalMessage>();

  constructor(options: ContextAssemblerOptions = {}) {
    this.#options = options;
  }

  assemble(input: AssembleInput): AssembledContext {
    const layers = [...input.layers].sort((a, b) => level_rank(a.level) - level_rank(b.level));
    const turns: Turn[] = input.conversation.map((entry) => {
      const message = this.#clip(entry.message);
      return { entry, message, tokens: this.#estimate(message) };
    });
    const messages = turns.map((turn) => turn.message);
    const tool_tokens = input.tools === undefined || input.tools.length === 0 ? 0 : estimate_tokens(JSON.stringify(input.tools));
    const omissions: ContextOmission[] = [];
    const kept = this.#fit_layers(layers, tool_tokens + sum(turns.map((turn) => turn.tokens)), input.token_budget, omissions);
    const fixed = tool_tokens + sum(kept.map((layer) => layer.token_estimate));
    const cut = fit_conversation(turns, input.token_budget - fixed);
    for (const { entry, tokens } of turns.slice(0, cut.from)) {
      omissions.push({
        level: is_tool_results(entry.message) ? "tool_output" : "conversation",
        id: entry.id,
        reason: "oldest turn left out to fit the token budget",
        token_estimate: tokens,
      });
    }
    const kept_messages = cut.from === 0 ? messages : [omission_note(cut.from), ...messages.slice(cut.from)];
    const request: ModelRequest = {
      purpose: input.purpose,
      system: system_blocks(kept),
      messages: kept_messages,
      ...(input.tools === undefined ? {} : { tools: [...input.tools] }),
      ...(input.max_tokens === undefined ? {} : { max_tokens: input.max_tokens }),
    };
    const estimate = fixed + cut.tokens;
    const token_estimate = this.#options.count_tokens?.(request) ?? estimate;
    const artifact = this.#write_if_large(request, estimate);
    return {
      request,
      layers: [...kept.map(({ level, id, token_estimate }) => ({ level, id, token_estimate })), ...conversation_summary(turns.slice(cut.from))],
      omissions,
      token_estimate,
      token_budget: input.token_budget,
      compaction_requested: token_estimate > input.token_budget,
      ...(artifact === undefined ? {} : { messages_artifact_id: artifact }),
    };
  }

  /** Drops L6, then L4 layers (last first) while the whole request is over budget. */
  #fit_layers(layers: readonly PromptLayer[], others: number, budget: number, omissions: ContextOmission[]): PromptLayer[] {
    const kept = [...layers];
    let total = others + sum(kept.map((layer) => layer.token_estimate));
    for (const level of DROPPABLE_LEVELS) {
      for (const layer of [...kept].reverse()) {
        if (total <= budget) break;
        if (layer.level !== level || layer.immutable) continue;
        kept.splice(kept.indexOf(layer), 1);
        total -= layer.token_estimate;
        omissions.push({ level, id: layer.id, reason: "left out to fit the token budget", token_estimate: layer.token_estimate });
      }
    }
    return kept;
  }

  #estimate(message: CanonicalMessage): number {
    let tokens = this.#estimates.get(message);
    if (tokens === undefined) {
      tokens = estimate_tokens(typeof message.content === "string" ? message.content : JSON.stringify(message.content));
      this.#estimates.set(message, tokens);
    }
    return tokens;
  }

  #clip(message: CanonicalMessage): CanonicalMessage {
    if (!is_tool_results(message)) return message;
    let clipped = this.#clipped.get(message);
    if (clipped === undefined) {
      const max = this.#options.tool_result_max_chars ?? TOOL_RESULT_MAX_CHARS;
      clipped = { role: message.role, content: (message.content as ContentBlock[]).map((block) => clip_block(block, max)) };
      this.#clipped.set(message, clipped);
    }
    return clipped;
  }

  #write_if_large(request: ModelRequest, estimate: number): ArtifactId | undefined {
    const write = this.#options.write_messages_artifact;
    const threshold = this.#options.artifact_threshold_bytes ?? MESSAGES_ARTIFACT_THRESHOLD_BYTES;
    // A character takes at most 6 bytes serialized (a \u escape): a request this far below needs no serializing.
    if (write === undefined || estimate * CHARS_PER_TOKEN * 6 <= threshold) return undefined;
    const json = JSON.stringify(request);
    return Buffer.byteLength(json) > threshold ? write(json) : undefined;
  }
}

function clip_block(block: ContentBlock, max: number): ContentBlock {
  if (block.type !== "tool_result") return block;
  if (typeof block.content === "string") return block.content.length <= max ? block : { ...block, content: clip_tool_output(block.content, max) };
  if (!Array.isArray(block.content)) return block;
  const content = (block.content as ContentBlock[]).map((inner) =>
    inner.type === "text" && typeof inner.text === "string" && inner.text.length > max ? { ...inner, text: clip_tool_output(inner.text, max) } : inner,
  );
  return { ...block, content };
}

/**
 * Where the conversation starts once the oldest turns that do not fit are left out: at an assistant turn
 * (so a tool_result is never separated from its tool_use), never past the newest turn.
 */
function fit_conversation(turns: readonly Turn[], room: number): { from: number; tokens: number } {
  const total = sum(turns.map((turn) => turn.tokens));
  if (total <= room) return { from: 0, tokens: total };
  const newest = turns.length - 1;
  const [before, last] = [turns.at(-2), turns.at(-1)];
  const protected_from =
    before !== undefined && last !== undefined && is_tool_results(last.message) && before.message.role === "assistant" ? newest - 1 : newest;
  const note_tokens = estimate_tokens(JSON.stringify(omission_note(0)));
  // `dropped` sums the turns before `index`: those left out when the conversation starts there.
  let dropped = 0;
  let best = { from: 0, tokens: total };
  for (const [index, turn] of turns.entries()) {
    if (index > protected_from) break;
    if (index > 0 && turn.message.role === "assistant") {
      best = { from: index, tokens: total - dropped + note_tokens };
      if (best.tokens <= room) break;
    }
    dropped += turn.tokens;
  }
  return best;
}

function omission_note(count: number): CanonicalMessage {
  return { role: "user", content: `[air: the ${count} oldest messages of this conversation are left out to fit the context budget.]` };
}

/** L7–L9 as the context reports them: the conversation, the tool results within it, and the newest instruction. */
function conversation_summary(turns: readonly Turn[]): LayerSummary[] {
  const newest = turns.at(-1);
  const instruction = newest !== undefined && newest.entry.message.role === "user" && !is_tool_results(newest.entry.message) ? newest : undefined;
  let conversation = 0;
  let tool_output = 0;
  for (const turn of turns) {
    if (turn === instruction) continue;
    if (is_tool_results(turn.entry.message)) tool_output += turn.tokens;
    else conversation += turn.tokens;
  }
  const summary: LayerSummary[] = [];
  if (conversation > 0) summary.push({ level: "conversation", id: "messages", token_estimate: conversation });
  if (tool_output > 0) summary.push({ level: "tool_output", id: "tool_results", token_estimate: tool_output });
  if (instruction !== undefined) summary.push({ level: "user_override", id: instruction.entry.id, token_estimate: instruction.tokens });
  return summary;
}

import { randomUUID } from "node:crypto";
import type OpenAI from "openai";
import * as v from "valibot";
import { air_failure, type AirFailure } from "../../contracts/errors.js";
import type { TokenUsage } from "../../contracts/events/message.js";
import { ModelResponse, type ContentBlock, type ModelDelta, type StopReason } from "../../contracts/provider.js";
import type { ToolNameMap } from "../tool-names.js";
import { IncompleteStream } from "./failure.js";
import type { ConversionLosses } from "./report.js";
import { deliver_delta } from "../adapter-common.js";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Delta = Chunk["choices"][number]["delta"];
type ToolCallPiece = NonNullable<Delta["tool_calls"]>[number];

/** A tool call as it streams in: the wire index of `tool_calls` deltas maps to one canonical block. */
type PendingCall = { block: number; id: string | undefined; name: string; arguments: string };

/**
 * Some servers (vLLM, DeepSeek, OpenRouter, Ollama) stream the model's reasoning beside the answer under
 * one of these names. It cannot become a canonical thinking block (those need Anthropic's signature), so
 * it is reported as lost.
 */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/**
 * Follows one Chat Completions stream of the first choice, numbering canonical blocks in the order they
 * first appear (the text, then each tool call, as the model sends them) so that the deltas forwarded
 * while streaming carry the index the block has in the final content.
 */
export class ChatStreamReader {
  readonly #provider_id: string;
  readonly #on_delta: ((delta: ModelDelta) => void) | undefined;
  readonly #calls = new Map<number, PendingCall>();
  #text: { block: number; text: string } | undefined;
  #blocks = 0;
  #refused = false;
  #reasoning = 0;
  #finish_reason: string | undefined;
  #usage: OpenAI.CompletionUsage | undefined;
  #model = "";

  constructor(provider_id: string, on_delta: ((delta: ModelDelta) => void) | undefined) {
    this.#provider_id = provider_id;
    this.#on_delta = on_delta;
  }

  read(chunk: Chunk): void {
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = chunk.usage;
    // Some servers send the usage chunk without a choices array at all.
    const choice = (chunk.choices ?? []).find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) return;
    this.#read_delta(choice.delta ?? {});
    if (choice.finish_reason) this.#finish_reason = choice.finish_reason;
  }

  #read_delta(delta: Delta): void {
    if (typeof delta.content === "string" && delta.content !== "") this.#add_text(delta.content);
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.#refused = true;
      this.#add_text(delta.refusal);
    }
    for (const field of REASONING_FIELDS) {
      const reasoning = (delta as Record<string, unknown>)[field];
      if (typeof reasoning === "string") this.#reasoning += reasoning.length;
    }
    for (const call of delta.tool_calls ?? []) this.#add_call_piece(call);
  }

  #add_text(text: string): void {
    this.#text ??= { block: this.#blocks++, text: "" };
    this.#text.text += text;
    this.#deliver({ kind: "text", index: this.#text.block, text });
  }

  #add_call_piece(piece: ToolCallPiece): void {
    const key = this.#call_key(piece);
    let call = this.#calls.get(key);
    if (call === undefined) {
      call = { block: this.#blocks++, id: undefined, name: "", arguments: "" };
      this.#calls.set(key, call);
    }
    if (piece.id) call.id = piece.id;
    if (piece.function?.name) call.name += piece.function.name;
    const partial_json = piece.function?.arguments;
    if (partial_json) {
      call.arguments += partial_json;
      this.#deliver({ kind: "tool_input", index: call.block, partial_json });
    }
  }

  /**
   * Which call a piece continues. OpenAI numbers them; a server that does not (some local ones) opens a
   * call with its id and continues it with pieces that carry none.
   */
  #call_key(piece: ToolCallPiece): number {
    if (typeof piece.index === "number") return piece.index;
    const known = piece.id === undefined ? undefined : [...this.#calls].find(([, call]) => call.id === piece.id);
    if (known !== undefined) return known[0];
    return piece.id === undefined ? Math.max(0, this.#calls.size - 1) : this.#calls.size;
  }

  /**
   * The finished answer; throws IncompleteStream if the stream ended without a finish_reason. Losses
   * of the response side (reasoning, an unknown finish_reason, no usage) are added to `losses`.
   */
  response(names: ToolNameMap, fallback_model_id: string, losses: ConversionLosses): ModelResponse {
    if (this.#finish_reason === undefined) throw new IncompleteStream("the stream ended before a finish_reason");
    const content: (ContentBlock & { block: number })[] = [];
    if (this.#text !== undefined) content.push({ type: "text", text: this.#text.text, block: this.#text.block });
    for (const call of this.#calls.values()) content.push({ ...this.#tool_use(call, names), block: call.block });
    content.sort((a, b) => a.block - b.block);
    if (this.#reasoning > 0) {
      losses.add(
        "reasoning",
        "response",
        `the model's reasoning text (${this.#reasoning} characters) has no canonical form without an Anthropic signature; it was not kept`,
      );
    }
    const response = {
      model_id: this.#model || fallback_model_id,
      content: content.map(({ block: _block, ...rest }) => rest),
      stop_reason: this.#stop_reason(losses),
      usage: this.#token_usage(losses),
      conversion: losses.report(),
    };
    const checked = v.safeParse(ModelResponse, response);
    if (!checked.success) throw this.#unusable(`the model server sent a response air cannot use: ${v.summarize(checked.issues)}`);
    return checked.output;
  }

  #tool_use(call: PendingCall, names: ToolNameMap): ContentBlock {
    if (call.name === "") throw this.#unusable("the model server sent a tool call without a function name");
    const name = names.to_canonical(call.name);
    // A server that sends no id still needs one per call, unique across the session, for the tool result to name.
    return { type: "tool_use", id: call.id ?? `call_air_${randomUUID()}`, name, input: this.#tool_input(call, name) };
  }

  /** Arguments parsed strictly: a tool never runs on a cut-off or malformed input. */
  #tool_input(call: PendingCall, name: string): Record<string, unknown> {
    // Servers send "" for a call without arguments.
    if (call.arguments.trim() === "") return {};
    let input: unknown;
    try {
      input = JSON.parse(call.arguments);
    } catch (error) {
      const cut = this.#finish_reason === "length";
      throw air_failure(
        {
          kind: "provider_error",
          message: `the model sent malformed JSON as arguments of tool "${name}": ${(error as Error).message}${cut ? " (the answer hit its token limit)" : ""}`,
          retryability: cut ? "not_retryable" : "retryable",
          ...(cut ? { user_action: "Raise max_tokens for this request: the tool call was cut off at the limit." } : {}),
          metadata: { provider_id: this.#provider_id, tool_name: name, finish_reason: this.#finish_reason ?? null },
        },
        error,
      );
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw this.#unusable(`the model sent arguments of tool "${name}" that are not a JSON object: ${call.arguments.slice(0, 200)}`);
    }
    return input as Record<string, unknown>;
  }

  #stop_reason(losses: ConversionLosses): StopReason {
    const calls = this.#calls.size > 0;
    switch (this.#finish_reason) {
      case "length":
        return "max_tokens";
      case "content_filter":
        return "refusal";
      case "tool_calls":
        return "tool_use";
      case "stop":
        // Some servers (older Ollama) finish a turn that calls tools with "stop"; the calls decide.
        return calls ? "tool_use" : this.#refused ? "refusal" : "end_turn";
      default:
        losses.add(
          "finish_reason",
          "response",
          `finish_reason ${JSON.stringify(this.#finish_reason)} has no canonical stop reason; read as ${calls ? "tool_use" : "end_turn"}`,
        );
        return calls ? "tool_use" : "end_turn";
    }
  }

  /**
   * Chat Completions counts cached tokens inside `prompt_tokens`; canonical (Anthropic) usage counts them
   * apart, so `input_tokens` is the uncached rest.
   */
  #token_usage(losses: ConversionLosses): TokenUsage {
    if (this.#usage === undefined) {
      losses.add("usage", "response", "the server sent no token usage (it may ignore stream_options.include_usage); usage is reported as 0");
      return { input_tokens: 0, output_tokens: 0 };
    }
    const cached = this.#usage.prompt_tokens_details?.cached_tokens ?? 0;
    const usage: TokenUsage = { input_tokens: Math.max(0, this.#usage.prompt_tokens - cached), output_tokens: this.#usage.completion_tokens };
    if (cached > 0) usage.cache_read_input_tokens = cached;
    return usage;
  }

  #unusable(message: string): AirFailure {
    return air_failure({ kind: "provider_error", message, retryability: "not_retryable", metadata: { provider_id: this.#provider_id } });
  }

  #deliver(delta: ModelDelta): void {
    deliver_delta(this.#on_delta, delta);
  }
}

import type Anthropic from "@anthropic-ai/sdk";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import type { TokenUsage } from "../contracts/events/message.js";
import { ModelResponse, StopReason, type ContentBlock, type ModelDelta } from "../contracts/provider.js";
import { IncompleteStream } from "./anthropic-failure.js";
import type { ToolNameMap } from "./tool-names.js";
import { deliver_delta } from "./adapter-common.js";

/**
 * Follows one response stream: forwards deltas as they arrive and keeps the raw JSON of each tool
 * input. The SDK's own snapshot parses tool input leniently (a cut-off object still parses); ours is
 * parsed strictly once the block is complete, so a tool never runs on half an input.
 */
export class ResponseStreamReader {
  readonly #tool_json = new Map<number, string>();
  readonly #on_delta: ((delta: ModelDelta) => void) | undefined;
  #stopped = false;

  constructor(on_delta: ((delta: ModelDelta) => void) | undefined) {
    this.#on_delta = on_delta;
  }

  read(event: Anthropic.MessageStreamEvent): void {
    switch (event.type) {
      case "content_block_start":
        if (event.content_block.type === "tool_use") this.#tool_json.set(event.index, "");
        return;
      case "content_block_delta":
        if (event.delta.type === "text_delta") {
          this.#deliver({ kind: "text", index: event.index, text: event.delta.text });
        } else if (event.delta.type === "input_json_delta") {
          this.#tool_json.set(event.index, (this.#tool_json.get(event.index) ?? "") + event.delta.partial_json);
          this.#deliver({ kind: "tool_input", index: event.index, partial_json: event.delta.partial_json });
        }
        return;
      case "message_stop":
        this.#stopped = true;
        return;
      default:
        return;
    }
  }

  /** The finished message as a ModelResponse; throws IncompleteStream if it never finished. */
  response(message: Anthropic.Message, names: ToolNameMap): ModelResponse {
    if (!this.#stopped) throw new IncompleteStream("the stream ended before message_stop");
    const stop_reason = v.safeParse(StopReason, message.stop_reason);
    if (!stop_reason.success) {
      throw air_failure({
        kind: (message.stop_reason as string | null) === "model_context_window_exceeded" ? "context_error" : "provider_error",
        message: `the model stopped with a reason air does not handle: ${JSON.stringify(message.stop_reason)}`,
        retryability: "not_retryable",
        metadata: { provider_id: "anthropic", stop_reason: String(message.stop_reason) },
      });
    }
    const response = {
      model_id: message.model,
      content: message.content.map((block, index) => this.#canonical_block(block, index, names)),
      stop_reason: stop_reason.output,
      usage: usage_of(message.usage),
    };
    const checked = v.safeParse(ModelResponse, response);
    if (!checked.success) {
      throw air_failure({
        kind: "provider_error",
        message: `the model server sent a response air cannot use: ${v.summarize(checked.issues)}`,
        retryability: "not_retryable",
        metadata: { provider_id: "anthropic" },
      });
    }
    return checked.output;
  }

  #canonical_block(block: Anthropic.ContentBlock, index: number, names: ToolNameMap): ContentBlock {
    switch (block.type) {
      case "text":
        // The SDK types citations as always present; a streamed text block may carry none at all.
        return (block.citations ?? []).length === 0 ? { type: "text", text: block.text } : { type: "text", text: block.text, citations: block.citations };
      case "tool_use":
        return { type: "tool_use", id: block.id, name: names.to_canonical(block.name), input: this.#tool_input(block, index) };
      default:
        // Thinking and server-tool blocks go back to the API verbatim in the next turn.
        return { ...block };
    }
  }

  #tool_input(block: Anthropic.ToolUseBlock, index: number): unknown {
    const json = this.#tool_json.get(index);
    if (json === undefined || json === "") return block.input;
    try {
      return JSON.parse(json);
    } catch (error) {
      throw air_failure(
        {
          kind: "provider_error",
          message: `the model sent malformed JSON as input of tool "${block.name}": ${(error as Error).message}`,
          retryability: "retryable",
          metadata: { provider_id: "anthropic", tool_name: block.name },
        },
        error,
      );
    }
  }

  #deliver(delta: ModelDelta): void {
    deliver_delta(this.#on_delta, delta);
  }
}

function usage_of(usage: Anthropic.Usage): TokenUsage {
  const result: TokenUsage = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens };
  if (usage.cache_creation_input_tokens !== null && usage.cache_creation_input_tokens !== undefined) {
    result.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  }
  if (usage.cache_read_input_tokens !== null && usage.cache_read_input_tokens !== undefined) {
    result.cache_read_input_tokens = usage.cache_read_input_tokens;
  }
  return result;
}

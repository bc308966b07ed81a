import type Anthropic from "@anthropic-ai/sdk";
import { air_failure } from "../contracts/errors.js";
import type { CanonicalMessage, ContentBlock, ModelRequest } from "../contracts/provider.js";
import type { ToolNameMap } from "./tool-names.js";

/** The API refuses a request with more `cache_control` breakpoints than this. */
const MAX_CACHE_BREAKPOINTS = 4;

/** How one model is asked: fixed per adapter. */
export type RequestShape = {
  readonly model_id: string;
  readonly default_max_tokens: number;
  /** Whether to add breakpoints of our own (after a string system prompt, on the conversation tail). */
  readonly prompt_caching: boolean;
  /** Extended thinking: the budget for the model's reasoning, on top of the answer's max_tokens. */
  readonly thinking_budget_tokens?: number | undefined;
  /** The model's output limit: max_tokens plus a thinking budget is cut to it. */
  readonly max_output_tokens?: number | undefined;
};

type Block = Record<string, unknown> & { type: string };
const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * A canonical request as the Messages API body. Canonical messages already are Anthropic messages: blocks
 * go out as they are (thinking blocks included, which the API wants back unchanged), tool names are made
 * wire-safe (dots are not allowed), and prompt-cache breakpoints are placed (see `place_breakpoints`).
 */
export function to_message_params(request: ModelRequest, names: ToolNameMap, shape: RequestShape): Anthropic.MessageStreamParams {
  const params: Anthropic.MessageStreamParams = {
    model: shape.model_id,
    max_tokens: request.max_tokens ?? shape.default_max_tokens,
    messages: request.messages.map((message) => to_message_param(message, names)),
  };
  if (typeof request.system === "string" && request.system !== "") {
    params.system = [{ type: "text", text: request.system, ...(shape.prompt_caching ? { cache_control: EPHEMERAL } : {}) }];
  } else if (Array.isArray(request.system) && request.system.length > 0) {
    params.system = request.system.map((block) => ({ ...block }));
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      name: names.to_wire(tool.name),
      description: tool.description,
      // A ToolSchema's input_schema is a JSON Schema object; the SDK only types it more narrowly.
      input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
    }));
  }
  if (shape.thinking_budget_tokens !== undefined) add_thinking(params, shape.thinking_budget_tokens, shape.max_output_tokens);
  place_breakpoints(params, shape.prompt_caching);
  return params;
}

/**
 * The budget comes on top of what the caller asked for the answer; the API counts both in max_tokens and
 * wants max_tokens above the budget, so a limit that leaves no room for an answer is a configuration error.
 */
function add_thinking(params: Anthropic.MessageStreamParams, budget_tokens: number, max_output_tokens: number | undefined): void {
  const max_tokens = Math.min(params.max_tokens + budget_tokens, max_output_tokens ?? Number.MAX_SAFE_INTEGER);
  if (max_tokens <= budget_tokens) {
    throw air_failure({
      kind: "user_error",
      message: `thinking_budget_tokens ${budget_tokens} of model ${params.model} leaves no room for an answer within its ${max_output_tokens} output tokens`,
      retryability: "not_retryable",
      user_action: `Lower thinking_budget_tokens of ${params.model} in ~/.air/models.yaml below ${max_output_tokens}.`,
      metadata: { model_id: params.model, thinking_budget_tokens: budget_tokens },
    });
  }
  params.thinking = { type: "enabled", budget_tokens };
  params.max_tokens = max_tokens;
}

function blocks_with_breakpoints(params: Anthropic.MessageStreamParams): Block[] {
  const system = Array.isArray(params.system) ? (params.system as unknown as Block[]) : [];
  const messages = params.messages.flatMap((message) => (typeof message.content === "string" ? [] : (message.content as unknown as Block[])));
  return [...system, ...messages].filter((block) => block.cache_control !== undefined);
}

/** Thinking blocks and empty text cannot carry a breakpoint; the API refuses them. */
function can_carry_breakpoint(block: Block): boolean {
  if (block.type === "thinking" || block.type === "redacted_thinking") return false;
  return !(block.type === "text" && block.text === "");
}

/**
 * Breakpoints the caller placed (after the stable system layers) are kept; with caching on, one more goes on
 * the conversation tail, so that the next turn reads the whole conversation so far from the cache. Beyond
 * the API's limit of four the earliest are dropped: a later breakpoint's prefix contains an earlier one's.
 */
function place_breakpoints(params: Anthropic.MessageStreamParams, prompt_caching: boolean): void {
  const last = params.messages.at(-1);
  if (prompt_caching && last !== undefined) {
    if (typeof last.content === "string") {
      if (last.content !== "") last.content = [{ type: "text", text: last.content, cache_control: EPHEMERAL }];
    } else {
      const blocks = last.content as unknown as Block[];
      const index = blocks.findLastIndex(can_carry_breakpoint);
      const tail = blocks[index];
      if (tail !== undefined && tail.cache_control === undefined) tail.cache_control = EPHEMERAL;
    }
  }
  const placed = blocks_with_breakpoints(params);
  for (const block of placed.slice(0, Math.max(0, placed.length - MAX_CACHE_BREAKPOINTS))) delete block.cache_control;
}

function to_message_param(message: CanonicalMessage, names: ToolNameMap): Anthropic.MessageParam {
  if (typeof message.content === "string") return { role: message.role, content: message.content };
  return {
    role: message.role,
    // Canonical blocks are Anthropic blocks kept loose in the contract; they go out as they are (copied, so
    // that placing a breakpoint never writes into the caller's messages).
    content: message.content.map((block) => to_block_param(block, names)) as unknown as Anthropic.ContentBlockParam[],
  };
}

function to_block_param(block: ContentBlock, names: ToolNameMap): ContentBlock {
  if (block.type === "tool_use" && typeof block.name === "string") return { ...block, name: names.to_wire(block.name) };
  return { ...block };
}

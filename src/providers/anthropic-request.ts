import type Anthropic from "@anthropic-ai/sdk";
import type { CanonicalMessage, ContentBlock, ModelRequest } from "../contracts/provider.js";
import type { ToolNameMap } from "./tool-names.js";

/**
 * A canonical request as the Messages API body. Canonical messages already are Anthropic messages; the
 * only translation is tool names (dots are not allowed on the wire) and a cache breakpoint after the
 * system prompt, so that tools + system — the stable prefix — are cached across the turns of a session.
 */
export function to_message_params(
  request: ModelRequest,
  names: ToolNameMap,
  model_id: string,
  default_max_tokens: number,
): Anthropic.MessageStreamParams {
  const params: Anthropic.MessageStreamParams = {
    model: model_id,
    max_tokens: request.max_tokens ?? default_max_tokens,
    messages: request.messages.map((message) => to_message_param(message, names)),
  };
  if (typeof request.system === "string" && request.system !== "") {
    params.system = [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }];
  } else if (Array.isArray(request.system) && request.system.length > 0) {
    params.system = request.system;
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      name: names.to_wire(tool.name),
      description: tool.description,
      // A ToolSchema's input_schema is a JSON Schema object; the SDK only types it more narrowly.
      input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
    }));
  }
  return params;
}

function to_message_param(message: CanonicalMessage, names: ToolNameMap): Anthropic.MessageParam {
  if (typeof message.content === "string") return { role: message.role, content: message.content };
  return {
    role: message.role,
    // Canonical blocks are Anthropic blocks kept loose in the contract; they go out as they are.
    content: message.content.map((block) => to_block_param(block, names)) as unknown as Anthropic.ContentBlockParam[],
  };
}

function to_block_param(block: ContentBlock, names: ToolNameMap): ContentBlock {
  if (block.type === "tool_use" && typeof block.name === "string") return { ...block, name: names.to_wire(block.name) };
  return block;
}

/**
 * The lines of `air run -p --output-format stream-json`, in the shapes Claude Code's stream-json (the Agent
 * SDK's `SDKMessage`) has: a `system`/`init` line first, an `assistant` line per message of an agent, a
 * `user` line per tool result an agent's model is sent, and a `result` line last. Tools that read Claude
 * Code's stream read air's with no change; air's own events stay in `--output-format events`.
 */
import { randomUUID } from "node:crypto";
import type { PermissionMode } from "../contracts/events/permission.js";
import type { CanonicalContent } from "../contracts/events/common.js";

/** Token counts with Anthropic's meaning: `input_tokens` excludes the cache reads and writes. */
export type StreamUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

export const NO_USAGE: StreamUsage = Object.freeze({ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

type TextBlock = { type: "text"; text: string };
type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: unknown };
type ToolResultBlock = { type: "tool_result"; tool_use_id: string; content: unknown; is_error: boolean };
/** Another block of a model's message (thinking, image): passed on as the model sent it. */
type OtherBlock = { type: string; [key: string]: unknown };
type Block = TextBlock | ToolUseBlock | ToolResultBlock | OtherBlock;

export type SystemInit = {
  type: "system";
  subtype: "init";
  uuid: string;
  session_id: string;
  cwd: string;
  model: string;
  tools: string[];
  mcp_servers: { name: string; status: string }[];
  permissionMode: ClaudePermissionMode;
  apiKeySource: string;
  slash_commands: string[];
  output_style: string;
  air_version: string;
};

export type AssistantLine = {
  type: "assistant";
  uuid: string;
  session_id: string;
  parent_tool_use_id: string | null;
  message: {
    id: string;
    type: "message";
    role: "assistant";
    model: string;
    content: Block[];
    stop_reason: string | null;
    stop_sequence: null;
    usage: StreamUsage;
  };
};

export type UserLine = {
  type: "user";
  uuid: string;
  session_id: string;
  parent_tool_use_id: string | null;
  message: { role: "user"; content: Block[] };
};

export type ResultSubtype = "success" | "error_max_turns" | "error_during_execution";

/** What each model was used for, as Claude Code's `modelUsage` counts it. */
export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
};

export type ResultLine = {
  type: "result";
  subtype: ResultSubtype;
  uuid: string;
  session_id: string;
  is_error: boolean;
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  result: string;
  /** The error subtypes' reasons, as Claude Code lists them. */
  errors?: string[];
  total_cost_usd: number;
  usage: StreamUsage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: { tool_name: string; tool_use_id: string; tool_input: unknown }[];
};

export type StreamLine = SystemInit | AssistantLine | UserLine | ResultLine;

type ClaudePermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions";

const CLAUDE_MODE: Readonly<Record<PermissionMode, ClaudePermissionMode>> = {
  default: "default",
  "accept-edits": "acceptEdits",
  plan: "plan",
  bypass: "bypassPermissions",
};

/** What the `init` line tells about the run about to start. */
export type InitFacts = {
  readonly session_id: string;
  readonly cwd: string;
  readonly model: string;
  /** The tools the runtime offers models, by their registry names. */
  readonly tools: readonly string[];
  readonly permission_mode: PermissionMode;
  /** Where the provider's key came from (`env:ANTHROPIC_API_KEY`, `credentials.yaml`, …). */
  readonly api_key_source: string;
  readonly air_version: string;
};

/** MCP tools are registered as `mcp.<server>.<tool>`: each server that offers one. */
function mcp_servers(tools: readonly string[]): { name: string; status: string }[] {
  const names = new Set(tools.filter((name) => name.startsWith("mcp.")).map((name) => name.split(".")[1] ?? ""));
  // air starts an MCP server when one of its tools is first called.
  return [...names].filter((name) => name !== "").map((name) => ({ name, status: "pending" }));
}

export function init_line(facts: InitFacts): SystemInit {
  return {
    type: "system",
    subtype: "init",
    uuid: randomUUID(),
    session_id: facts.session_id,
    cwd: facts.cwd,
    model: facts.model,
    tools: [...facts.tools],
    mcp_servers: mcp_servers(facts.tools),
    permissionMode: CLAUDE_MODE[facts.permission_mode],
    apiKeySource: facts.api_key_source,
    // air's slash commands belong to its TUI; a headless run takes none.
    slash_commands: [],
    output_style: "default",
    air_version: facts.air_version,
  };
}

/** A message's content as blocks: text stays text, a tool_result gets the `is_error` Claude Code always sets. */
export function blocks_of(content: CanonicalContent): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((block): Block => (block.type === "tool_result" ? { ...block, is_error: block.is_error === true } : { ...block }));
}

export type AssistantFacts = {
  readonly message_id: string;
  readonly model: string;
  readonly content: Block[];
  readonly stop_reason: string | null;
  readonly usage: StreamUsage;
};

export function assistant_line(session_id: string, parent_tool_use_id: string | null, facts: AssistantFacts): AssistantLine {
  return {
    type: "assistant",
    uuid: randomUUID(),
    session_id,
    parent_tool_use_id,
    message: {
      id: facts.message_id,
      type: "message",
      role: "assistant",
      model: facts.model,
      content: facts.content,
      stop_reason: facts.stop_reason,
      stop_sequence: null,
      usage: facts.usage,
    },
  };
}

export function user_line(session_id: string, parent_tool_use_id: string | null, content: Block[]): UserLine {
  return { type: "user", uuid: randomUUID(), session_id, parent_tool_use_id, message: { role: "user", content } };
}

export function tool_result(tool_use_id: string, content: string, is_error: boolean): ToolResultBlock {
  return { type: "tool_result", tool_use_id, content, is_error };
}

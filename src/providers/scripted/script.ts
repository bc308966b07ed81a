import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { air_failure, type AirFailure } from "../../contracts/errors.js";
import { DelayMs, RequestMatcher } from "./conversation.js";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const NonEmpty = v.pipe(v.string(), v.minLength(1));

/** What a request must look like for its turn to be answered; a mismatch is answered with a 400. */
export const TurnExpectation = v.strictObject({
  system_contains: v.optional(v.string()),
  last_user_contains: v.optional(v.string()),
  /** Tool names the request must offer (registry names such as fs.read, or their wire form fs-read). */
  tools: v.optional(v.array(NonEmpty)),
  tool_result_contains: v.optional(v.string()),
});
export type TurnExpectation = v.InferOutput<typeof TurnExpectation>;

/**
 * Reply content in Anthropic canonical form, whichever API the request came in on. A thinking block is
 * sent by the Messages API as a thinking block (with a made-up signature unless one is given), by Chat
 * Completions as `reasoning_content`, the way vLLM and DeepSeek send reasoning.
 */
export const ScriptedBlock = v.variant("type", [
  v.strictObject({ type: v.literal("text"), text: v.string() }),
  v.strictObject({ type: v.literal("tool_use"), name: NonEmpty, input: v.record(v.string(), v.unknown()), id: v.optional(NonEmpty) }),
  v.strictObject({ type: v.literal("thinking"), thinking: v.string(), signature: v.optional(NonEmpty) }),
]);
export type ScriptedBlock = v.InferOutput<typeof ScriptedBlock>;

const ScriptedUsage = v.strictObject({
  input_tokens: v.optional(Count),
  output_tokens: v.optional(Count),
  cache_creation_input_tokens: v.optional(Count),
  cache_read_input_tokens: v.optional(Count),
});

export const ScriptedReply = v.strictObject({
  content: v.pipe(v.array(ScriptedBlock), v.minLength(1)),
  /** Default: tool_use when the reply calls a tool, end_turn otherwise. */
  stop_reason: v.optional(v.picklist(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"])),
  /** Default: estimated from the sizes of request and reply. */
  usage: v.optional(ScriptedUsage),
  /** Only for the Chat Completions endpoint: how a server may deviate from the mapping of the canonical reply. */
  openai: v.optional(
    v.strictObject({
      /** Sent instead of the finish_reason mapped from stop_reason (e.g. a server's own "eos"). */
      finish_reason: v.optional(NonEmpty),
      /** Send no usage even when stream_options.include_usage asks for it, as some servers do. */
      omit_usage: v.optional(v.literal(true)),
    }),
  ),
});
export type ScriptedReply = v.InferOutput<typeof ScriptedReply>;

export const ErrorStatus = v.picklist([400, 401, 403, 404, 429, 500, 503, 529]);
export type ErrorStatus = v.InferOutput<typeof ErrorStatus>;

export const ScriptedError = v.strictObject({
  status: ErrorStatus,
  /** Default: the type the real API uses for the status (rate_limit_error for 429, …). */
  type: v.optional(NonEmpty),
  message: v.optional(NonEmpty),
  /** Sent as the `retry-after` header. */
  retry_after_s: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** For a streaming request: start the stream, then send the error as an SSE `error` event (HTTP 200). */
  in_stream: v.optional(v.boolean()),
});
export type ScriptedError = v.InferOutput<typeof ScriptedError>;

/**
 * One answer. In the file exactly one of reply / error / broken_stream; parsed, a tagged union.
 * `broken_stream`: the stream starts, sends some text, and the connection is cut.
 */
export const Turn = v.pipe(
  v.strictObject({
    expect: v.optional(TurnExpectation),
    reply: v.optional(ScriptedReply),
    error: v.optional(ScriptedError),
    broken_stream: v.optional(v.literal(true)),
    /** Wait this long before answering; overrides the conversation's and the script's delay. */
    delay_ms: v.optional(DelayMs),
  }),
  v.check(
    (turn) => [turn.reply, turn.error, turn.broken_stream].filter((part) => part !== undefined).length === 1,
    "a turn has exactly one of reply, error, broken_stream",
  ),
  v.transform((turn) => {
    const common = { expect: turn.expect ?? {}, delay_ms: turn.delay_ms };
    if (turn.reply !== undefined) return { kind: "reply" as const, ...common, reply: turn.reply };
    if (turn.error !== undefined) return { kind: "error" as const, ...common, error: turn.error };
    return { kind: "broken_stream" as const, ...common };
  }),
);
export type TurnInput = v.InferInput<typeof Turn>;
export type Turn = v.InferOutput<typeof Turn>;

/**
 * The turns that answer the requests a matcher selects, in order, whatever other requests come in between:
 * a worker's conversation keyed by its task, so a parallel run plays the same under any interleaving.
 */
export const Conversation = v.strictObject({
  /** Named in the recorded requests and in refusals. */
  name: NonEmpty,
  match: RequestMatcher,
  /** Before each of its turns, unless the turn says otherwise. */
  delay_ms: v.optional(DelayMs),
  turns: v.pipe(v.array(Turn), v.minLength(1)),
});
export type Conversation = v.InferOutput<typeof Conversation>;

/**
 * A request is answered by the one conversation whose matcher selects it; when none does, by the next of
 * the turns of its requester (the `x-air-requester` header; "main" when absent), in arrival order.
 */
export const Script = v.pipe(
  v.strictObject({
    turns: v.optional(v.record(NonEmpty, v.array(Turn)), {}),
    conversations: v.optional(v.array(Conversation), []),
    /** Before every turn, unless its conversation or the turn says otherwise. */
    delay_ms: v.optional(DelayMs),
  }),
  v.check((script) => new Set(script.conversations.map((c) => c.name)).size === script.conversations.length, "conversation names must be unique"),
);
export type ScriptInput = v.InferInput<typeof Script>;
export type Script = v.InferOutput<typeof Script>;

function bad_script(source: string, why: string, cause?: unknown): AirFailure {
  return air_failure(
    {
      kind: "user_error",
      message: `model script ${source} is invalid: ${why}`,
      retryability: "not_retryable",
      user_action: `Fix ${source}: it must look like { turns: { main: [ { reply: { content: [ { type: text, text: "…" } ] } } ] } }, or have conversations: [ { name, match: { task_title: "…" }, turns: [ … ] } ]; see src/providers/scripted/README.md for every field.`,
      metadata: { file: source },
    },
    cause,
  );
}

/** Scripts that came out of `parse_script`: their turns are already in parsed form and must not be parsed again. */
const parsed_scripts = new WeakSet<Script>();

/** A script given as a value (parsed JSON/YAML, an object literal in a test, or a script parsed before). */
export function parse_script(value: unknown, source = "(inline script)"): Script {
  if (typeof value === "object" && value !== null && parsed_scripts.has(value as Script)) return value as Script;
  const parsed = v.safeParse(Script, value);
  if (!parsed.success) throw bad_script(source, v.summarize(parsed.issues));
  parsed_scripts.add(parsed.output);
  return parsed.output;
}

/** A script file: `.json`, or YAML (`.yaml`/`.yml`, or anything else). */
export function load_script(file: string): Script {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, "utf8");
  } catch (error) {
    throw air_failure(
      {
        kind: "user_error",
        message: `cannot read model script ${absolute}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        retryability: "not_retryable",
        user_action: `Check the path ${absolute}.`,
        metadata: { file: absolute },
      },
      error,
    );
  }
  let value: unknown;
  try {
    value = absolute.endsWith(".json") ? JSON.parse(text) : YAML.parse(text);
  } catch (error) {
    throw bad_script(absolute, `it is not valid ${absolute.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`, error);
  }
  return parse_script(value, absolute);
}

import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import type { ContentBlock } from "../../contracts/provider.js";
import type { ConversionLosses } from "./report.js";

/** The canonical (Anthropic) blocks Chat Completions can carry, as far as the conversion reads them. */
export const TextBlock = v.looseObject({ type: v.literal("text"), text: v.string() });

export const ImageBlock = v.looseObject({ type: v.literal("image"), source: v.looseObject({ type: v.string() }) });

const Base64Source = v.looseObject({ type: v.literal("base64"), media_type: v.string(), data: v.string() });
const UrlSource = v.looseObject({ type: v.literal("url"), url: v.string() });

/**
 * The `image_url.url` for an image's source: a data URL for base64, the URL itself for a URL; undefined
 * for Anthropic's Files API (`file_id`) and any newer source, which Chat Completions cannot reach.
 */
export function image_url_of(block: v.InferOutput<typeof ImageBlock>): string | undefined {
  const base64 = v.safeParse(Base64Source, block.source);
  if (base64.success) return `data:${base64.output.media_type};base64,${base64.output.data}`;
  const url = v.safeParse(UrlSource, block.source);
  return url.success ? url.output.url : undefined;
}

export const ToolUseBlock = v.looseObject({
  type: v.literal("tool_use"),
  id: v.pipe(v.string(), v.minLength(1)),
  name: v.pipe(v.string(), v.minLength(1)),
  input: v.unknown(),
});

export const ToolResultBlock = v.looseObject({
  type: v.literal("tool_result"),
  tool_use_id: v.pipe(v.string(), v.minLength(1)),
  content: v.optional(v.union([v.string(), v.array(v.looseObject({ type: v.string() }))])),
  is_error: v.optional(v.boolean()),
});

/**
 * A block whose type the conversion handles must have that type's shape: canonical messages are built by
 * air, so a malformed one is a bug to report, not a block to drop.
 */
export function block_as<const S extends v.GenericSchema>(schema: S, block: ContentBlock): v.InferOutput<S> {
  const parsed = v.safeParse(schema, block);
  if (parsed.success) return parsed.output;
  throw air_failure({
    kind: "system_error",
    message: `a canonical "${block.type}" block cannot be converted to Chat Completions: ${v.summarize(parsed.issues)}`,
    retryability: "not_retryable",
  });
}

const DROPPED: Readonly<Record<string, string>> = {
  thinking: "thinking blocks have no Chat Completions equivalent; they were left out of the request",
  redacted_thinking: "redacted thinking blocks have no Chat Completions equivalent; they were left out of the request",
  document: "documents (PDF or text sources) cannot be sent over Chat Completions; they were left out of the request",
  image: "an image whose source is neither base64 nor a URL cannot be sent over Chat Completions; it was left out",
};

/** Records `block` as left out of the request. */
export function drop_block(block: ContentBlock, losses: ConversionLosses, where = ""): void {
  const detail = DROPPED[block.type] ?? `"${block.type}" blocks have no Chat Completions equivalent; they were left out of the request`;
  losses.add(block.type, "request", where === "" ? detail : `${detail} (${where})`);
}

/** What a kept block loses on the way: its cache breakpoint, its citations. */
export function note_block_extras(block: ContentBlock, losses: ConversionLosses): void {
  if (block.cache_control !== undefined && block.cache_control !== null) {
    losses.add("cache_control", "request", "prompt-cache breakpoints cannot be expressed in Chat Completions; the server caches by its own rules");
  }
  if (Array.isArray(block.citations) && block.citations.length > 0) {
    losses.add("citations", "request", "citations of text blocks cannot be sent over Chat Completions; the text was sent without them");
  }
}

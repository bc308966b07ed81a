import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ArtifactRef } from "../contracts/artifact.js";
import { air_failure } from "../contracts/errors.js";
import type { ToolResultContentBlock, ToolResultBlocks } from "../contracts/tool.js";
import { default_redactor } from "../permissions/secret-redactor.js";
import type { ToolExecution } from "../tools/define.js";

/** Past this much text, a result is saved whole as an artifact and the model gets its beginning and the artifact. */
const LARGE_RESULT_CHARS = 32 * 1024;
const PREVIEW_CHARS = 8 * 1024;
/** Longer than a secret the redactor knows, so one that starts in the preview is redacted whole, not cut first. */
const REDACTION_MARGIN = 16 * 1024;
/** Larger images are saved as artifacts rather than sent to the model (the Anthropic API's limit is 5 MB). */
const MAX_IMAGE_BASE64_CHARS = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

type McpContent = CallToolResult["content"][number];
type ImageMediaType = Extract<ToolResultContentBlock, { type: "image" }>["source"]["media_type"];

function is_image_type(mime: string): mime is ImageMediaType {
  return IMAGE_TYPES.has(mime);
}

function saved_note(what: string, ref: ArtifactRef, size: number): ToolResultContentBlock {
  return { type: "text", text: `[${what}: ${size} bytes, saved as ${ref.uri}; read it with artifact.read]` };
}

/** One block of an MCP result as canonical blocks: binary content that the model cannot take becomes an artifact. */
function block_of(content: McpContent, execution: ToolExecution): ToolResultContentBlock[] {
  switch (content.type) {
    case "text":
      return [{ type: "text", text: content.text }];
    case "image": {
      if (is_image_type(content.mimeType) && content.data.length <= MAX_IMAGE_BASE64_CHARS) {
        return [{ type: "image", source: { type: "base64", media_type: content.mimeType, data: content.data } }];
      }
      const bytes = Buffer.from(content.data, "base64");
      const ref = execution.artifact({ type: "other", content: bytes, mime_type: content.mimeType });
      return [saved_note(`an image (${content.mimeType})`, ref, bytes.byteLength)];
    }
    case "audio": {
      const bytes = Buffer.from(content.data, "base64");
      const ref = execution.artifact({ type: "other", content: bytes, mime_type: content.mimeType });
      return [saved_note(`audio (${content.mimeType})`, ref, bytes.byteLength)];
    }
    case "resource": {
      const { resource } = content;
      const mime = resource.mimeType ?? "unknown type";
      if ("text" in resource) return [{ type: "text", text: `[resource ${resource.uri} (${mime})]\n${resource.text}` }];
      const bytes = Buffer.from(resource.blob, "base64");
      const ref = execution.artifact({ type: "other", content: bytes, ...(resource.mimeType === undefined ? {} : { mime_type: resource.mimeType }) });
      return [saved_note(`the resource ${resource.uri} (${mime})`, ref, bytes.byteLength)];
    }
    case "resource_link":
      return [{ type: "text", text: `[a link to the resource ${content.uri}${content.name === "" ? "" : ` (${content.name})`}]` }];
  }
}

/** Text past the limit: saved whole (redacted like every artifact), the model given its beginning and where the rest is. */
function bounded(blocks: ToolResultContentBlock[], execution: ToolExecution): ToolResultContentBlock[] {
  const text = blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  if (text.length <= LARGE_RESULT_CHARS) return blocks;
  const ref = execution.artifact({ type: "report", content: text, mime_type: "text/plain", original_name: `${execution.tool_name}.txt` });
  // Redacted before it is cut, with a margin: a key cut in half at the end of the preview would no longer look like one.
  const preview: ToolResultContentBlock = {
    type: "text",
    text: default_redactor()
      .redact(text.slice(0, PREVIEW_CHARS + REDACTION_MARGIN))
      .slice(0, PREVIEW_CHARS),
  };
  const note: ToolResultContentBlock = {
    type: "text",
    text: `[the result is ${text.length} characters; the first ${PREVIEW_CHARS} are above, all of it is saved as ${ref.uri}: read more with artifact.read]`,
  };
  return [preview, note, ...blocks.filter((block) => block.type !== "text")];
}

/**
 * An MCP tool result as air's tool output: canonical blocks (text, images) and the structured content. A result the
 * tool marked as an error is a tool error, its text the message; a large one is bounded, its whole text an artifact.
 */
export function result_output(result: CallToolResult, execution: ToolExecution): ToolResultBlocks {
  const blocks = result.content.flatMap((content) => block_of(content, execution));
  if (result.isError === true) {
    const text = blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n") || "(no message)";
    throw air_failure({
      kind: "tool_error",
      message: `${execution.tool_name} reported an error: ${text.slice(0, 4000)}`,
      retryability: "retryable_after_change",
      user_action: "Read the tool's message; call it again with other input, or do without it.",
    });
  }
  const structured = result.structuredContent;
  const structured_text = structured === undefined ? undefined : JSON.stringify(structured);
  if (blocks.length === 0 && structured_text !== undefined) blocks.push({ type: "text", text: structured_text });
  // Large structured content stays out of the recorded output; its text (or the artifact of it) carries it.
  const kept = structured !== undefined && (structured_text ?? "").length <= LARGE_RESULT_CHARS ? { structured } : {};
  return { kind: "tool_result_blocks", blocks: bounded(blocks, execution), ...kept };
}

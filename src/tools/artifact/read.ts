import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { artifacts } from "../../db/schema.js";
import { session_artifacts_dir } from "../../project/layout.js";
import { define_tool, type ToolExecution } from "../define.js";
import { read_lines } from "./lines.js";

const DEFAULT_LINES = 2000;
const DEFAULT_BYTES = 64 * 1024;
const MAX_BYTES = 1024 * 1024;
/** Characters of text returned at most, whatever the line limit: what a model can take in one go. */
const MAX_CONTENT_CHARS = 256 * 1024;

export const ArtifactReadInput = v.strictObject({
  // A plain string pattern: the branded ArtifactId has no JSON Schema for the model.
  id: v.pipe(
    v.string(),
    v.regex(/^art_[0-9A-HJKMNP-TV-Z]{26}$/, "expected an artifact id (art_<ulid>)"),
    v.description("The artifact id (art_…) of this session, as a tool output named it."),
  ),
  unit: v.optional(
    v.pipe(v.picklist(["lines", "bytes"]), v.description("Read by lines (default, text) or by bytes (binary content comes back base64).")),
    "lines",
  ),
  offset: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.description("lines: first line, 1-based (default 1); bytes: first byte, 0-based (default 0).")),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_BYTES),
      v.description(`lines: how many (default ${DEFAULT_LINES}); bytes: how many (default ${DEFAULT_BYTES}, at most ${MAX_BYTES}).`),
    ),
  ),
});
type ArtifactReadInput = v.InferOutput<typeof ArtifactReadInput>;

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const ArtifactReadOutput = v.strictObject({
  id: ArtifactId,
  type: v.string(),
  original_name: v.nullable(v.string()),
  mime_type: v.nullable(v.string()),
  size_bytes: Count,
  unit: v.picklist(["lines", "bytes"]),
  content: v.string(),
  encoding: v.picklist(["utf8", "base64"]),
  /** lines: first and last line returned (0 when none); bytes: the byte range [start, end). */
  start: Count,
  end: Count,
  /** lines only: how many lines the artifact has. */
  total_lines: v.optional(Count),
  /** More of the artifact follows (or precedes) what was returned. */
  truncated: v.boolean(),
});

function read_failure(message: string, user_action: string, metadata: Record<string, string>) {
  return air_failure({ kind: "tool_error", message, retryability: "retryable_after_change", user_action, metadata });
}

function is_inside(folder: string, file: string): boolean {
  return file.startsWith(folder + path.sep);
}

/**
 * The artifact's file, refusing any recorded path that leaves the session's artifacts folder — lexically
 * (`../`, an absolute path) or through a symlink — before anything is opened.
 */
function artifact_file(execution: ToolExecution, id: string, recorded: string): string {
  const folder = session_artifacts_dir(execution.session.project.layout, execution.session.id);
  const lexical = path.resolve(folder, recorded);
  const outside_failure = () =>
    air_failure({
      kind: "policy_error",
      message: `artifact ${id} is recorded at ${recorded}, outside the session's artifacts folder`,
      retryability: "not_retryable",
      user_action: "The session database has been tampered with or is corrupt; do not read this artifact.",
      metadata: { artifact_id: id, path: recorded },
    });
  if (!is_inside(folder, lexical)) throw outside_failure();
  let real: string;
  try {
    real = fs.realpathSync(lexical);
  } catch {
    throw read_failure(`the file of artifact ${id} is missing`, "The artifact was deleted from disk; run the step that produced it again.", {
      artifact_id: id,
    });
  }
  if (!is_inside(fs.realpathSync(folder), real)) throw outside_failure();
  if (!fs.statSync(real).isFile())
    throw read_failure(`the file of artifact ${id} is not a regular file`, "Run the step that produced it again.", { artifact_id: id });
  return real;
}

function read_bytes(file: string, size: number, input: ArtifactReadInput) {
  const start = Math.min(input.offset ?? 0, size);
  const length = Math.min(input.limit ?? DEFAULT_BYTES, size - start);
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, buffer, 0, length, start);
  } finally {
    fs.closeSync(fd);
  }
  const text = buffer.toString("utf8");
  const utf8 = !buffer.includes(0) && Buffer.from(text, "utf8").equals(buffer);
  return {
    content: utf8 ? text : buffer.toString("base64"),
    encoding: utf8 ? ("utf8" as const) : ("base64" as const),
    start,
    end: start + length,
    truncated: start > 0 || start + length < size,
  };
}

export const artifact_read = define_tool({
  name: "artifact.read",
  version: 1,
  description:
    "Read an artifact of this session (a command log, diff, scan listing …) by its id: by lines (default) or by bytes, " +
    "from an offset, up to a limit. Use it for output a tool saved instead of returning it whole.",
  category: "project",
  input: ArtifactReadInput,
  output: ArtifactReadOutput,
  // Only files this session recorded, inside its own artifacts folder (checked in execute): nothing of the project.
  permissions: {},
  async execute(input, execution) {
    const { session } = execution;
    const row = session.connection.db.select().from(artifacts).where(eq(artifacts.id, input.id)).get();
    if (row === undefined || row.session_id !== session.id) {
      throw read_failure(`no artifact ${input.id} in this session`, "Use an artifact id a tool of this session returned.", { artifact_id: input.id });
    }
    const file = artifact_file(execution, input.id, row.path);
    const size = fs.statSync(file).size;
    const described = { id: row.id, type: row.type, original_name: row.original_name, mime_type: row.mime_type, size_bytes: size, unit: input.unit };
    if (input.unit === "bytes") return { ...described, ...read_bytes(file, size, input) };
    const lines = read_lines(file, { first: Math.max(1, input.offset ?? 1), count: input.limit ?? DEFAULT_LINES, max_chars: MAX_CONTENT_CHARS });
    if (lines.binary) {
      throw read_failure(`artifact ${input.id} is binary`, 'Read it with unit: "bytes" (the content comes back base64).', { artifact_id: input.id });
    }
    return {
      ...described,
      content: lines.content,
      encoding: "utf8" as const,
      start: lines.start,
      end: lines.end,
      total_lines: lines.total_lines,
      truncated: lines.truncated,
    };
  },
});

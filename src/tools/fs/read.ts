import * as v from "valibot";
import { define_tool } from "../define.js";
import { locate, PathInput, read_text_file, sha256_of } from "./common.js";

const DEFAULT_LIMIT = 2000;
const MAX_CONTENT_CHARS = 256 * 1024;

const Line = v.pipe(v.number(), v.integer(), v.minValue(1));

const FsReadInput = v.strictObject({
  path: PathInput,
  offset: v.optional(v.pipe(Line, v.description("First line to return, 1-based (default 1)."))),
  limit: v.optional(v.pipe(Line, v.maxValue(20_000), v.description(`How many lines to return (default ${DEFAULT_LIMIT}).`))),
});

const FsReadOutput = v.strictObject({
  path: v.string(),
  content: v.string(),
  start_line: v.pipe(v.number(), v.integer(), v.minValue(0)),
  end_line: v.pipe(v.number(), v.integer(), v.minValue(0)),
  total_lines: v.pipe(v.number(), v.integer(), v.minValue(0)),
  truncated: v.boolean(),
  /** False when the file is not valid UTF-8: `content` then has replacement characters and fs.edit refuses it. */
  valid_utf8: v.boolean(),
  sha256: v.string(),
  size_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** Offsets of each line's first character; a trailing newline does not start another line. */
function line_starts(text: string): number[] {
  const starts = text.length === 0 ? [] : [0];
  for (let index = text.indexOf("\n"); index !== -1 && index + 1 < text.length; index = text.indexOf("\n", index + 1)) {
    starts.push(index + 1);
  }
  return starts;
}

export const fs_read = define_tool({
  name: "fs.read",
  version: 1,
  description:
    "Read a text file of the project (whole, or `limit` lines from line `offset`). The read is remembered " +
    "with the file's sha256: fs.edit and fs.write of an existing file require it and that the file is unchanged since.",
  category: "filesystem",
  input: FsReadInput,
  output: FsReadOutput,
  permissions: { reads: (input) => [input.path] },
  async execute(input, execution) {
    const located = locate(execution, input.path);
    const { bytes, text, utf8 } = read_text_file(located);
    const sha256 = sha256_of(bytes);
    execution.observations.record(located.real, sha256);
    const starts = line_starts(text);
    const offset = input.offset ?? 1;
    const limit = input.limit ?? DEFAULT_LIMIT;
    const first = Math.min(offset - 1, starts.length);
    const last = Math.min(first + limit, starts.length);
    let content = first >= starts.length ? "" : text.slice(starts[first], last < starts.length ? starts[last] : text.length);
    let end_line = last;
    let truncated = last < starts.length || first > 0;
    if (content.length > MAX_CONTENT_CHARS) {
      content = content.slice(0, MAX_CONTENT_CHARS);
      const cut = content.lastIndexOf("\n");
      if (cut > 0) content = content.slice(0, cut + 1);
      end_line = first + line_starts(content).length;
      truncated = true;
    }
    return {
      path: located.display,
      content,
      start_line: first >= starts.length ? 0 : first + 1,
      end_line: content === "" ? 0 : end_line,
      total_lines: starts.length,
      truncated,
      valid_utf8: utf8,
      sha256,
      size_bytes: bytes.byteLength,
    };
  },
});

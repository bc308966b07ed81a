import fs from "node:fs";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { is_credential_path } from "../../permissions/paths.js";
import { define_tool } from "../define.js";
import { PathInput } from "./common.js";
import { compile_globs } from "./glob.js";
import { locate_search_root, walk_files, type WalkEntry } from "./walk.js";

const DEFAULT_MAX_MATCHES = 200;
/** Bigger files are skipped: generated bundles and data, not code to read. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
/** Only this much of a line is matched: bounds what one pathological line costs a backtracking regex. */
const MAX_MATCHED_LINE_CHARS = 10_000;
/** Lines returned (match and context) are clipped to this. */
const MAX_RETURNED_LINE_CHARS = 1000;
/** Total work of one call: files opened, bytes read, wall time. */
const MAX_FILES = 50_000;
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
const TIME_BUDGET_MS = 20_000;

const Context = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(20));
const Globs = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(1000))), v.maxLength(50));

export const FsGrepInput = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.maxLength(1000), v.description("A JavaScript regular expression, matched against each line.")),
  path: v.optional(v.pipe(PathInput, v.description("The folder or file to search (default: the project root).")), "."),
  include: v.optional(
    v.pipe(Globs, v.description("Search only files matching one of these globs (relative to the project root; `*.ts` without a slash matches file names).")),
  ),
  exclude: v.optional(v.pipe(Globs, v.description("Skip files and folders matching one of these globs (same form as include)."))),
  case_insensitive: v.optional(v.pipe(v.boolean(), v.description("Match regardless of letter case.")), false),
  before: v.optional(v.pipe(Context, v.description("Lines of context before each match.")), 0),
  after: v.optional(v.pipe(Context, v.description("Lines of context after each match.")), 0),
  max_matches: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2000), v.description(`Stop after this many matching lines (default ${DEFAULT_MAX_MATCHES}).`)),
    DEFAULT_MAX_MATCHES,
  ),
  include_ignored: v.optional(v.pipe(v.boolean(), v.description("Also search files that .gitignore ignores (.git itself never).")), false),
});

const Line = v.pipe(v.number(), v.integer(), v.minValue(1));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const FsGrepOutput = v.strictObject({
  matches: v.array(
    v.strictObject({
      path: v.string(),
      line: Line,
      /** 1-based, in UTF-16 code units, of the first match on the line. */
      column: Line,
      text: v.string(),
      before: v.array(v.string()),
      after: v.array(v.string()),
    }),
  ),
  truncated: v.boolean(),
  truncated_reason: v.optional(v.picklist(["max_matches", "files", "bytes", "time"])),
  files_searched: Count,
  /** Binary, too big, hard-linked, credential or unreadable files. */
  files_skipped: Count,
});

type FsGrepInput = v.InferOutput<typeof FsGrepInput>;
type Match = v.InferOutput<typeof FsGrepOutput>["matches"][number];
type Truncation = NonNullable<v.InferOutput<typeof FsGrepOutput>["truncated_reason"]>;

function compile_regex(input: FsGrepInput): RegExp {
  try {
    return new RegExp(input.pattern, input.case_insensitive ? "i" : "");
  } catch (error) {
    throw air_failure(
      {
        kind: "tool_error",
        message: `invalid regular expression ${JSON.stringify(input.pattern)}: ${(error as Error).message}`,
        retryability: "retryable_after_change",
        user_action: "Fix the pattern (JavaScript RegExp syntax; escape ( ) [ ] { } . * + ? | \\ ^ $ to match them literally).",
        metadata: { pattern: input.pattern },
      },
      error,
    );
  }
}

const clip = (line: string) => (line.length > MAX_RETURNED_LINE_CHARS ? `${line.slice(0, MAX_RETURNED_LINE_CHARS)}…` : line);

/**
 * A file's text, or undefined when it is not one to search. Opened without following a final symlink
 * (a file swapped for one after the walk listed it is not read through); hard-linked files are skipped
 * because the other name may be anywhere, credentials included.
 */
async function text_of(entry: WalkEntry): Promise<Buffer | undefined> {
  if (entry.type !== "file" || is_credential_path(entry.absolute)) return undefined;
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(entry.absolute, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.nlink > 1 || stat.size > MAX_GREP_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    return bytes.subarray(0, 8192).includes(0) ? undefined : bytes;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The matching lines of one file, with context: at most `room`, and only while `in_budget` (asked every
 * thousand lines) holds; `complete` says whether the whole file was searched.
 */
function matches_in(text: string, relative: string, regex: RegExp, input: FsGrepInput, room: number, in_budget: () => boolean) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const strip = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);
  const found: Match[] = [];
  for (const [index, raw] of lines.entries()) {
    if (found.length >= room) break;
    if (index % 1000 === 999 && !in_budget()) return { found, complete: false };
    const line = strip(raw);
    const match = regex.exec(line.length > MAX_MATCHED_LINE_CHARS ? line.slice(0, MAX_MATCHED_LINE_CHARS) : line);
    if (match === null) continue;
    found.push({
      path: relative,
      line: index + 1,
      column: match.index + 1,
      text: clip(line),
      before: lines.slice(Math.max(0, index - input.before), index).map((context) => clip(strip(context))),
      after: lines.slice(index + 1, index + 1 + input.after).map((context) => clip(strip(context))),
    });
  }
  return { found, complete: true };
}

export const fs_grep = define_tool({
  name: "fs.grep",
  version: 1,
  description:
    "Search file contents with a JavaScript regular expression, line by line, in a folder or file of the project. " +
    "Returns each matching line (path, line, column, text) with optional context lines. Respects .gitignore (unless " +
    "include_ignored), skips .git, binary and big files, and never follows symlinks.",
  category: "filesystem",
  input: FsGrepInput,
  output: FsGrepOutput,
  permissions: { reads: (input) => [input.path] },
  async execute(input, execution) {
    const regex = compile_regex(input);
    const included = input.include === undefined || input.include.length === 0 ? () => true : compile_globs(input.include, { basename: true });
    const excluded = input.exclude === undefined || input.exclude.length === 0 ? () => false : compile_globs(input.exclude, { basename: true });
    const root = locate_search_root(execution, input.path);
    const deadline = performance.now() + TIME_BUDGET_MS;
    const in_budget = () => performance.now() <= deadline && !execution.signal.aborted;
    const matches: Match[] = [];
    let truncated_reason: Truncation | undefined;
    let files_searched = 0;
    let files_skipped = 0;
    let bytes_read = 0;
    const walk = walk_files({
      root_real: root.root_real,
      start: root.relative,
      include_ignored: input.include_ignored,
      signal: execution.signal,
      enter: (folder) => !excluded(folder),
    });
    for await (const entry of walk) {
      if (entry.relative !== root.relative && (!included(entry.relative) || excluded(entry.relative))) continue;
      truncated_reason = files_searched >= MAX_FILES ? "files" : bytes_read >= MAX_TOTAL_BYTES ? "bytes" : in_budget() ? undefined : "time";
      if (truncated_reason !== undefined) break;
      const bytes = await text_of(entry);
      if (bytes === undefined) {
        files_skipped += 1;
        continue;
      }
      files_searched += 1;
      bytes_read += bytes.byteLength;
      // One more than there is room for: finding it is what tells that the result is truncated.
      const { found, complete } = matches_in(bytes.toString("utf8"), entry.relative, regex, input, input.max_matches - matches.length + 1, in_budget);
      matches.push(...found);
      if (matches.length > input.max_matches) {
        matches.length = input.max_matches;
        truncated_reason = "max_matches";
      } else if (!complete) {
        truncated_reason = "time";
      }
      if (truncated_reason !== undefined) break;
    }
    execution.signal.throwIfAborted();
    return {
      matches,
      truncated: truncated_reason !== undefined,
      ...(truncated_reason === undefined ? {} : { truncated_reason }),
      files_searched,
      files_skipped,
    };
  },
});

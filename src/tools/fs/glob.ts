import picomatch from "picomatch";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { define_tool } from "../define.js";
import { PathInput } from "./common.js";
import { locate_search_root, walk_files } from "./walk.js";

const DEFAULT_LIMIT = 1000;
/** Entries looked at before giving up: bounds the work of a pattern that matches little in a huge tree. */
const MAX_VISITED = 200_000;

const GlobPattern = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(1000),
  v.description("A glob relative to cwd: `*` within a name, `**` across folders, `{a,b}`, `[abc]`; a leading `!` excludes."),
);

/** The glob patterns of fs.glob and of fs.grep's include/exclude: relative, never climbing out with `..`. */
export function compile_globs(patterns: readonly string[], options: picomatch.PicomatchOptions = {}): (relative: string) => boolean {
  for (const pattern of patterns) {
    const body = pattern.replace(/^!/, "");
    if (body.startsWith("/") || body.split("/").includes("..") || body.includes("\0")) {
      throw air_failure({
        kind: "tool_error",
        message: `the glob ${JSON.stringify(pattern)} is absolute or climbs out with ..`,
        retryability: "retryable_after_change",
        user_action: "Write globs relative to the search folder (set cwd or path to search elsewhere in the project).",
        metadata: { pattern },
      });
    }
  }
  const positive = patterns.filter((pattern) => !pattern.startsWith("!"));
  const negative = patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => pattern.slice(1));
  const matches = positive.length === 0 ? () => true : picomatch(positive, { dot: true, ...options });
  const excluded = negative.length === 0 ? () => false : picomatch(negative, { dot: true, ...options });
  return (relative) => matches(relative) && !excluded(relative);
}

const FsGlobInput = v.strictObject({
  pattern: v.union([GlobPattern, v.pipe(v.array(GlobPattern), v.minLength(1), v.maxLength(50))]),
  cwd: v.optional(v.pipe(PathInput, v.description("The folder the patterns are relative to (default: the project root).")), "."),
  limit: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000), v.description(`How many paths to return at most (default ${DEFAULT_LIMIT}).`)),
    DEFAULT_LIMIT,
  ),
  include_ignored: v.optional(v.pipe(v.boolean(), v.description("Also match files that .gitignore ignores (.git itself never).")), false),
});

const FsGlobOutput = v.strictObject({
  /** Relative to the project root, sorted. */
  paths: v.array(v.string()),
  truncated: v.boolean(),
});

/** Whether a folder (relative to cwd) can hold a match of any pattern: the walk skips the others. */
function could_match_under(patterns: readonly string[]): (folder: string) => boolean {
  const bases = patterns.filter((pattern) => !pattern.startsWith("!")).map((pattern) => picomatch.scan(pattern).base);
  return (folder) => bases.some((base) => base === "" || base === folder || base.startsWith(`${folder}/`) || folder.startsWith(`${base}/`));
}

export const fs_glob = define_tool({
  name: "fs.glob",
  version: 1,
  description:
    "Find files by glob pattern (e.g. `src/**/*.ts`), relative to cwd. Returns paths relative to the project root, " +
    "sorted. Skips .git and what .gitignore ignores (unless include_ignored); symlinks are listed but never followed.",
  category: "filesystem",
  input: FsGlobInput,
  output: FsGlobOutput,
  permissions: { reads: (input) => [input.cwd] },
  async execute(input, execution) {
    const patterns = typeof input.pattern === "string" ? [input.pattern] : input.pattern;
    const matches = compile_globs(patterns);
    const cwd = locate_search_root(execution, input.cwd);
    const from_cwd = (relative: string) => (cwd.relative === "" ? relative : relative.slice(cwd.relative.length + 1));
    const could_match = could_match_under(patterns);
    const paths: string[] = [];
    let truncated = false;
    let visited = 0;
    const walk = walk_files({
      root_real: cwd.root_real,
      start: cwd.relative,
      include_ignored: input.include_ignored,
      signal: execution.signal,
      enter: (folder) => could_match(from_cwd(folder)),
    });
    for await (const entry of walk) {
      visited += 1;
      if (matches(from_cwd(entry.relative))) {
        if (paths.length === input.limit) {
          truncated = true;
          break;
        }
        paths.push(entry.relative);
      }
      if (visited >= MAX_VISITED) {
        truncated = true;
        break;
      }
    }
    execution.signal.throwIfAborted();
    return { paths: paths.sort(), truncated };
  },
});

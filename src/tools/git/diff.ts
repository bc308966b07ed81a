import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { define_tool } from "../define.js";
import { capped_text } from "./output.js";
import { git_in, open_repo, PathsInput, pathspecs, RevInput } from "./repo.js";
import { git_failure } from "./run-git.js";

/** Options of every diff-producing git: no external diff or textconv program, no colour, paths relative to the project. */
export const DIFF_HARDENING = ["--no-ext-diff", "--no-textconv", "--no-color", "--relative"];

const GitDiffInput = v.strictObject({
  staged: v.optional(v.pipe(v.boolean(), v.description("Diff the index (staged changes) instead of the work tree (default false).")), false),
  base: v.optional(v.pipe(RevInput, v.description("Compare against this revision instead of the index."))),
  target: v.optional(v.pipe(RevInput, v.description("With base: compare base with this revision (work tree and index are not involved)."))),
  paths: v.optional(PathsInput),
  context_lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.description("Lines of context (default 3).")), 3),
});

const FileStat = v.strictObject({
  path: v.string(),
  from: v.optional(v.string()),
  /** Null for binary files. */
  added: v.nullable(v.number()),
  deleted: v.nullable(v.number()),
  binary: v.boolean(),
});
type FileStat = v.InferOutput<typeof FileStat>;

const GitDiffOutput = v.strictObject({
  files: v.array(FileStat),
  files_changed: v.number(),
  insertions: v.number(),
  deletions: v.number(),
  diff: v.string(),
  /** `diff` is the head of a longer diff; the whole is in the artifact. */
  truncated: v.boolean(),
  diff_bytes: v.number(),
  artifact_id: v.optional(ArtifactId),
});

/** Parses `git diff --numstat -z`: `added\tdeleted\tpath\0`, or for a rename `added\tdeleted\t\0from\0to\0`. */
function parse_numstat(raw: string): FileStat[] {
  // One iterator for the loop and the rename's two paths, which it takes as they come.
  const records = raw.split("\0").values();
  const files: FileStat[] = [];
  for (const record of records) {
    if (record === "") continue;
    const [added = "", deleted = "", ...rest] = record.split("\t");
    const binary = added === "-" && deleted === "-";
    const counts = { added: binary ? null : Number(added), deleted: binary ? null : Number(deleted), binary };
    const path = rest.join("\t");
    if (path !== "") files.push({ path, ...counts });
    else {
      const from = records.next().value ?? "";
      const to = records.next().value ?? "";
      files.push({ path: to, from, ...counts });
    }
  }
  return files;
}

/** The revisions part of the command: what is compared with what. */
function compared(input: v.InferOutput<typeof GitDiffInput>): string[] {
  if (input.target !== undefined && input.base === undefined) {
    throw air_failure({
      kind: "tool_error",
      message: "git.diff got a target revision without a base",
      retryability: "retryable_after_change",
      user_action: "Pass base too (base..target), or only base to compare it with the work tree.",
    });
  }
  if (input.target !== undefined && input.staged) {
    throw air_failure({
      kind: "tool_error",
      message: "git.diff cannot compare two revisions and the index at once",
      retryability: "retryable_after_change",
      user_action: "Drop staged when passing base and target.",
    });
  }
  const revs = [input.base, input.target].filter((rev): rev is string => rev !== undefined);
  return [...(input.staged ? ["--cached"] : []), "--end-of-options", ...revs];
}

export const git_diff = define_tool({
  name: "git.diff",
  version: 1,
  description:
    "A git diff of the project: work tree vs index (default), staged (index vs HEAD), or against base / " +
    "between base and target; optionally limited to paths. Returns per-file line counts and the diff text " +
    "(long diffs: the head inline, the whole as an artifact).",
  category: "project",
  input: GitDiffInput,
  output: GitDiffOutput,
  permissions: { reads: (input) => input.paths ?? ["."] },
  async execute(input, execution) {
    const specs = pathspecs(execution, input.paths ?? ["."]);
    const revs = compared(input);
    const repo = await open_repo(execution);
    const stat_args = ["diff", ...DIFF_HARDENING, "--numstat", "-z", ...revs, "--", ...specs];
    const stat = await git_in(repo, stat_args);
    if (stat.code !== 0) throw git_failure(stat_args, stat, "Check the revisions (git.log lists them) and the paths.");
    const patch_args = ["diff", ...DIFF_HARDENING, `--unified=${input.context_lines}`, ...revs, "--", ...specs];
    const patch = await git_in(repo, patch_args);
    if (patch.code !== 0) throw git_failure(patch_args, patch, "Check the revisions (git.log lists them) and the paths.");
    const files = parse_numstat(stat.stdout.toString("utf8"));
    const text = capped_text(execution, patch, "git.diff");
    return {
      files,
      files_changed: files.length,
      insertions: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
      deletions: files.reduce((sum, file) => sum + (file.deleted ?? 0), 0),
      diff: text.text,
      truncated: text.truncated,
      diff_bytes: text.total_bytes,
      ...(text.artifact_id === undefined ? {} : { artifact_id: text.artifact_id }),
    };
  },
});

import * as v from "valibot";
import { ArtifactId } from "../../contracts/ids.js";
import { define_tool } from "../define.js";
import { git_failure } from "./run-git.js";
import { git_in, open_repo, project_path, type Repo } from "./repo.js";

const MAX_ENTRIES = 2000;

const FileState = v.picklist(["unmodified", "modified", "type_changed", "added", "deleted", "renamed", "copied", "updated_unmerged"]);
type FileState = v.InferOutput<typeof FileState>;

const STATE_OF: Record<string, FileState> = {
  ".": "unmodified",
  M: "modified",
  T: "type_changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "updated_unmerged",
};

const GitStatusInput = v.strictObject({
  untracked: v.optional(
    v.pipe(v.picklist(["no", "normal", "all"]), v.description("Untracked files: no, normal (folders collapsed, default) or all.")),
    "normal",
  ),
  ignored: v.optional(v.pipe(v.boolean(), v.description("Also list ignored files (default false).")), false),
});

const StatusEntry = v.strictObject({
  path: v.string(),
  kind: v.picklist(["changed", "renamed", "copied", "unmerged", "untracked", "ignored"]),
  index: v.optional(FileState),
  worktree: v.optional(FileState),
  /** The path before a rename or copy. */
  from: v.optional(v.string()),
});
type StatusEntry = v.InferOutput<typeof StatusEntry>;

const GitStatusOutput = v.strictObject({
  branch: v.strictObject({
    /** Null when HEAD is detached. */
    head: v.nullable(v.string()),
    /** Null before the first commit. */
    commit: v.nullable(v.string()),
    upstream: v.optional(v.string()),
    ahead: v.optional(v.number()),
    behind: v.optional(v.number()),
  }),
  entries: v.array(StatusEntry),
  clean: v.boolean(),
  truncated: v.boolean(),
  /** The full porcelain output, when the entries were truncated. */
  artifact_id: v.optional(ArtifactId),
});
type Branch = v.InferOutput<typeof GitStatusOutput>["branch"];

function branch_header(line: string, branch: Branch): void {
  const [, key, ...rest] = line.split(" ");
  const value = rest.join(" ");
  if (key === "branch.oid") branch.commit = value === "(initial)" ? null : value;
  else if (key === "branch.head") branch.head = value === "(detached)" ? null : value;
  else if (key === "branch.upstream") branch.upstream = value;
  else if (key === "branch.ab") {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match !== null) {
      branch.ahead = Number(match[1]);
      branch.behind = Number(match[2]);
    }
  }
}

/** Splits a line after `fields` space-separated fields; the rest is the path (which may hold spaces). */
function fields_and_path(line: string, fields: number): { fields: string[]; path: string } {
  const parts = line.split(" ");
  return { fields: parts.slice(0, fields), path: parts.slice(fields).join(" ") };
}

/** Parses `git status --porcelain=v2 --branch -z`. */
function parse_status(repo: Repo, raw: string): { branch: Branch; entries: StatusEntry[] } {
  const branch: Branch = { head: null, commit: null };
  const entries: StatusEntry[] = [];
  // One iterator for the loop and a rename's source path, which it takes as it comes.
  const records = raw.split("\0").values();
  const xy = (code = "") => ({ index: STATE_OF[code.charAt(0)] ?? "modified", worktree: STATE_OF[code.charAt(1)] ?? "modified" });
  for (const record of records) {
    if (record === "") continue;
    const type = record[0];
    if (type === "#") branch_header(record, branch);
    else if (type === "1") {
      const { fields, path } = fields_and_path(record, 8);
      entries.push({ path: project_path(repo, path), kind: "changed", ...xy(fields[1]) });
    } else if (type === "2") {
      const { fields, path } = fields_and_path(record, 9);
      const from = records.next().value ?? "";
      const kind = fields[8]?.startsWith("C") ? "copied" : "renamed";
      entries.push({ path: project_path(repo, path), kind, ...xy(fields[1]), from: project_path(repo, from) });
    } else if (type === "u") {
      const { fields, path } = fields_and_path(record, 10);
      entries.push({ path: project_path(repo, path), kind: "unmerged", ...xy(fields[1]) });
    } else if (type === "?") entries.push({ path: project_path(repo, record.slice(2)), kind: "untracked" });
    else if (type === "!") entries.push({ path: project_path(repo, record.slice(2)), kind: "ignored" });
  }
  return { branch, entries };
}

export const git_status = define_tool({
  name: "git.status",
  version: 1,
  description:
    "The project's git status: branch (name, commit, upstream, ahead/behind) and each changed, renamed, " +
    "unmerged, untracked (and optionally ignored) path with its index and work-tree state.",
  category: "project",
  input: GitStatusInput,
  output: GitStatusOutput,
  permissions: { reads: () => ["."] },
  async execute(input, execution) {
    const repo = await open_repo(execution);
    const args = ["status", "--porcelain=v2", "--branch", "-z", `--untracked-files=${input.untracked}`];
    if (input.ignored) args.push("--ignored=matching");
    args.push("--", ".");
    const result = await git_in(repo, args);
    if (result.code !== 0) throw git_failure(args, result, "Check the repository with `git status` in the project.");
    const raw = result.stdout.toString("utf8");
    const { branch, entries } = parse_status(repo, raw);
    const truncated = entries.length > MAX_ENTRIES || result.truncated;
    const artifact = truncated
      ? execution.artifact({ type: "report", content: raw.replaceAll("\0", "\n"), original_name: "git-status.txt", mime_type: "text/plain" })
      : undefined;
    return {
      branch,
      entries: entries.slice(0, MAX_ENTRIES),
      clean: entries.every((entry) => entry.kind === "ignored"),
      truncated,
      ...(artifact === undefined ? {} : { artifact_id: artifact.id }),
    };
  },
});

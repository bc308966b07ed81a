import * as v from "valibot";
import { define_tool } from "../define.js";
import { PathInput } from "../fs/common.js";
import { git_in, open_repo, pathspecs, RevInput } from "./repo.js";
import { git_failure } from "./run-git.js";

const MAX_BODY_CHARS = 4000;
const FIELD = "\x1f";
const RECORD = "\x1e";

const GitLogInput = v.strictObject({
  max_count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200), v.description("How many commits (default 20, at most 200).")), 20),
  rev: v.optional(v.pipe(RevInput, v.description("Start from this revision or range (default HEAD)."))),
  path: v.optional(v.pipe(PathInput, v.description("Only commits that touch this path."))),
  skip: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000), v.description("Skip this many commits first (paging).")), 0),
});

const Commit = v.strictObject({
  sha: v.string(),
  parents: v.array(v.string()),
  author_name: v.string(),
  author_email: v.string(),
  date: v.string(),
  subject: v.string(),
  body: v.string(),
  body_truncated: v.boolean(),
});
type Commit = v.InferOutput<typeof Commit>;

const GitLogOutput = v.strictObject({ commits: v.array(Commit) });

const FORMAT = `--format=${["%H", "%P", "%an", "%ae", "%aI", "%s", "%b"].join("%x1f")}%x1e`;

function parse_log(raw: string): Commit[] {
  const commits: Commit[] = [];
  for (const record of raw.split(RECORD)) {
    const fields = record.replace(/^\n/, "").split(FIELD);
    if (fields.length < 7) continue;
    const [sha = "", parents = "", author_name = "", author_email = "", date = "", subject = "", ...body_parts] = fields;
    const body = body_parts.join(FIELD).replace(/\n+$/, "");
    commits.push({
      sha,
      parents: parents === "" ? [] : parents.split(" "),
      author_name,
      author_email,
      date,
      subject,
      body: body.slice(0, MAX_BODY_CHARS),
      body_truncated: body.length > MAX_BODY_CHARS,
    });
  }
  return commits;
}

export const git_log = define_tool({
  name: "git.log",
  version: 1,
  description:
    "Recent commits of the project (newest first): sha, parents, author, ISO date, subject and body. " +
    "Optionally from a revision or range, only those touching a path, and paged with skip.",
  category: "project",
  input: GitLogInput,
  output: GitLogOutput,
  permissions: { reads: (input) => [input.path ?? "."] },
  async execute(input, execution) {
    const specs = pathspecs(execution, [input.path ?? "."]);
    const repo = await open_repo(execution);
    const args = [
      "log",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--no-show-signature",
      "--no-decorate",
      FORMAT,
      `--max-count=${input.max_count}`,
      `--skip=${input.skip}`,
      "--end-of-options",
      ...(input.rev === undefined ? [] : [input.rev]),
      "--",
      ...specs,
    ];
    const result = await git_in(repo, args);
    // A repository without commits has no log: that is an empty answer, unless a revision was asked for.
    if (result.code !== 0 && input.rev === undefined && /does not have any commits yet/.test(result.stderr)) return { commits: [] };
    if (result.code !== 0) throw git_failure(args, result, "Check the revision (a branch, tag or sha of this repository) and the path.");
    return { commits: parse_log(result.stdout.toString("utf8")) };
  },
});

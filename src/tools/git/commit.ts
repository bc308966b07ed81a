import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool } from "../define.js";
import { shell_quote } from "./output.js";
import { git_in, open_repo, PathsInput, pathspecs, project_path, type Repo } from "./repo.js";
import { git_failure, type GitResult } from "./run-git.js";

export const GitCommitInput = v.strictObject({
  message: v.pipe(v.string(), v.minLength(1), v.maxLength(20_000), v.regex(/\S/, "the message cannot be blank"), v.description("The commit message.")),
  paths: v.optional(v.pipe(PathsInput, v.description("Stage these paths (`git add -- paths`) before committing."))),
  all: v.optional(v.pipe(v.boolean(), v.description("Stage every change to tracked files first (`git commit --all`).")), false),
});
type GitCommitInput = v.InferOutput<typeof GitCommitInput>;

const CommittedFile = v.strictObject({ path: v.string(), status: v.string() });

const GitCommitOutput = v.strictObject({
  sha: v.string(),
  subject: v.string(),
  files: v.array(CommittedFile),
  /** The commit made; the working tree's files are as they were. */
  effects: ToolEffects,
});

/** The command line the PermissionEngine judges: what this call does, as a user would type it. */
export function equivalent_command(input: GitCommitInput): string {
  const add = input.paths === undefined || input.paths.length === 0 ? "" : `git add -- ${input.paths.map(shell_quote).join(" ")} && `;
  return `${add}git commit${input.all ? " --all" : ""} ${shell_quote(`--message=${input.message}`)}`;
}

function commit_failure(args: readonly string[], result: GitResult) {
  const said = `${result.stdout.toString("utf8")}\n${result.stderr}`;
  if (/nothing to commit|no changes added to commit|nothing added to commit/i.test(said)) {
    return air_failure({
      kind: "tool_error",
      message: "nothing to commit: no staged changes",
      retryability: "retryable_after_change",
      user_action: "Pass the changed files as paths (or all: true), after checking git.status.",
    });
  }
  if (/tell me who you are|empty ident|unable to auto-detect email/i.test(said)) {
    return air_failure({
      kind: "project_error",
      message: "git has no author identity for this repository",
      retryability: "retryable_after_change",
      user_action: 'Set one: `git config user.name "…"` and `git config user.email "…"` in the project.',
    });
  }
  return git_failure(args, result, "Check git.status; resolve what git reports and commit again.");
}

/** `git diff-tree` of the new commit: each file's status letter and path. */
async function changed_files(repo: Repo): Promise<{ path: string; status: string }[]> {
  const args = ["diff-tree", "-r", "-z", "--no-commit-id", "--name-status", "--root", "--no-ext-diff", "--no-textconv", "HEAD"];
  const result = await git_in(repo, args);
  if (result.code !== 0) throw git_failure(args, result, "The commit was made; inspect it with git.show.");
  const fields = result.stdout
    .toString("utf8")
    .split("\0")
    .filter((field) => field !== "");
  const files: { path: string; status: string }[] = [];
  // Status and path alternate, one pair per file.
  for (let index = 0; ; index += 2) {
    const status = fields[index];
    const path = fields[index + 1];
    if (status === undefined || path === undefined) return files;
    files.push({ status, path: project_path(repo, path) });
  }
}

export const git_commit = define_tool({
  name: "git.commit",
  version: 1,
  description:
    "Commit to the project's git repository: optionally stage paths first (or all tracked changes), then commit " +
    "with the message. Hooks do not run. A git write: the permission policy decides whether it may run.",
  category: "project",
  input: GitCommitInput,
  output: GitCommitOutput,
  permissions: {
    writes: (input) => (input.all ? ["."] : (input.paths ?? [])),
    executes: (input) => ({ command: equivalent_command(input), cwd: "." }),
  },
  async execute(input, execution) {
    const specs = pathspecs(execution, input.paths ?? []);
    const repo = await open_repo(execution);
    if (specs.length > 0) {
      const add_args = ["add", "--", ...specs];
      const added = await git_in(repo, add_args);
      if (added.code !== 0) throw git_failure(add_args, added, "Check the paths (git.status lists the changed ones).");
    }
    // --no-verify and the neutral core.hooksPath both keep hooks from running; --file=- keeps the message off argv.
    const args = ["commit", "--quiet", "--no-verify", "--no-gpg-sign", "--cleanup=whitespace", ...(input.all ? ["--all"] : []), "--file=-"];
    const committed = await git_in(repo, args, { stdin: input.message });
    if (committed.code !== 0) throw commit_failure(args, committed);
    const head = await git_in(repo, ["rev-parse", "--verify", "HEAD"]);
    if (head.code !== 0) throw git_failure(["rev-parse"], head, "The commit was made; inspect it with git.log.");
    const sha = head.stdout.toString("utf8").trim();
    const files = await changed_files(repo);
    const [subject = ""] = input.message.trim().split("\n");
    execution.evidence({ kind: "tool_run", ref: execution.tool_run_id, claim: `commit ${sha} "${subject.slice(0, 200)}" records ${files.length} file(s)` });
    return { sha, subject, files, effects: { commits: [sha] } };
  },
});

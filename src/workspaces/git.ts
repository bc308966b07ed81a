import { createHash } from "node:crypto";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { git_failure, run_git, type GitResult } from "../tools/git/run-git.js";

/**
 * The git of the WorkspaceManager: `run_git`'s hardening (scrubbed environment, neutral configuration: no
 * hooks, fsmonitor, pager, signing) plus air's identity for the commits it makes and byte-exact storage.
 */
const AIR_GIT_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ["user.name", "air"],
  ["user.email", "air@localhost"],
  ["commit.gpgSign", "false"],
  // A gc git starts after a commit runs before the commit returns, never as an orphan in the background.
  ["gc.autoDetach", "false"],
];

/** Nothing cancels the workspace's git from outside: each step is short and all-or-nothing around it. */
const NEVER = new AbortController().signal;

export type WsGit = { stdin?: string; index_file?: string; config?: readonly (readonly [string, string])[] };

/** Runs git in `cwd` and returns its result whatever the exit code. */
export function git_run(cwd: string, args: readonly string[], options: WsGit = {}): Promise<GitResult> {
  return run_git({ cwd, args, signal: NEVER, config: [...AIR_GIT_CONFIG, ...(options.config ?? [])], stdin: options.stdin, index_file: options.index_file });
}

/** Runs git in `cwd`; a non-zero exit is an AirFailure carrying git's message. Returns stdout. */
export async function git_ok(cwd: string, args: readonly string[], options: WsGit = {}): Promise<Buffer> {
  const result = await git_run(cwd, args, options);
  if (result.code !== 0) throw git_failure(args, result, "Check the repository with `git status` and `git worktree list`; the checkout was not changed.");
  return result.stdout;
}

export async function git_text(cwd: string, args: readonly string[], options: WsGit = {}): Promise<string> {
  return (await git_ok(cwd, args, options)).toString("utf8").trim();
}

export type RepoInfo = {
  /** The project root's own git dir (for a linked worktree, `.git/worktrees/<name>`). */
  readonly git_dir: string;
  readonly common_dir: string;
  readonly toplevel: string;
  readonly object_format: "sha1" | "sha256";
};

const infos = new Map<string, RepoInfo>();

/** Where the repository of `root` keeps its files; asked once per root (a root does not change repository). */
export async function repo_info(root: string): Promise<RepoInfo> {
  const known = infos.get(root);
  if (known !== undefined) return known;
  const args = ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel", "--show-object-format"];
  const result = await git_run(root, args);
  if (result.code !== 0) {
    throw air_failure({
      kind: "project_error",
      message: `${root} is not inside a git repository`,
      retryability: "retryable_after_change",
      user_action: "Run `git init` in the project, or let the Scheduler use an isolated copy or serial work in the main folder.",
    });
  }
  const [git_dir = "", common_dir = "", toplevel = "", format = ""] = result.stdout.toString("utf8").split("\n");
  const info: RepoInfo = {
    git_dir,
    common_dir: path.resolve(root, common_dir),
    toplevel,
    object_format: format === "sha256" ? "sha256" : "sha1",
  };
  infos.set(root, info);
  return info;
}

/** The object id git gives these bytes as a blob, computed here so unchanged files need no `hash-object`. */
export function blob_oid(bytes: Uint8Array, format: RepoInfo["object_format"]): string {
  return createHash(format).update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
}

/** NUL-separated git output as its fields, without the empty one a trailing NUL leaves. */
export function nul_fields(output: Buffer): string[] {
  const fields = output.toString("utf8").split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}

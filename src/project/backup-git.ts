import { spawn } from "node:child_process";
import path from "node:path";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import { neutral_git_env } from "../tools/git/neutral-config.js";
import { scrub_env } from "../tools/shell/env.js";

/** Identity and byte-exact storage for the backups repository (seeds 003 §12 rule 7). */
export const BACKUP_REPO_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ["user.name", "air backups"],
  ["user.email", "backups@air.invalid"],
  ["commit.gpgSign", "false"],
  // Stored bytes are the file's bytes: no line-ending or attribute-driven conversion.
  ["core.autocrlf", "false"],
  ["core.attributesFile", "/dev/null"],
  // A gc git starts after a commit runs before the commit returns, never as an orphan in the background.
  ["gc.autoDetach", "false"],
];

/**
 * The environment of a backups git: scrubbed (no `GIT_DIR` and friends from the parent), neutral
 * (no hooks, fsmonitor, pager), and blind to the user's global and system configuration, so a
 * `commit.gpgSign` or an excludes file there cannot break or skew a backup.
 */
function backup_git_env(): Record<string, string> {
  return { ...scrub_env(process.env), ...neutral_git_env(), GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
}

export type BackupGitResult = { code: number; stdout: string; stderr: string };

/**
 * Which repository and work tree a backups git acts on. The backups repository's own work tree is its
 * folder; a snapshot points the same object store at the project (`work_tree`) with an index of its own.
 */
export type BackupGitTarget = {
  readonly git_dir: string;
  readonly work_tree: string;
  /** A separate index file (its stat cache is what makes unchanged files free), instead of the repository's. */
  readonly index_file?: string;
  /** Configuration at command-line precedence (`-c key=value`). */
  readonly config?: readonly (readonly [key: string, value: string])[];
};

function spawn_failure(error: NodeJS.ErrnoException): AirFailure {
  const missing = error.code === "ENOENT";
  return air_failure(
    {
      kind: "env_error",
      message: missing ? "git is not installed (no `git` on PATH); air keeps its backups in a git repository" : `git could not be started: ${error.message}`,
      retryability: "retryable_after_change",
      user_action: missing
        ? "Install git (e.g. `apt-get install git`) and make sure it is on PATH; writes that need a backup are refused until then."
        : "Check that git is installed and runnable.",
    },
    error,
  );
}

/**
 * Runs git on `target` with an argument array (no shell), its git dir and work tree named explicitly so that
 * git never discovers the project's own repository; stdout comes back as bytes (a blob is not text).
 */
export function run_git_bytes(
  target: BackupGitTarget,
  args: readonly string[],
  stdin?: string | Buffer,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const config = (target.config ?? []).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  const full = [`--git-dir=${target.git_dir}`, `--work-tree=${target.work_tree}`, "--literal-pathspecs", "-c", "core.quotepath=off", ...config, ...args];
  const env = target.index_file === undefined ? backup_git_env() : { ...backup_git_env(), GIT_INDEX_FILE: target.index_file };
  return new Promise((resolve, reject) => {
    const child = spawn("git", full, { cwd: target.work_tree, env, stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    let stderr = "";
    // biome-ignore lint/style/noNonNullAssertion: stdio pipes stdout
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    // biome-ignore lint/style/noNonNullAssertion: stdio pipes stderr
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error: NodeJS.ErrnoException) => reject(spawn_failure(error)));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr }));
    if (stdin !== undefined) {
      // biome-ignore lint/style/noNonNullAssertion: stdio pipes stdin when there is stdin to send
      child.stdin!.on("error", () => undefined);
      // biome-ignore lint/style/noNonNullAssertion: as on the line above, stdin is piped
      child.stdin!.end(stdin);
    }
  });
}

/** `run_git_bytes` with stdout as text. */
export async function run_git_at(target: BackupGitTarget, args: readonly string[], stdin?: string | Buffer): Promise<BackupGitResult> {
  const result = await run_git_bytes(target, args, stdin);
  return { ...result, stdout: result.stdout.toString("utf8") };
}

/** Like `run_git_at`, but a non-zero exit is an AirError carrying git's message. */
export async function git_at(target: BackupGitTarget, args: readonly string[], stdin?: string | Buffer): Promise<string> {
  return checked(target, args, await run_git_at(target, args, stdin));
}

function checked(target: BackupGitTarget, args: readonly string[], result: BackupGitResult): string {
  if (result.code === 0) return result.stdout;
  const said = (result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`).slice(0, 2000);
  throw air_failure({
    kind: "system_error",
    message: `git ${args[0] ?? ""} failed in the backups repository ${target.git_dir}: ${said.split("\n")[0]}`,
    detail: said,
    retryability: "unknown",
    user_action: `Check the repository with \`git --git-dir=${target.git_dir} status\`; the files being backed up were not changed.`,
    metadata: { exit_code: result.code },
  });
}

function own_work_tree(dir: string): BackupGitTarget {
  return { git_dir: path.join(dir, ".git"), work_tree: dir };
}

/** Runs git on the backups repository `dir` with its own work tree. */
export function run_backup_git(dir: string, args: readonly string[], stdin?: string): Promise<BackupGitResult> {
  return run_git_at(own_work_tree(dir), args, stdin);
}

/** Like `run_backup_git`, but a non-zero exit is an AirError carrying git's message. */
export async function backup_git(dir: string, args: readonly string[], stdin?: string): Promise<string> {
  return checked(own_work_tree(dir), args, await run_backup_git(dir, args, stdin));
}

import { spawn } from "node:child_process";
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
 * Runs git on the backups repository `dir` with an argument array (no shell), its git dir and work
 * tree named explicitly so that git never discovers the project's own repository above it.
 */
export function run_backup_git(dir: string, args: readonly string[], stdin?: string): Promise<BackupGitResult> {
  const full = [`--git-dir=${dir}/.git`, `--work-tree=${dir}`, "--literal-pathspecs", "-c", "core.quotepath=off", ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("git", full, { cwd: dir, env: backup_git_env(), stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    // biome-ignore lint/style/noNonNullAssertion: stdio pipes stdout
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    // biome-ignore lint/style/noNonNullAssertion: stdio pipes stderr
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error: NodeJS.ErrnoException) => reject(spawn_failure(error)));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    if (stdin !== undefined) {
      // biome-ignore lint/style/noNonNullAssertion: stdio pipes stdin when there is stdin to send
      child.stdin!.on("error", () => undefined);
      // biome-ignore lint/style/noNonNullAssertion: as on the line above, stdin is piped
      child.stdin!.end(stdin);
    }
  });
}

/** Like `run_backup_git`, but a non-zero exit is an AirError carrying git's message. */
export async function backup_git(dir: string, args: readonly string[], stdin?: string): Promise<string> {
  const result = await run_backup_git(dir, args, stdin);
  if (result.code === 0) return result.stdout;
  const said = (result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`).slice(0, 2000);
  throw air_failure({
    kind: "system_error",
    message: `git ${args[0] ?? ""} failed in the backups repository ${dir}: ${said.split("\n")[0]}`,
    detail: said,
    retryability: "unknown",
    user_action: `Check the repository with \`git -C ${dir} status\`; the files being backed up were not changed.`,
    metadata: { exit_code: result.code },
  });
}

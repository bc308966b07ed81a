import fs from "node:fs";
import path from "node:path";
import { air_failure, is_air_failure } from "../contracts/errors.js";
import { BACKUP_REPO_CONFIG, backup_git } from "./backup-git.js";
import { SessionLock } from "./session-lock.js";

const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 25;

/**
 * Every attribute that could make git store other bytes than the file's (line endings, filters, `ident`,
 * encodings) unset for every path. `$GIT_DIR/info/attributes` outranks the `.gitattributes` files of a work
 * tree, so a project's own attributes cannot change what a snapshot of it holds.
 */
const BYTE_EXACT_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n";

const ready = new Map<string, Promise<void>>();

/** Creates the backups repository `dir` on first use; run under the lock, so two processes never both init. */
function ensure_repository(dir: string): Promise<void> {
  let setup = ready.get(dir);
  if (setup === undefined) {
    setup = set_up(dir);
    ready.set(dir, setup);
    setup.catch(() => ready.delete(dir));
  }
  return setup;
}

async function set_up(dir: string): Promise<void> {
  const git_dir = path.join(dir, ".git");
  if (!(fs.existsSync(path.join(git_dir, "HEAD")) && fs.existsSync(path.join(git_dir, "air-ready")))) {
    fs.mkdirSync(dir, { recursive: true });
    await backup_git(dir, ["init", "-q", "--initial-branch=backups"]);
    for (const [key, value] of BACKUP_REPO_CONFIG) await backup_git(dir, ["config", key, value]);
  }
  // Also on repositories made before snapshots existed.
  const attributes = path.join(git_dir, "info", "attributes");
  if (!fs.existsSync(attributes) || fs.readFileSync(attributes, "utf8") !== BYTE_EXACT_ATTRIBUTES) {
    fs.mkdirSync(path.dirname(attributes), { recursive: true });
    fs.writeFileSync(attributes, BYTE_EXACT_ATTRIBUTES);
  }
  // Written last: a repository without it was interrupted mid-setup and is set up again.
  fs.writeFileSync(path.join(git_dir, "air-ready"), "");
}

/** The last holder's turn per lock file in this process: callers here queue instead of polling the file. */
const turns = new Map<string, Promise<unknown>>();

/**
 * Runs `work` holding the backups lock, on a repository that exists: backups and snapshots share one
 * repository and one lock, so concurrent air processes (and concurrent calls in one) never interleave
 * their index updates and commits.
 */
export function with_backup_repository<T>(dir: string, lock_file: string, work: () => Promise<T>): Promise<T> {
  const previous = turns.get(lock_file) ?? Promise.resolve();
  const turn = previous.catch(() => undefined).then(() => locked(dir, lock_file, work));
  const settled = turn.catch(() => undefined);
  turns.set(lock_file, settled);
  void settled.then(() => {
    if (turns.get(lock_file) === settled) turns.delete(lock_file);
  });
  return turn;
}

async function locked<T>(dir: string, lock_file: string, work: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(lock_file), { recursive: true });
  const lock = await acquire(lock_file);
  try {
    await ensure_repository(dir);
    return await work();
  } finally {
    lock.release();
  }
}

/** Waits for the backups lock: held by a live process means wait, by a dead one means take it over. */
async function acquire(lock_file: string): Promise<SessionLock> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return SessionLock.acquire(lock_file, "backups");
    } catch (error) {
      // SessionLock refuses a lock held by a live process as a user_error; anything else is real.
      if (!is_air_failure(error) || error.kind !== "user_error") throw error;
      if (Date.now() > deadline) {
        throw air_failure(
          {
            kind: "system_error",
            message: `the backups lock ${lock_file} was held for more than ${LOCK_WAIT_MS / 1000} s`,
            retryability: "retryable",
            user_action: "Another air process is backing up or restoring; retry when it is done.",
          },
          error,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  }
}

import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { sleep_sync } from "../sleep-sync.js";
import { process_alive } from "./process-alive.js";

const LockHolder = v.object({ pid: v.number(), hostname: v.string(), acquired_at: v.string() });
type LockHolder = v.InferOutput<typeof LockHolder>;

function read_holder(file: string): LockHolder | undefined {
  try {
    const parsed = v.safeParse(LockHolder, JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

const TAKEOVER_GUARD_MAX_AGE_MS = 5_000;

/** Creates `file` holding `content` only if it does not exist: link(2) of a complete temp file, so no reader sees it half-written. */
function create_exclusive(file: string, content: string): boolean {
  const temp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
  fs.writeFileSync(temp, content, { flag: "wx" });
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function is_stale(holder: LockHolder | undefined): boolean {
  return holder === undefined || (holder.hostname === os.hostname() && !process_alive(holder.pid));
}

/**
 * Removes a stale lock under a takeover guard. Without it two processes that both judged the lock stale
 * could each remove it — the second one removing the fresh lock the first had just taken — and both write.
 * Under the guard the lock is read again, and only a lock that is still stale is removed.
 */
function remove_stale(file: string): void {
  const guard = `${file}.takeover`;
  if (!create_exclusive(guard, JSON.stringify({ pid: process.pid }))) {
    // Another process is taking over right now. A guard older than any takeover is left by a taker that died.
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > TAKEOVER_GUARD_MAX_AGE_MS) fs.rmSync(guard, { force: true });
    } catch {
      // the guard went away meanwhile
    }
    sleep_sync(2);
    return;
  }
  try {
    if (fs.existsSync(file) && is_stale(read_holder(file))) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/**
 * The single-writer lock of one session file (libsql connections break after SQLITE_BUSY, so two writers
 * must never meet). Exclusive creation is the atomic step; a lock whose holder process is gone is stale.
 */
export class SessionLock {
  private constructor(readonly file: string) {}

  static acquire(file: string, session_id: string): SessionLock {
    const holder: LockHolder = { pid: process.pid, hostname: os.hostname(), acquired_at: new Date().toISOString() };
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      if (create_exclusive(file, JSON.stringify(holder))) return new SessionLock(file);
      const current = read_holder(file);
      if (current !== undefined && !is_stale(current)) {
        throw air_failure({
          kind: "user_error",
          message: `session ${session_id} is already open for writing by pid ${current.pid} on ${current.hostname} (since ${current.acquired_at})`,
          retryability: "retryable",
          user_action: `Close the other air process (pid ${current.pid}) first; readers such as \`air history\` can run meanwhile.`,
          metadata: { session_id, pid: current.pid, hostname: current.hostname },
        });
      }
      // The holder died without releasing (or the file is torn): the lock is stale.
      remove_stale(file);
    }
    throw air_failure({
      kind: "system_error",
      message: `could not take the lock ${file}`,
      retryability: "retryable",
      user_action: "Retry; if it persists, check that nothing keeps re-creating the lock file.",
    });
  }

  release(): void {
    const holder = read_holder(this.file);
    if (holder?.pid === process.pid) fs.rmSync(this.file, { force: true });
  }
}

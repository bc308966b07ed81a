import fs from "node:fs";
import os from "node:os";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";

const LockHolder = v.object({ pid: v.number(), hostname: v.string(), acquired_at: v.string() });
type LockHolder = v.InferOutput<typeof LockHolder>;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function read_holder(file: string): LockHolder | undefined {
  try {
    const parsed = v.safeParse(LockHolder, JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The single-writer lock of one session file (libsql connections break after SQLITE_BUSY, so two writers
 * must never meet). `O_EXCL` creation is the atomic step; a lock whose holder process is gone is stale.
 */
export class SessionLock {
  private constructor(readonly file: string) {}

  static acquire(file: string, session_id: string): SessionLock {
    const holder: LockHolder = { pid: process.pid, hostname: os.hostname(), acquired_at: new Date().toISOString() };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.writeFileSync(file, JSON.stringify(holder), { flag: "wx" });
        return new SessionLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const current = read_holder(file);
      if (current !== undefined && (current.hostname !== holder.hostname || alive(current.pid))) {
        throw air_failure({
          kind: "user_error",
          message: `session ${session_id} is already open for writing by pid ${current.pid} on ${current.hostname} (since ${current.acquired_at})`,
          retryability: "retryable",
          user_action: `Close the other air process (pid ${current.pid}) first; readers such as \`air history\` can run meanwhile.`,
          metadata: { session_id, pid: current.pid, hostname: current.hostname },
        });
      }
      // The holder died without releasing (or the file is torn): the lock is stale.
      fs.rmSync(file, { force: true });
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

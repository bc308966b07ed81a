import fs from "node:fs";
import { eq } from "drizzle-orm";
import { air_failure, is_air_failure } from "../contracts/errors.js";
import { make_event } from "../contracts/events/registry.js";
import type { SessionId } from "../contracts/ids.js";
import { sessions } from "../db/schema.js";
import { retire_session_workspaces } from "../workspaces/retire.js";
import { session_artifacts_dir, session_dir, session_lock_path, type ProjectLayout } from "./layout.js";
import type { Project } from "./project-store.js";
import { purge_record, record_purge } from "./purged-sessions.js";
import { read_summary, require_session } from "./session-catalog.js";
import { SessionLock } from "./session-lock.js";
import { checked_session_id } from "./session-id.js";
import { SnapshotStore } from "./snapshot-store.js";
import { open_session, type Session } from "./session-manager.js";

/**
 * Ending a session (seeds 001 D-054), each step after the one that makes a crash recoverable:
 * - archive records `session.archived` and keeps everything; the session leaves the default listings and the
 *   latest-session choice, and is resumed only by its id;
 * - delete retires the session's workspaces, records `session.deleted`, then removes its artifacts; its
 *   database stays as the record of what it did (`air history`), and its snapshots stay so what it changed can
 *   still be restored; it is never reopened. A crash after the event leaves artifacts that deleting again removes;
 * - purge deletes first (if not yet), records the purge, then removes every file of the session. A crash
 *   midway leaves a folder that purging again removes.
 * Each takes the session's lock, so a session a live process holds is refused, naming that process.
 */
type SessionEnding = "archive" | "delete" | "purge";

/** The session opened for writing; a refusal (a live holder, a deleted session) says which ending it stopped. */
function open_to_end(project: Project, session_id: SessionId, ending: SessionEnding): Session {
  try {
    return open_session(project, { session_id });
  } catch (error) {
    throw held_refusal(error, session_id, ending);
  }
}

function lock_to_end(layout: ProjectLayout, session_id: SessionId, ending: SessionEnding): SessionLock {
  try {
    return SessionLock.acquire(session_lock_path(layout, session_id), session_id);
  } catch (error) {
    throw held_refusal(error, session_id, ending);
  }
}

function held_refusal(error: unknown, session_id: SessionId, ending: SessionEnding): unknown {
  if (!is_air_failure(error) || error.error.kind !== "user_error") return error;
  const { kind, retryability, message, user_action, metadata } = error.error;
  return air_failure({ kind, retryability, message: `cannot ${ending} session ${session_id}: ${message}`, user_action, metadata }, error);
}

function already(session_id: SessionId, what: string, user_action: string): never {
  throw air_failure({
    kind: "user_error",
    message: `session ${session_id} is already ${what}`,
    retryability: "not_retryable",
    user_action,
    metadata: { session_id },
  });
}

function status_in(session: Session): string | undefined {
  return session.connection.db.select({ status: sessions.status }).from(sessions).where(eq(sessions.id, session.id)).get()?.status;
}

export function archive_session(project: Project, id: string, reason?: string): void {
  const session_id = checked_session_id(id);
  require_session(project.layout, session_id);
  const session = open_to_end(project, session_id, "archive");
  try {
    if (status_in(session) === "archived")
      already(session_id, "archived", `\`air session list --archived\` shows it; \`air resume --session ${session_id}\` reopens it.`);
    session.ingestor.ingest(make_event("session.archived", reason === undefined ? {} : { reason }, session.origin));
  } finally {
    session.close();
  }
}

export type DeleteOutcome = { readonly retired_workspaces: number; readonly finished_earlier_delete: boolean };

export async function delete_session(project: Project, id: string, reason?: string): Promise<DeleteOutcome> {
  const session_id = checked_session_id(id);
  const { layout } = project;
  require_session(layout, session_id);
  if ((await read_summary(layout, session_id))?.status === "deleted") {
    if (!fs.existsSync(session_artifacts_dir(layout, session_id))) {
      already(session_id, "deleted", `Purge it (\`air session purge ${session_id}\`) to remove its database and snapshots too.`);
    }
    // A delete cut short between its event and the removal: finish it.
    const lock = lock_to_end(layout, session_id, "delete");
    try {
      fs.rmSync(session_artifacts_dir(layout, session_id), { recursive: true, force: true });
    } finally {
      lock.release();
    }
    return { retired_workspaces: 0, finished_earlier_delete: true };
  }
  return { retired_workspaces: await record_deletion(project, session_id, "delete", reason), finished_earlier_delete: false };
}

/** Retires the workspaces, records `session.deleted`, then removes the artifacts; the number of workspaces retired. */
async function record_deletion(project: Project, session_id: SessionId, ending: SessionEnding, reason: string | undefined): Promise<number> {
  const session = open_to_end(project, session_id, ending);
  try {
    const retired = await retire_session_workspaces(session, "its session was deleted");
    session.ingestor.ingest(make_event("session.deleted", reason === undefined ? {} : { reason }, session.origin));
    fs.rmSync(session_artifacts_dir(project.layout, session_id), { recursive: true, force: true });
    return retired;
  } finally {
    session.close();
  }
}

/**
 * Every file of a purged session: its snapshots in the backups repository, its artifacts, then its folder
 * with its database. The folder goes last, so a purge cut short anywhere is found and finished again.
 */
async function remove_session_files(layout: ProjectLayout, session_id: SessionId): Promise<void> {
  await SnapshotStore.for_project(layout).purge_session(session_id);
  fs.rmSync(session_artifacts_dir(layout, session_id), { recursive: true, force: true });
  fs.rmSync(session_dir(layout, session_id), { recursive: true, force: true });
}

export type PurgeOutcome = { readonly purged_at: string; readonly finished_earlier_purge: boolean };

export async function purge_session(project: Project, id: string, reason = "purged"): Promise<PurgeOutcome> {
  const session_id = checked_session_id(id);
  const { layout } = project;
  const earlier = purge_record(layout, session_id);
  const cut_short = earlier !== undefined && fs.existsSync(session_dir(layout, session_id));
  if (!cut_short) {
    require_session(layout, session_id);
    if ((await read_summary(layout, session_id))?.status !== "deleted") await record_deletion(project, session_id, "purge", reason);
  }
  const lock = lock_to_end(layout, session_id, "purge");
  try {
    const { purged_at } = record_purge(layout, session_id);
    await remove_session_files(layout, session_id);
    return { purged_at, finished_earlier_purge: cut_short };
  } finally {
    lock.release();
  }
}

import fs from "node:fs";
import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { is_air_failure } from "../contracts/errors.js";
import { SessionId, type WorkspaceId } from "../contracts/ids.js";
import type { TaskStatus, WorkspaceStatus } from "../contracts/status.js";
import { outdated_database } from "../db/migrate.js";
import { open_client } from "../db/sqlite.js";
import { tasks, workspaces } from "../db/schema.js";
import { session_db_path } from "../project/layout.js";
import { open_session, type Session } from "../project/session-manager.js";
import { WorkspaceManager, workspace_ref } from "./manager.js";
import { due_for_cleanup } from "./retention.js";

/**
 * The workspace GC of seeds 003 §15, run when `air run` or `air resume` opens a session in a project: in the
 * project's other sessions, no longer open, a workspace whose task has ended without its work landing (active
 * or conflicted, task completed, failed or cancelled) is abandoned — kept 3 days from then — and in every
 * session a workspace past its retention (merged 7 days, abandoned 3 days) loses its files and its branch,
 * recorded `workspace.cleaned` in its own session. A session another live process holds is left alone.
 */
export type SweepReport = {
  readonly abandoned: WorkspaceId[];
  readonly cleaned: WorkspaceId[];
  /** Sessions open in another air process, or whose database waits for `air migrate`: not swept. */
  readonly busy: SessionId[];
};

const ENDED: readonly TaskStatus[] = ["completed", "failed", "cancelled"];
const UNDECIDED: readonly WorkspaceStatus[] = ["active", "conflicted"];
const RETAINED: readonly WorkspaceStatus[] = ["merged", "abandoned"];

/** Workspaces of ended tasks whose work did not land: abandoned now (unless `dry_run`), so their 3 days start. */
function abandon_ended(session: Session, manager: WorkspaceManager, dry_run: boolean): WorkspaceId[] {
  const rows = session.connection.db
    .select({ workspace: workspaces, task_status: tasks.status })
    .from(workspaces)
    .innerJoin(tasks, eq(tasks.id, workspaces.task_id))
    .where(and(inArray(workspaces.status, [...UNDECIDED]), inArray(tasks.status, [...ENDED])))
    .all();
  return rows.map(({ workspace, task_status }) => {
    const ref = workspace_ref(workspace);
    if (!dry_run) manager.abandon_workspace(ref, `its task ended ${task_status} without merging this workspace`);
    return ref.workspace_id;
  });
}

export type SweepOptions = {
  /** Abandon the workspaces of ended tasks first: not for a session about to resume them. */
  readonly retire_ended: boolean;
  /** Say what would be abandoned and cleaned; change nothing (`air doctor --fix --dry-run`). */
  readonly dry_run?: boolean;
};

/** Sweeps one open session. */
export async function sweep_session(session: Session, now: Date, options: SweepOptions): Promise<Omit<SweepReport, "busy">> {
  const dry_run = options.dry_run === true;
  const manager = new WorkspaceManager(session);
  const abandoned = options.retire_ended ? abandon_ended(session, manager, dry_run) : [];
  const retained = session.connection.db
    .select()
    .from(workspaces)
    .where(inArray(workspaces.status, [...RETAINED]))
    .all();
  const cleaned: WorkspaceId[] = [];
  for (const row of due_for_cleanup(retained, now)) {
    const ref = workspace_ref(row);
    if (!dry_run) await manager.cleanup_workspace(ref);
    cleaned.push(ref.workspace_id);
  }
  return { abandoned, cleaned };
}

const HeldCount = v.object({ held: v.number() });

/** Whether a session's database still records a workspace with files; read without taking its lock. */
function holds_workspaces(db_file: string): boolean {
  const client = open_client(db_file, { pragmas: "PRAGMA query_only=ON;" });
  try {
    const row = v.parse(HeldCount, client.prepare("SELECT count(*) AS held FROM workspaces WHERE status != 'cleaned'").get());
    return row.held > 0;
  } finally {
    client.close();
  }
}

/** A session another live process writes: its lock refusal (`user_error` naming the session). */
export function held_elsewhere(error: unknown): boolean {
  return is_air_failure(error) && error.error.kind === "user_error" && error.error.metadata?.session_id !== undefined;
}

/** The sweep at the start of `air run` / `air resume`: `current` (already open) and every other session of its project. */
export async function sweep_project_workspaces(current: Session, now: Date = new Date()): Promise<SweepReport> {
  const { layout } = current.project;
  const own = await sweep_session(current, now, { retire_ended: false });
  const report = { abandoned: [...own.abandoned], cleaned: [...own.cleaned], busy: [] as SessionId[] };
  const others = fs.existsSync(layout.sessions) ? fs.readdirSync(layout.sessions).filter((name) => name !== current.id) : [];
  for (const name of others) {
    const db_file = session_db_path(layout, name);
    if (!fs.existsSync(db_file) || !holds_workspaces(db_file)) continue;
    const session_id = v.parse(SessionId, name);
    let session: Session;
    try {
      session = open_session(current.project, { session_id });
    } catch (error) {
      if (!held_elsewhere(error) && outdated_database(error) === undefined) throw error;
      report.busy.push(session_id);
      continue;
    }
    try {
      const swept = await sweep_session(session, now, { retire_ended: true });
      report.abandoned.push(...swept.abandoned);
      report.cleaned.push(...swept.cleaned);
    } finally {
      session.close();
    }
  }
  return report;
}

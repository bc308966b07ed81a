import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure, to_air_error, type AirError } from "../contracts/errors.js";
import type { RuntimeEvent } from "../contracts/events/registry.js";
import { event_from_row, type EventRow } from "../db/event-row.js";
import type { SqliteClient } from "../db/sqlite.js";
import { write_file_atomic } from "./atomic-write.js";
import { session_db_path, session_dir, session_lock_path, type ProjectLayout } from "./layout.js";
import { purge_record } from "./purged-sessions.js";

/**
 * Read-only views of session databases for commands that run beside a live writer (`air session list`,
 * `air history`). They load libsql only when they must — no drizzle, no xstate — and never migrate.
 */
const SessionSummary = v.strictObject({
  id: v.string(),
  title: v.string(),
  status: v.string(),
  created_at: v.string(),
  message_count: v.number(),
  task_count: v.number(),
  last_activity_at: v.nullable(v.string()),
});
export type SessionSummary = v.InferOutput<typeof SessionSummary>;

export type SessionListing = { readonly sessions: SessionSummary[]; readonly unreadable: { id: string; error: AirError }[] };

const SUMMARY_SQL = `SELECT s.id, s.title, s.status, s.created_at,
  (SELECT count(*) FROM messages) AS message_count,
  (SELECT count(*) FROM tasks) AS task_count,
  (SELECT timestamp FROM events ORDER BY seq DESC LIMIT 1) AS last_activity_at
FROM sessions s LIMIT 1`;

async function with_reader<T>(file: string, read: (client: SqliteClient) => T): Promise<T> {
  const { open_client } = await import("../db/sqlite.js");
  const client = open_client(file);
  try {
    return read(client);
  } finally {
    client.close();
  }
}

function session_ids(layout: ProjectLayout): string[] {
  if (!fs.existsSync(layout.sessions)) return [];
  return fs
    .readdirSync(layout.sessions, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(session_db_path(layout, entry.name)))
    .map((entry) => entry.name);
}

function summary_from(client: SqliteClient): SessionSummary | undefined {
  const row = client.prepare(SUMMARY_SQL).get() as SessionSummary | undefined;
  if (row === undefined) return undefined;
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    created_at: row.created_at,
    message_count: Number(row.message_count),
    task_count: Number(row.task_count),
    last_activity_at: row.last_activity_at,
  };
}

function summary_file(layout: ProjectLayout, id: string): string {
  return path.join(session_dir(layout, id), "summary.json");
}

/**
 * Written by the session's writer when it closes cleanly: opening 200 SQLite files costs ~1 ms each (schema
 * parse), reading 200 small files almost nothing. A cache only — the database stays the truth.
 */
export function write_summary(layout: ProjectLayout, client: SqliteClient): void {
  const summary = summary_from(client);
  if (summary !== undefined) write_file_atomic(summary_file(layout, summary.id), `${JSON.stringify(summary)}\n`);
}

/**
 * The cached summary, trusted only when no writer holds (or crashed holding) the session's lock: a live or
 * crashed session is read from its database, so the listing is never stale for it.
 */
function cached_summary(layout: ProjectLayout, id: string): SessionSummary | undefined {
  if (fs.existsSync(session_lock_path(layout, id))) return undefined;
  try {
    const parsed = v.safeParse(SessionSummary, JSON.parse(fs.readFileSync(summary_file(layout, id), "utf8")));
    return parsed.success && parsed.output.id === id ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which sessions a listing shows: the active ones (what `air session list`, the `-r` picker and `/sessions`
 * offer), the archived ones, or all — deleted ones too, whose database stays until they are purged.
 */
export type SessionsShown = "active" | "archived" | "all";

function shown_in(shown: SessionsShown, status: string): boolean {
  return shown === "all" || status === shown;
}

/** The project's sessions, newest first; a session whose file cannot be read is reported, not fatal. */
export async function list_sessions(layout: ProjectLayout, shown: SessionsShown = "active"): Promise<SessionListing> {
  const listing: SessionListing = { sessions: [], unreadable: [] };
  for (const id of session_ids(layout)) {
    try {
      const summary = cached_summary(layout, id) ?? (await with_reader(session_db_path(layout, id), summary_from));
      if (summary !== undefined && shown_in(shown, summary.status)) listing.sessions.push(summary);
    } catch (error) {
      listing.unreadable.push({ id, error: to_air_error(error, "project_error") });
    }
  }
  listing.sessions.sort((a, b) => (a.id < b.id ? 1 : -1));
  return listing;
}

export type HistoryEntry = RuntimeEvent & { readonly seq: number };

/** The event log of one session in commit order. */
export async function read_history(layout: ProjectLayout, session_id: string): Promise<HistoryEntry[]> {
  const rows = (await with_reader(session_db_path(layout, session_id), (client) =>
    client.prepare("SELECT * FROM events ORDER BY seq").all(),
  )) as unknown as EventRow[];
  return rows.map((row) => ({ ...event_from_row(row), seq: Number(row.seq) }));
}

/** The newest session id (ids are ULIDs, so the greatest is the latest created). */
export function latest_session_id(layout: ProjectLayout): string | undefined {
  return session_ids(layout).sort().at(-1);
}

export function has_session(layout: ProjectLayout, session_id: string): boolean {
  return /^ses_[0-9A-Z]{26}$/.test(session_id) && fs.existsSync(session_db_path(layout, session_id));
}

/** The session as its database has it now (read beside a live writer); undefined for one without its row yet. */
export async function read_summary(layout: ProjectLayout, session_id: string): Promise<SessionSummary | undefined> {
  return with_reader(session_db_path(layout, session_id), summary_from);
}

/**
 * A session this project holds, else a user error: one purged says when (nothing of it is left to show),
 * any other id says how to find one.
 */
export function require_session(layout: ProjectLayout, session_id: string): void {
  if (has_session(layout, session_id)) return;
  const purged = purge_record(layout, session_id);
  throw air_failure({
    kind: "user_error",
    message:
      purged === undefined ? `no session ${session_id} in this project` : `session ${session_id} was purged at ${purged.purged_at}: nothing of it is left`,
    retryability: "not_retryable",
    user_action: "List the sessions with `air session list` (`--all` for archived and deleted ones too).",
    metadata: { session_id },
  });
}

/**
 * The session a command works on: the one asked for (`--session ID`), whatever its status, or the latest
 * active one. None, or an id this project does not hold, is a user error saying how to find one; `none` says
 * what having none means here.
 */
export async function chosen_session(layout: ProjectLayout, requested: string | undefined, none = "this project has no sessions yet"): Promise<string> {
  if (requested !== undefined) {
    require_session(layout, requested);
    return requested;
  }
  const latest = (await list_sessions(layout)).sessions[0]?.id;
  if (latest === undefined) {
    throw air_failure({
      kind: "user_error",
      message: none,
      retryability: "not_retryable",
      user_action: "List the sessions with `air session list` (`--all` for archived and deleted ones too).",
    });
  }
  return latest;
}

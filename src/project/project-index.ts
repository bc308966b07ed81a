import fs from "node:fs";
import path from "node:path";
import { now_iso } from "../contracts/ids.js";
import type { SqliteClient } from "../db/sqlite.js";
import { air_home, project_layout } from "./layout.js";
import type { Project } from "./project-store.js";

/**
 * `~/.air/project-index.db` (DESIGN §9): the projects air has opened, so `air session list --all-projects`
 * can find their sessions. A cache of where projects live, never a source of truth: each project's own
 * `.air` stays authoritative, and a folder that is gone is simply skipped when listing. Plain SQL over the
 * synchronous libsql binding (no drizzle, no migrator): one small table, and the listing command stays
 * quick to start. Several air processes may record at once, so writes take the lock up front.
 */
export type IndexedProject = {
  readonly root: string;
  readonly project_id: string;
  readonly name: string;
  readonly first_opened_at: string;
  readonly last_opened_at: string;
};

/** The schema this air writes; `PRAGMA user_version` records it. */
const SCHEMA_VERSION = 1;

// Keyed by root, not by project id: project.json is committed, so two clones share one id.
const SCHEMA = `CREATE TABLE IF NOT EXISTS projects (
  root TEXT PRIMARY KEY NOT NULL,
  project_id TEXT NOT NULL,
  name TEXT NOT NULL,
  first_opened_at TEXT NOT NULL,
  last_opened_at TEXT NOT NULL
)`;

// Re-inserted, not updated, so the rowid orders projects opened within one millisecond of each other.
const INSERT = "INSERT INTO projects (root, project_id, name, first_opened_at, last_opened_at) VALUES (?, ?, ?, ?, ?)";

export function project_index_path(home: string = air_home()): string {
  return path.join(home, "project-index.db");
}

async function open_index(file: string): Promise<SqliteClient> {
  const { open_client } = await import("../db/sqlite.js");
  return open_client(file, { pragmas: "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;" });
}

/** Records that `project` was opened now (creating the index on first use). */
export async function record_project_opened(project: Project, home: string = air_home()): Promise<void> {
  fs.mkdirSync(home, { recursive: true });
  const client = await open_index(project_index_path(home));
  try {
    client.exec("BEGIN IMMEDIATE");
    try {
      client.exec(SCHEMA);
      client.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      const at = now_iso();
      const root = project.layout.root;
      const known = client.prepare("SELECT first_opened_at FROM projects WHERE root = ?").raw().get(root) as [string] | undefined;
      client.prepare("DELETE FROM projects WHERE root = ?").run(root);
      client.prepare(INSERT).run(root, project.file.project_id, project.file.name, known?.[0] ?? at, at);
      client.exec("COMMIT");
    } catch (error) {
      if (client.inTransaction) client.exec("ROLLBACK");
      throw error;
    }
  } finally {
    client.close();
  }
}

/**
 * Every indexed project whose folder still holds an air project, most recently opened first. Reading
 * never creates the index: with none, nothing has been opened yet.
 */
export async function list_indexed_projects(home: string = air_home()): Promise<IndexedProject[]> {
  const file = project_index_path(home);
  if (!fs.existsSync(file)) return [];
  const client = await open_index(file);
  let rows: IndexedProject[];
  try {
    const table = client.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projects'").raw().get();
    if (table === undefined) return [];
    rows = (
      client
        .prepare("SELECT root, project_id, name, first_opened_at, last_opened_at FROM projects ORDER BY last_opened_at DESC, rowid DESC")
        .all() as IndexedProject[]
    ).map(({ root, project_id, name, first_opened_at, last_opened_at }) => ({ root, project_id, name, first_opened_at, last_opened_at }));
  } finally {
    client.close();
  }
  return rows.filter((row) => fs.existsSync(project_layout(row.root).project_json));
}

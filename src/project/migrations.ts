import fs from "node:fs";
import path from "node:path";
import { air_failure, to_air_error, type AirError } from "../contracts/errors.js";
import { now_iso } from "../contracts/ids.js";
import { Connection } from "../db/connection.js";
import { type DatabaseKind, type Migration, migration_needed, migrations_of, schema_version_of, upgrade } from "../db/migrate.js";
import { type DatabasePlan, plan_database } from "../db/migration-plan.js";
import { type ProjectLayout, session_db_path, session_lock_path } from "./layout.js";
import { SessionLock } from "./session-lock.js";

/** Every database file of a project this build may have to migrate. */
type ProjectDatabase = { readonly path: string; readonly kind: DatabaseKind; readonly session_id?: string };

export type ProjectMigrationPlan = {
  readonly databases: readonly DatabasePlan[];
  /**
   * Where the databases are copied before the first statement runs: `.air/local/backups/migrations/<time>/`.
   * "Backs up .air" (D-055) means the files a migration changes — the databases planned, nothing else:
   * artifacts, workspaces, the backups repository and `.air/shared` are files no migration touches, and
   * copying them (gigabytes of artifacts) would make every upgrade slow for no protection.
   */
  readonly backup_dir: string;
};

export type MigrationRun = {
  readonly backup_dir: string;
  readonly migrated: readonly DatabasePlan[];
  /** The database whose migration failed and was rolled back; the ones after it were not tried. */
  readonly failed?: { readonly database: DatabasePlan; readonly error: AirError };
  readonly not_tried: readonly DatabasePlan[];
};

/** The project's own databases, beside its sessions. */
function own_databases(layout: ProjectLayout): ProjectDatabase[] {
  return [
    { path: layout.debug_records_db, kind: "debug_records" },
    { path: layout.learned_memory_db, kind: "learned_memory" },
  ];
}

/** The project's own databases, then each session's. */
function project_databases(layout: ProjectLayout): ProjectDatabase[] {
  const sessions = fs.existsSync(layout.sessions) ? fs.readdirSync(layout.sessions).sort() : [];
  return [...own_databases(layout), ...sessions.map((session_id) => ({ path: session_db_path(layout, session_id), kind: "session" as const, session_id }))];
}

/**
 * Opening a project (D-055: its schema versions are checked at open): its own databases, when older or newer
 * than this build, refuse before a session is created or resumed, so nothing is half done when the CLI asks to
 * migrate and runs the command again.
 */
export function assert_project_databases_current(layout: ProjectLayout): void {
  // The project's own files only: a session's database is checked as that session opens, not every session's at each open.
  for (const database of own_databases(layout)) {
    const plan = plan_database(database.path, database.kind);
    if (plan !== undefined) throw migration_needed(plan.path, plan.kind, plan.from, plan.to);
  }
}

/**
 * The databases older than this build: all of them, or — when a command opens the project — the project's
 * own ones and `also` (the session it opens). Every session would be a file open per session on every start;
 * `air migrate` plans them all.
 */
export function plan_project_migrations(
  layout: ProjectLayout,
  scope: { readonly all: true } | { readonly also?: string } = { all: true },
  now: Date = new Date(),
): ProjectMigrationPlan {
  const wanted = project_databases(layout).filter(
    (database) => "all" in scope || database.session_id === undefined || path.resolve(database.path) === path.resolve(scope.also ?? ""),
  );
  const databases = wanted.flatMap((database) => plan_database(database.path, database.kind) ?? []);
  return { databases, backup_dir: path.join(layout.backups, "migrations", now.toISOString().replace(/[:.]/g, "-")) };
}

/** The copy of `file` in the backup: its path under `.air`, kept. */
export function backup_path_of(layout: ProjectLayout, backup_dir: string, file: string): string {
  return path.join(backup_dir, path.relative(layout.air, file));
}

function changed_during_backup(file: string) {
  return air_failure({
    kind: "project_error",
    message: `${file} changed while it was being backed up, so the backup would not match what is migrated; nothing was migrated`,
    retryability: "retryable",
    user_action: "Close the other air processes of this project, then run `air migrate` again.",
    metadata: { path: file },
  });
}

/**
 * Backs one database up and migrates it. `VACUUM INTO` writes a consistent, self-contained copy (the WAL's
 * committed pages included) without blocking readers; it cannot run inside a transaction, so the migration's
 * transaction checks `data_version` to be sure no other connection committed between the copy and the lock.
 */
function backup_and_upgrade(database: DatabasePlan, backup: string, migrations: readonly Migration[]): void {
  const connection = Connection.open(database.path, { must_exist: true });
  try {
    const data_version = () => connection.client.prepare("PRAGMA data_version").raw().get() as [number];
    const before = data_version()[0];
    fs.mkdirSync(path.dirname(backup), { recursive: true });
    connection.client.prepare("VACUUM INTO ?").run(backup);
    upgrade(connection, database.kind, migrations, () => {
      if (data_version()[0] !== before || schema_version_of(connection) !== database.from) throw changed_during_backup(database.path);
    });
  } finally {
    connection.close();
  }
}

/** A session's database is migrated under its writer lock: a session open elsewhere is refused, not raced. */
function under_lock<T>(layout: ProjectLayout, database: DatabasePlan, work: () => T): T {
  if (database.kind !== "session") return work();
  const session_id = path.basename(path.dirname(database.path));
  fs.mkdirSync(layout.locks, { recursive: true });
  const lock = SessionLock.acquire(session_lock_path(layout, session_id), session_id);
  try {
    return work();
  } finally {
    lock.release();
  }
}

/**
 * Backs up and migrates each planned database, each in one transaction. On a failure that database is rolled
 * back (its bytes, schema and rows as before) and the rest are not tried; the ones already migrated stay
 * migrated: each file is whole at its new version, which this build reads, and the backup keeps their old
 * bytes for going back to an older air. `migrations_for` is the migrations to apply (default: this build's).
 */
export function run_project_migrations(
  layout: ProjectLayout,
  plan: ProjectMigrationPlan,
  migrations_for: (kind: DatabaseKind) => readonly Migration[] = migrations_of,
): MigrationRun {
  const migrated: DatabasePlan[] = [];
  for (const [index, database] of plan.databases.entries()) {
    try {
      under_lock(layout, database, () => backup_and_upgrade(database, backup_path_of(layout, plan.backup_dir, database.path), migrations_for(database.kind)));
      migrated.push(database);
    } catch (error) {
      const run = {
        backup_dir: plan.backup_dir,
        migrated,
        failed: { database, error: to_air_error(error, "project_error") },
        not_tried: plan.databases.slice(index + 1),
      };
      write_record(plan, run);
      return run;
    }
  }
  const run = { backup_dir: plan.backup_dir, migrated, not_tried: [] };
  write_record(plan, run);
  return run;
}

/** The evidence beside the copies (003 §15 Migration 6): what was planned and what happened. */
function write_record(plan: ProjectMigrationPlan, run: MigrationRun): void {
  if (!fs.existsSync(plan.backup_dir)) return;
  fs.writeFileSync(path.join(plan.backup_dir, "migration.json"), `${JSON.stringify({ finished_at: now_iso(), plan: plan.databases, run }, null, 2)}\n`);
}

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readMigrationFiles, type MigrationMeta } from "drizzle-orm/migrator";
import { air_failure, is_air_failure } from "../contracts/errors.js";
import * as v from "valibot";
import { AIR_VERSION } from "../version.js";
import type { Connection } from "./connection.js";

/** Each database kind and the folder drizzle-kit generates its SQL into (next to this module, in src/ and dist/). */
export const DATABASE_KINDS = {
  session: "session",
  debug_records: "debug-records",
  learned_memory: "learned-memory",
} as const;
export type DatabaseKind = keyof typeof DATABASE_KINDS;

/** One generated migration: drizzle's reading of its SQL, and its name from drizzle-kit's journal (its tag). */
export type Migration = MigrationMeta & { readonly name: string };

const Journal = v.object({ entries: v.array(v.object({ tag: v.string() })) });

/** The migrations of a drizzle-kit folder (its `meta/_journal.json` and SQL files), in order. */
export function read_migrations(folder: string): Migration[] {
  const journal = v.parse(Journal, JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")));
  return readMigrationFiles({ migrationsFolder: folder }).map((migration, index) => ({ ...migration, name: journal.entries[index]?.tag ?? `#${index}` }));
}

const loaded = new Map<DatabaseKind, Migration[]>();

export function migrations_of(kind: DatabaseKind): Migration[] {
  let migrations = loaded.get(kind);
  if (migrations === undefined) {
    migrations = read_migrations(fileURLToPath(new URL(`./migrations/${DATABASE_KINDS[kind]}`, import.meta.url)));
    loaded.set(kind, migrations);
  }
  return migrations;
}

/** The schema version a database of this kind has once fully migrated: the number of migrations. */
export function target_schema_version(kind: DatabaseKind): number {
  return migrations_of(kind).length;
}

const JOURNAL = "__drizzle_migrations";

/**
 * Opens a database for its runtime: a new (empty) file gets every migration, which is creation, not
 * migration; a file at this build's version is stamped as last opened by it. An older file is refused
 * without a change (D-055: migrating an existing file needs a plan, a backup and a yes — `air migrate`), and
 * so is a newer one. Reading the version happens inside BEGIN IMMEDIATE, so two processes opening one fresh
 * file serialise instead of both creating tables (drizzle's own migrator raced in 1–2 of 20 trials).
 */
export function migrate(connection: Connection, kind: DatabaseKind): void {
  const migrations = migrations_of(kind);
  connection.write(() => {
    const found = schema_version_of(connection);
    if (found === undefined && has_tables(connection)) throw unreadable(connection, kind, found);
    if (found !== undefined && found < migrations.length) throw migration_needed(connection.path, kind, found, migrations.length);
    apply_pending(connection, kind, migrations);
  });
}

/**
 * Brings an existing file up to `migrations` (default: this build's) in one transaction: any failing
 * statement rolls every earlier one back, so the file keeps its old schema and rows. `check` runs first,
 * under the write lock, and may refuse by throwing. Writes drizzle's journal rows, so drizzle-kit tooling
 * still understands the file.
 */
export function upgrade(
  connection: Connection,
  kind: DatabaseKind,
  migrations: readonly MigrationMeta[] = migrations_of(kind),
  check: () => void = () => undefined,
): void {
  connection.write(() => {
    check();
    apply_pending(connection, kind, migrations);
  });
}

/** Inside the caller's transaction: the migrations not in the journal yet, then schema_meta. */
function apply_pending(connection: Connection, kind: DatabaseKind, migrations: readonly MigrationMeta[]): void {
  const client = connection.client;
  // A newer air's file: applying nothing and stamping our (lower) version on it would let this air write
  // rows in a schema it does not know.
  const found = schema_version_of(connection);
  if (found !== undefined && found > migrations.length) throw unreadable(connection, kind, found, migrations.length);
  client.exec(`CREATE TABLE IF NOT EXISTS ${JOURNAL} (id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, created_at NUMERIC)`);
  const last = client.prepare(`SELECT created_at FROM ${JOURNAL} ORDER BY created_at DESC LIMIT 1`).raw().get() as [number] | undefined;
  const applied_until = last === undefined ? -1 : Number(last[0]);
  const record = client.prepare(`INSERT INTO ${JOURNAL} (hash, created_at) VALUES (?, ?)`);
  for (const migration of migrations) {
    if (migration.folderMillis <= applied_until) continue;
    for (const statement of migration.sql) {
      if (statement.trim() !== "") client.exec(statement);
    }
    record.run(migration.hash, migration.folderMillis);
  }
  const meta = client.prepare("INSERT INTO schema_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  meta.run("schema_version", String(migrations.length));
  meta.run("air_version_last_opened", AIR_VERSION);
  client.prepare("INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)").run("air_version_created", AIR_VERSION);
}

function has_tables(connection: Connection): boolean {
  return connection.client.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").raw().get() !== undefined;
}

/** The user action of every refusal of an older file: the command that shows the plan and migrates. */
export const MIGRATE_ACTION =
  "Run `air migrate` to see the migration plan and migrate after a backup (`air migrate --yes` where there is no terminal to ask on).";

/** Marks the refusal the CLI answers with the plan and a question (metadata.migration_needed). */
export function migration_needed(file: string, kind: DatabaseKind, found: number, expected: number) {
  return air_failure({
    kind: "project_error",
    message: `${file} has schema version ${found}; this air writes version ${expected}, so the ${DATABASE_KINDS[kind]} database needs a migration`,
    retryability: "retryable_after_change",
    user_action: MIGRATE_ACTION,
    metadata: { path: file, database: kind, found, expected, migration_needed: true },
  });
}

/** The path of the database an open refused for being older than this build; undefined for any other error. */
export function outdated_database(error: unknown): string | undefined {
  if (!is_air_failure(error) || error.error.metadata?.migration_needed !== true) return undefined;
  const file = error.error.metadata.path;
  return typeof file === "string" ? file : undefined;
}

/** The schema version recorded in the file, or undefined for a file air never migrated. */
export function schema_version_of(connection: Connection): number | undefined {
  const table = connection.client.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_meta'").raw().get();
  if (table === undefined) return undefined;
  const row = connection.client.prepare("SELECT value FROM schema_meta WHERE key = 'schema_version'").raw().get() as [string] | undefined;
  return row === undefined ? undefined : Number(row[0]);
}

/** Readers never migrate: they accept exactly the schema this air writes and explain anything else. */
export function assert_readable(connection: Connection, kind: DatabaseKind): void {
  const found = schema_version_of(connection);
  const expected = target_schema_version(kind);
  if (found === expected) return;
  if (found !== undefined && found < expected) throw migration_needed(connection.path, kind, found, expected);
  throw unreadable(connection, kind, found);
}

function unreadable(connection: Connection, kind: DatabaseKind, found: number | undefined, expected = target_schema_version(kind)) {
  return air_failure({
    kind: "project_error",
    message:
      found === undefined
        ? `${connection.path} is not an air ${DATABASE_KINDS[kind]} database`
        : `${connection.path} has schema version ${found}${written_by(connection)}, newer than version ${expected} that this air (${AIR_VERSION}) reads and writes`,
    retryability: "not_retryable",
    user_action:
      found === undefined
        ? "This file was not written by air: move it out of the way, or put back the copy a migration backup holds (.air/local/backups/migrations/)."
        : `Upgrade air to a version that writes schema ${found}: the database was written by a newer air.`,
    metadata: { path: connection.path, ...(found === undefined ? {} : { found }), expected },
  });
}

/** " (written by air 1.4.0)": the version of the newest air that opened the file, when it says. */
function written_by(connection: Connection): string {
  const row = connection.client.prepare("SELECT value FROM schema_meta WHERE key = 'air_version_last_opened'").raw().get() as [string] | undefined;
  return row === undefined ? "" : ` (written by air ${row[0]})`;
}

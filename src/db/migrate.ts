import { fileURLToPath } from "node:url";
import { readMigrationFiles, type MigrationMeta } from "drizzle-orm/migrator";
import { air_failure } from "../contracts/errors.js";
import { AIR_VERSION } from "../version.js";
import type { Connection } from "./connection.js";

/** Each database kind and the folder drizzle-kit generates its SQL into (next to this module, in src/ and dist/). */
export const DATABASE_KINDS = {
  session: "session",
  debug_records: "debug-records",
  learned_memory: "learned-memory",
} as const;
export type DatabaseKind = keyof typeof DATABASE_KINDS;

const loaded = new Map<DatabaseKind, MigrationMeta[]>();

export function migrations_of(kind: DatabaseKind): MigrationMeta[] {
  let migrations = loaded.get(kind);
  if (migrations === undefined) {
    const folder = fileURLToPath(new URL(`./migrations/${DATABASE_KINDS[kind]}`, import.meta.url));
    migrations = readMigrationFiles({ migrationsFolder: folder });
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
 * Applies pending migrations. Reading "what is applied" happens inside BEGIN IMMEDIATE, so two processes
 * opening one fresh file serialise instead of both creating tables (drizzle's own migrator raced in 1–2 of
 * 20 trials). Writes drizzle's journal rows, so drizzle-kit tooling still understands the file.
 */
export function migrate(connection: Connection, kind: DatabaseKind): void {
  const migrations = migrations_of(kind);
  const client = connection.client;
  connection.write(() => {
    // A newer air's file: applying nothing and stamping our (lower) version on it would let this air write
    // rows in a schema it does not know.
    const found = schema_version_of(connection);
    if (found !== undefined && found > migrations.length) throw unreadable(connection, kind, found);
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
  });
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
  if (found === target_schema_version(kind)) return;
  throw unreadable(connection, kind, found);
}

function unreadable(connection: Connection, kind: DatabaseKind, found: number | undefined) {
  const expected = target_schema_version(kind);
  return air_failure({
    kind: "project_error",
    message:
      found === undefined
        ? `${connection.path} is not an air ${DATABASE_KINDS[kind]} database`
        : `${connection.path} has schema version ${found}; this air reads version ${expected}`,
    retryability: "not_retryable",
    user_action:
      found !== undefined && found > expected
        ? "Upgrade air: the database was written by a newer version."
        : "Resume the session with this air once so it migrates the database, then retry.",
    metadata: { path: connection.path, ...(found === undefined ? {} : { found }), expected },
  });
}

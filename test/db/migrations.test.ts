/**
 * Migrations at open (DESIGN.md §3, research/libsql-drizzle.md §4.4–§4.5): fresh files, no-op re-opens,
 * two processes racing on one fresh file, readers explaining files they cannot read, files that are not
 * SQLite at all.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Connection } from "../../src/db/connection.js";
import * as debug_records_schema from "../../src/db/debug-records-schema.js";
import * as learned_memory_schema from "../../src/db/learned-memory-schema.js";
import { assert_readable, DATABASE_KINDS, migrate, migrations_of, schema_version_of, target_schema_version, type DatabaseKind } from "../../src/db/migrate.js";
import * as session_schema from "../../src/db/schema.js";
import { AIR_VERSION } from "../../src/version.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { Child, kill_and_close, TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
const open: Connection[] = [];
const children: Child[] = [];

afterEach(() => kill_and_close(children, open));
afterAll(() => dirs.cleanup());

function connect(file: string): Connection {
  const connection = Connection.open(file);
  open.push(connection);
  return connection;
}

function new_file(name = "test.db"): string {
  return path.join(dirs.make("air-migrations-"), name);
}

const SCHEMAS: Record<DatabaseKind, Record<string, unknown>> = {
  session: session_schema,
  debug_records: debug_records_schema,
  learned_memory: learned_memory_schema,
};

/** Every table the drizzle schema of `kind` declares. */
function declared_tables(kind: DatabaseKind): string[] {
  return Object.values(SCHEMAS[kind])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableName(table))
    .sort();
}

function tables_in(connection: Connection): string[] {
  const rows = connection.client.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").raw().all() as [
    string,
  ][];
  return rows.map((row) => row[0]);
}

function journal(connection: Connection): unknown[] {
  return connection.client.prepare("SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id").raw().all();
}

function meta(connection: Connection): Record<string, string> {
  const rows = connection.client.prepare("SELECT key, value FROM schema_meta").raw().all() as [string, string][];
  return Object.fromEntries(rows);
}

describe("migrate", () => {
  for (const kind of Object.keys(DATABASE_KINDS) as DatabaseKind[]) {
    it(`migrates a fresh ${kind} database: every declared table, the journal and schema_meta`, () => {
      const connection = connect(new_file(`${kind}.db`));
      migrate(connection, kind);
      const declared = declared_tables(kind);
      expect(declared.length).toBeGreaterThan(0);
      expect(tables_in(connection)).toEqual([...declared, "__drizzle_migrations"].sort());
      expect(target_schema_version(kind)).toBe(migrations_of(kind).length);
      expect(target_schema_version(kind)).toBeGreaterThan(0);
      expect(meta(connection)).toEqual({
        schema_version: String(target_schema_version(kind)),
        air_version_created: AIR_VERSION,
        air_version_last_opened: AIR_VERSION,
      });
      expect(schema_version_of(connection)).toBe(target_schema_version(kind));
      expect(journal(connection)).toEqual(migrations_of(kind).map((m, i) => [i + 1, m.hash, m.folderMillis]));
      expect(() => assert_readable(connection, kind)).not.toThrow();
    });
  }

  it("is a no-op when re-opening a migrated file: same journal rows, same tables, data kept", () => {
    const file = new_file();
    const first = connect(file);
    migrate(first, "session");
    first.client.prepare("INSERT INTO ui_state (scope, key, value_json, updated_at) VALUES (?, ?, ?, ?)").run("tui", "k", "{}", "2026-01-01T00:00:00.000Z");
    const rows_before = journal(first);
    const tables_before = tables_in(first);
    const created_before = meta(first).air_version_created;
    first.close();

    for (let i = 0; i < 3; i++) {
      const again = connect(file);
      migrate(again, "session");
      expect(journal(again)).toEqual(rows_before);
      expect(tables_in(again)).toEqual(tables_before);
      expect(meta(again).air_version_created).toBe(created_before);
      expect(again.client.prepare("SELECT count(*) FROM ui_state").raw().get()).toEqual([1]);
      again.close();
    }
  });

  it("lets two processes open and migrate the same fresh file at the same instant (10 trials)", async () => {
    const outcomes: string[] = [];
    for (let trial = 0; trial < 10; trial++) {
      const file = new_file(`race-${trial}.db`);
      const pair = [new Child("migrate-once.ts", [file, "session", "--barrier"]), new Child("migrate-once.ts", [file, "session", "--barrier"])];
      children.push(...pair);
      await Promise.all(pair.map((child) => child.line((line) => line === "ready")));
      for (const child of pair) child.send("go");
      const exits = await Promise.all(pair.map((child) => child.exit));
      outcomes.push(pair.map((child, i) => `${child.lines.at(-1)} (${JSON.stringify(exits[i])}) ${child.stderr}`).join(" / "));

      const connection = connect(file);
      expect(journal(connection)).toHaveLength(target_schema_version("session"));
      expect(tables_in(connection)).toEqual([...declared_tables("session"), "__drizzle_migrations"].sort());
      expect(() => assert_readable(connection, "session")).not.toThrow();
      connection.close();
    }
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => 'ok ({"code":0,"signal":null})  / ok ({"code":0,"signal":null}) '));
  });

  it("refuses to migrate a file written by a newer air, leaving its schema version as it was", () => {
    const file = new_file();
    const connection = connect(file);
    migrate(connection, "session");
    const newer = target_schema_version("session") + 1;
    connection.client.prepare("UPDATE schema_meta SET value = ? WHERE key = 'schema_version'").run(String(newer));

    const failure = expect_air_failure(() => migrate(connection, "session"));
    expect(failure.error).toMatchObject({ kind: "project_error", retryability: "not_retryable" });
    expect(failure.error.user_action).toMatch(/Upgrade air/);
    expect(schema_version_of(connection)).toBe(newer);
    expect(connection.client.inTransaction).toBe(false);
  });
});

describe("assert_readable", () => {
  it("explains a SQLite file air never migrated", () => {
    const file = new_file();
    const connection = connect(file);
    connection.client.exec("CREATE TABLE something_else (x)");
    const failure = expect_air_failure(() => assert_readable(connection, "session"));
    expect(failure.error).toMatchObject({ kind: "project_error", retryability: "not_retryable" });
    expect(failure.message).toContain(file);
    expect(failure.message).toMatch(/not an air session database/);
    expect(failure.error.user_action).toMatch(/not written by air/);
    // A reader changes nothing.
    expect(tables_in(connection)).toEqual(["something_else"]);
  });

  it("explains a file written by a newer air (higher schema_version)", () => {
    const connection = connect(new_file());
    migrate(connection, "session");
    const newer = target_schema_version("session") + 1;
    connection.client.prepare("UPDATE schema_meta SET value = ? WHERE key = 'schema_version'").run(String(newer));
    const failure = expect_air_failure(() => assert_readable(connection, "session"));
    expect(failure.error).toMatchObject({ kind: "project_error", metadata: { found: newer, expected: newer - 1 } });
    expect(failure.message).toMatch(new RegExp(`schema version ${newer}`));
    expect(failure.error.user_action).toMatch(/Upgrade air/);
  });

  it("explains a file with an older schema_version and says how to upgrade it", () => {
    const connection = connect(new_file());
    migrate(connection, "learned_memory");
    connection.client.prepare("UPDATE schema_meta SET value = ? WHERE key = 'schema_version'").run("0");
    const failure = expect_air_failure(() => assert_readable(connection, "learned_memory"));
    expect(failure.error).toMatchObject({ kind: "project_error", metadata: { found: 0, migration_needed: true } });
    expect(failure.error.user_action).toMatch(/`air migrate`/);
  });
});

describe("Connection.open on a file that is not SQLite", () => {
  const CASES: [string, () => Buffer][] = [
    ["4 KB of random bytes", () => crypto.randomBytes(4096)],
    ["a text file", () => Buffer.from("# notes\nThis is a text file that happens to be named session.db.\n".repeat(20))],
  ];

  for (const [what, bytes] of CASES) {
    it(`reports ${what} as a project_error with a user action, and leaves the file and its folder untouched`, () => {
      const dir = dirs.make("air-notadb-");
      const file = path.join(dir, "session.db");
      const original = bytes();
      fs.writeFileSync(file, original);

      for (const attempt of [() => Connection.open(file), () => Connection.open(file, { must_exist: true, busy_timeout_ms: 50 })]) {
        const failure = expect_air_failure(attempt);
        expect(failure.error).toMatchObject({ kind: "project_error", retryability: "not_retryable" });
        expect(failure.error.user_action).toBeTruthy();
        expect(failure.message).toContain(file);
      }
      expect(fs.readFileSync(file).equals(original)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual(["session.db"]);
    });
  }
});

/**
 * Migrations with a plan (D-055, seeds 003 §15 Migration): a database older than this build is refused at
 * open without a change; `run_project_migrations` backs each one up (VACUUM INTO) and migrates it in one
 * transaction, and a failure — made by the file's own content, against the real migrations — rolls it back.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Connection } from "../../src/db/connection.js";
import { MIGRATE_ACTION, target_schema_version } from "../../src/db/migrate.js";
import { session_db_path, session_lock_path } from "../../src/project/layout.js";
import { backup_path_of, plan_project_migrations, run_project_migrations } from "../../src/project/migrations.js";
import { open_session } from "../../src/project/session-manager.js";
import { SessionLock } from "../../src/project/session-lock.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { older_database, older_session, previous_version, state_of } from "../fixtures/older-schema.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

function project(): TempProject {
  temp = temp_project();
  return temp;
}

const DEBUG_ROWS = "SELECT id, title FROM debug_records";

/** An older debug-records.db holding one record. */
function older_debug_records(file: string): void {
  older_database(file, "debug_records");
  const connection = Connection.open(file);
  connection.client
    .prepare(
      "INSERT INTO debug_records (id, failure_signature, title, symptom, root_cause, fix_summary, evidence_refs_json, verified, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .run("dbg_1", "sig", "kept record", "s", "r", "f", "[]", 1, "active", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z");
  connection.close();
}

function columns(file: string, table: string): string[] {
  const connection = Connection.open(file, { must_exist: true });
  try {
    return (connection.client.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((column) => column.name);
  } finally {
    connection.close();
  }
}

describe("opening a database older than this build", () => {
  it("refuses to resume an older session, naming both versions and `air migrate`, and leaves the file as it was", () => {
    const { project: opened } = project();
    const session_id = older_session(opened, "from an older air");
    const file = session_db_path(opened.layout, session_id);
    const before = state_of(file);

    const failure = expect_air_failure(() => open_session(opened, { session_id }));
    expect(failure.error).toMatchObject({ kind: "project_error", metadata: { migration_needed: true, path: file, found: previous_version("session") } });
    expect(failure.message).toContain(`schema version ${previous_version("session")}; this air writes version ${target_schema_version("session")}`);
    expect(failure.error.user_action).toBe(MIGRATE_ACTION);
    expect(state_of(file)).toEqual(before);
    expect(before.version).toBe(String(previous_version("session")));
  });

  it("refuses to start a session while the project's debug-records.db is older, before creating anything", () => {
    const { project: opened } = project();
    older_debug_records(opened.layout.debug_records_db);
    const before = state_of(opened.layout.debug_records_db, DEBUG_ROWS);

    const failure = expect_air_failure(() => open_session(opened, { title: "new" }));
    expect(failure.error.metadata).toMatchObject({ migration_needed: true, path: opened.layout.debug_records_db });
    expect(fs.readdirSync(opened.layout.sessions)).toEqual([]);
    expect(state_of(opened.layout.debug_records_db, DEBUG_ROWS)).toEqual(before);
  });

  it("creates a new database without a plan: a new file is creation, not migration", () => {
    const { project: opened } = project();
    const session = open_session(opened, { title: "fresh" });
    session.close();
    expect(plan_project_migrations(opened.layout).databases).toEqual([]);
  });

  it("refuses a session written by a newer air, naming its version and this air's", () => {
    const { project: opened } = project();
    const session = open_session(opened, { title: "newer" });
    const newer = target_schema_version("session") + 3;
    session.connection.client.prepare("UPDATE schema_meta SET value = ? WHERE key = 'schema_version'").run(String(newer));
    session.close();

    for (const attempt of [() => open_session(opened, { session_id: session.id }), () => plan_project_migrations(opened.layout)]) {
      const failure = expect_air_failure(attempt);
      expect(failure.message).toContain(`schema version ${newer}`);
      expect(failure.message).toContain(`newer than version ${target_schema_version("session")}`);
      expect(failure.error.user_action).toMatch(/^Upgrade air/);
    }
  });
});

describe("plan_project_migrations", () => {
  it("lists each older database with its versions and each migration's changes, and a timestamped backup folder", () => {
    const { project: opened } = project();
    const session_id = older_session(opened, "old");
    older_debug_records(opened.layout.debug_records_db);

    const plan = plan_project_migrations(opened.layout, { all: true }, new Date("2026-12-03T19:40:12.345Z"));
    expect(plan.backup_dir).toBe(path.join(opened.layout.local, "backups", "migrations", "2026-12-03T19-40-12-345Z"));
    expect(plan.databases.map((database) => [database.kind, database.from, database.to])).toEqual([
      ["debug_records", previous_version("debug_records"), target_schema_version("debug_records")],
      ["session", previous_version("session"), target_schema_version("session")],
    ]);
    expect(plan.databases[1]?.path).toBe(session_db_path(opened.layout, session_id));
    expect(plan.databases[1]?.steps).toEqual([
      { name: "0001_diagnostics_family_signature", changes: ["adds column family_signature to diagnostics"], risks: [] },
    ]);
  });

  it("leaves out other sessions when a command opens one (`also`), keeping the project's own databases", () => {
    const { project: opened } = project();
    const wanted = older_session(opened, "wanted");
    older_session(opened, "other");
    older_debug_records(opened.layout.debug_records_db);
    const plan = plan_project_migrations(opened.layout, { also: session_db_path(opened.layout, wanted) });
    expect(plan.databases.map((database) => database.path)).toEqual([opened.layout.debug_records_db, session_db_path(opened.layout, wanted)]);
  });
});

describe("run_project_migrations", () => {
  it("backs each database up as it was, then migrates it with its rows kept", () => {
    const { project: opened } = project();
    const session_id = older_session(opened, "kept title");
    const file = session_db_path(opened.layout, session_id);
    const before = state_of(file);
    const plan = plan_project_migrations(opened.layout);

    const run = run_project_migrations(opened.layout, plan);
    expect(run.failed).toBeUndefined();
    expect(run.migrated.map((database) => database.path)).toEqual([file]);
    const backup = backup_path_of(opened.layout, plan.backup_dir, file);
    expect(backup).toBe(path.join(plan.backup_dir, "local", "sessions", session_id, "session.db"));
    expect(state_of(backup)).toEqual(before);
    const after = state_of(file);
    expect(after).toMatchObject({ version: String(target_schema_version("session")), rows: [["kept title"]] });
    expect(columns(file, "diagnostics")).toContain("family_signature");
    const record = JSON.parse(fs.readFileSync(path.join(plan.backup_dir, "migration.json"), "utf8"));
    expect(record.run.migrated).toHaveLength(1);

    const session = open_session(opened, { session_id });
    expect(session.model_id).toBeUndefined();
    session.close();
  });

  it("rolls a failing migration back — the file keeps its version, schema and rows — keeps what migrated before it, and tries nothing after", () => {
    const { project: opened } = project();
    older_debug_records(opened.layout.debug_records_db);
    const failing = older_session(opened, "a");
    const untried = older_session(opened, "b");
    const [first, second] = [failing, untried].sort();
    // A column added by hand before the migration that adds it: the real migration fails on its content.
    const broken = session_db_path(opened.layout, first!);
    const connection = Connection.open(broken);
    connection.client.exec("ALTER TABLE diagnostics ADD family_signature text");
    connection.close();
    const before = state_of(broken);

    const plan = plan_project_migrations(opened.layout);
    const run = run_project_migrations(opened.layout, plan);
    expect(run.migrated.map((database) => database.path)).toEqual([opened.layout.debug_records_db]);
    expect(run.failed?.database.path).toBe(broken);
    expect(run.failed?.error.message).toMatch(/duplicate column name: family_signature/);
    expect(run.not_tried.map((database) => database.path)).toEqual([session_db_path(opened.layout, second!)]);
    expect(state_of(broken)).toEqual(before);
    expect(state_of(opened.layout.debug_records_db, DEBUG_ROWS)).toMatchObject({ version: String(target_schema_version("debug_records")) });
    expect(state_of(session_db_path(opened.layout, second!)).version).toBe(String(previous_version("session")));
    expect(fs.existsSync(backup_path_of(opened.layout, plan.backup_dir, broken))).toBe(true);
  });

  it("rolls back the statements a migration ran before the one that failed", () => {
    const { project: opened } = project();
    const file = opened.layout.debug_records_db;
    older_debug_records(file);
    // The migration adds four columns, then creates this index: its name is taken, so the fifth statement fails.
    const connection = Connection.open(file);
    connection.client.exec("CREATE INDEX debug_records_family_idx ON debug_records (title)");
    connection.close();
    const before = state_of(file, DEBUG_ROWS);

    const run = run_project_migrations(opened.layout, plan_project_migrations(opened.layout));
    expect(run.failed?.error.message).toMatch(/debug_records_family_idx already exists/);
    expect(state_of(file, DEBUG_ROWS)).toEqual(before);
    expect(columns(file, "debug_records")).not.toContain("family_signature");
    expect(before.rows).toEqual([["dbg_1", "kept record"]]);
  });

  it("refuses to migrate a session another process has open for writing, and leaves it as it was", () => {
    const { project: opened } = project();
    const session_id = older_session(opened, "busy");
    const file = session_db_path(opened.layout, session_id);
    const before = state_of(file);
    fs.mkdirSync(opened.layout.locks, { recursive: true });
    const lock = SessionLock.acquire(session_lock_path(opened.layout, session_id), session_id);
    try {
      const run = run_project_migrations(opened.layout, plan_project_migrations(opened.layout));
      expect(run.failed?.error.message).toMatch(/already open for writing/);
      expect(state_of(file)).toEqual(before);
    } finally {
      lock.release();
    }
  });
});

/**
 * One regression test per libsql driver pitfall of DESIGN.md §3 (research/libsql-drizzle.md §1.3, §2.3,
 * §2.4, §3, §7). Real files in temp dirs, real child processes where a regression would kill the runner.
 */
import fs from "node:fs";
import path from "node:path";
import { blob, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AirFailure } from "../../src/contracts/errors.js";
import { Connection } from "../../src/db/connection.js";
import { DEFAULT_BUSY_TIMEOUT_MS, is_busy } from "../../src/db/sqlite.js";
import { migrate } from "../../src/db/migrate.js";
import { open_client } from "../../src/db/sqlite.js";
import { thrown_by } from "../fixtures/failures.js";
import { Child, kill_and_close, REPO_ROOT, run_fixture, TempDirs } from "../fixtures/processes.js";
import { open_temp_session } from "../fixtures/session.js";

const dirs = new TempDirs();
const open: Connection[] = [];
const children: Child[] = [];

function connect(file: string, options: Parameters<typeof Connection.open>[1] = {}): Connection {
  const connection = Connection.open(file, options);
  open.push(connection);
  return connection;
}

afterEach(() => kill_and_close(children, open));
afterAll(() => dirs.cleanup());

function new_db(name = "test.db"): string {
  return path.join(dirs.make("air-pitfalls-"), name);
}

function pragma(connection: Connection, name: string): unknown {
  const row = connection.client.prepare(`PRAGMA ${name}`).raw().get() as unknown[] | undefined;
  return row?.[0];
}

function who(file: string): string[] {
  const reader = connect(file);
  const rows = reader.client.prepare("SELECT who FROM t ORDER BY rowid").raw().all() as [string][];
  reader.close();
  return rows.map((row) => row[0]);
}

describe("Connection: lone bind parameters (libsql-js #114)", () => {
  it("binds a lone Buffer or Uint8Array parameter without aborting the process (raw statements, drizzle, write())", async () => {
    const result = await run_fixture("lone-params.ts", [new_db(), "ours"]);
    expect(result.stderr).toBe("");
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(JSON.parse(result.stdout)).toEqual({
      rows: [
        { id: 1, b: "0001ff" },
        { id: 2, b: "0a0b" },
        { id: 3, b: "dead" },
        { id: 4, b: "beef" },
        { id: 5, b: Buffer.from("written in a transaction").toString("hex") },
      ],
      by_get: 1,
      by_all: [2],
      drizzle_hit: [3],
    });
  });

  it("detects the abort it guards against: the bare libsql binding still dies on a lone Buffer", async () => {
    // The harness above would see a regression as a non-zero exit; this shows it does see an abort.
    // If this starts failing, libsql fixed #114 and PositionalStatement is no longer needed.
    const result = await run_fixture("lone-params.ts", [new_db(), "raw-libsql"]);
    expect(result.stdout).not.toContain("survived");
    expect(result.code === 0 && result.signal === null).toBe(false);
  });

  it("binds a lone null parameter through a prepared statement without throwing", () => {
    const connection = connect(new_db());
    connection.client.exec("CREATE TABLE t (v TEXT)");
    expect(connection.client.prepare("INSERT INTO t (v) VALUES (?)").run(null).changes).toBe(1);
    expect(connection.client.prepare("SELECT count(*) FROM t WHERE v IS ?").raw().get(null)).toEqual([1]);
  });

  it("binds a lone null through drizzle (insert of one value, update().set({ x: null }) without where)", () => {
    const connection = connect(new_db());
    connection.client.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT, data BLOB)");
    const notes = sqliteTable("notes", {
      id: integer("id").primaryKey({ autoIncrement: true }),
      body: text("body"),
      data: blob("data", { mode: "buffer" }),
    });
    connection.db.insert(notes).values({ body: null }).run();
    connection.db.insert(notes).values({ body: "kept" }).run();
    connection.db.update(notes).set({ body: null }).run();
    connection.write(() => connection.db.update(notes).set({ data: null }).run());
    expect(connection.db.select({ body: notes.body }).from(notes).all()).toEqual([{ body: null }, { body: null }]);
  });
});

describe("Connection: pragmas on every connection (libsql defaults: synchronous=FULL, busy_timeout=0)", () => {
  function expect_pragmas(connection: Connection, busy_timeout: number) {
    expect({
      synchronous: pragma(connection, "synchronous"),
      busy_timeout: pragma(connection, "busy_timeout"),
      foreign_keys: pragma(connection, "foreign_keys"),
      journal_mode: pragma(connection, "journal_mode"),
    }).toEqual({ synchronous: 1, busy_timeout, foreign_keys: 0, journal_mode: "wal" });
  }

  it("sets synchronous=NORMAL, the default busy timeout, foreign_keys=OFF and WAL on a new file", () => {
    expect(DEFAULT_BUSY_TIMEOUT_MS).toBeGreaterThan(0);
    expect_pragmas(connect(new_db()), DEFAULT_BUSY_TIMEOUT_MS);
  });

  it("uses the configured busy timeout, also on an existing file and after reopen()", () => {
    const file = new_db();
    connect(file).close();
    const connection = connect(file, { busy_timeout_ms: 1234 });
    expect_pragmas(connection, 1234);
    connection.reopen();
    expect_pragmas(connection, 1234);
  });

  it("keeps the pragmas after migrating (drizzle's migrator turns foreign_keys back on)", () => {
    const connection = connect(new_db(), { busy_timeout_ms: 777 });
    migrate(connection, "session");
    expect_pragmas(connection, 777);
  });

  it("gives a session's connection the same pragmas", () => {
    const temp = open_temp_session();
    try {
      expect_pragmas(temp.session.connection, DEFAULT_BUSY_TIMEOUT_MS);
    } finally {
      temp.cleanup();
    }
  });

  it("gives a read-only client an explicit busy timeout too", () => {
    const file = new_db();
    connect(file).close();
    const client = open_client(file);
    try {
      expect(client.prepare("PRAGMA busy_timeout").raw().get()).toEqual([DEFAULT_BUSY_TIMEOUT_MS]);
    } finally {
      client.close();
    }
  });
});

describe("Connection: SQLITE_BUSY from another process (libsql-js #352)", () => {
  async function locked_by_other_process(file: string): Promise<Child> {
    const holder = new Child("sqlite-write-holder.ts", [file]);
    children.push(holder);
    await holder.line((line) => line === "locked");
    return holder;
  }

  async function release(holder: Child): Promise<void> {
    holder.send("commit");
    await holder.line((line) => line === "released");
    expect(await holder.exit).toEqual({ code: 0, signal: null });
  }

  it("throws a retryable AirFailure while another process holds BEGIN IMMEDIATE, then commits the next write on the same Connection", async () => {
    const file = new_db();
    const setup = connect(file);
    setup.client.exec("CREATE TABLE t (who TEXT NOT NULL)");
    setup.close();

    const holder = await locked_by_other_process(file);
    const victim = connect(file, { busy_timeout_ms: 100 });
    const failure = thrown_by(() => victim.write(() => victim.client.prepare("INSERT INTO t (who) VALUES (?)").run("refused")));
    expect(failure).toBeInstanceOf(AirFailure);
    expect((failure as AirFailure).error).toMatchObject({ kind: "system_error", retryability: "retryable" });
    expect((failure as AirFailure).error.user_action).toBeTruthy();
    expect(victim.client.inTransaction).toBe(false);

    await release(holder);
    victim.write(() => victim.client.prepare("INSERT INTO t (who) VALUES (?)").run("after"));
    // Through drizzle as well: a poisoned connection would acknowledge these and lose them.
    const t = sqliteTable("t", { who: text("who").notNull() });
    victim.write(() => victim.db.insert(t).values({ who: "after, via drizzle" }).run());

    expect(who(file)).toEqual(["holder", "after", "after, via drizzle"]);
    // Nothing is held by the victim either: another connection can write.
    const other = connect(file, { busy_timeout_ms: 100 });
    other.write(() => other.client.prepare("INSERT INTO t (who) VALUES (?)").run("other"));
    expect(who(file)).toEqual(["holder", "after", "after, via drizzle", "other"]);
  });

  it("replaces the connection after a prepared statement inside write() got SQLITE_BUSY, so later writes are not lost", async () => {
    // The only lock a statement can still meet after our BEGIN IMMEDIATE is an attached database's:
    // that BUSY comes from a prepared statement, the case that poisons a libsql connection.
    const dir = dirs.make("air-pitfalls-attach-");
    const main_file = path.join(dir, "main.db");
    const locked_file = path.join(dir, "locked.db");
    for (const file of [main_file, locked_file]) {
      const setup = connect(file);
      setup.client.exec("CREATE TABLE t (who TEXT NOT NULL)");
      setup.close();
    }
    const victim = connect(main_file, { busy_timeout_ms: 100 });
    victim.client.exec(`ATTACH DATABASE '${locked_file.replaceAll("'", "''")}' AS other`);
    const holder = await locked_by_other_process(locked_file);

    const failure = thrown_by(() =>
      victim.write(() => {
        victim.client.prepare("INSERT INTO t (who) VALUES (?)").run("rolled back");
        victim.client.prepare("INSERT INTO other.t (who) VALUES (?)").run("refused");
      }),
    );
    expect(is_busy(failure) || (failure instanceof AirFailure && failure.error.retryability === "retryable")).toBe(true);

    await release(holder);
    victim.write(() => victim.client.prepare("INSERT INTO t (who) VALUES (?)").run("after"));
    victim.write(() => victim.client.prepare("INSERT INTO t (who) VALUES (?)").run("after again"));
    expect(who(main_file)).toEqual(["after", "after again"]);
    expect(who(locked_file)).toEqual(["holder"]);
  });
});

describe("Connection.write: async callbacks (libsql COMMITs at the first await)", () => {
  it("refuses an async callback with an AirFailure and keeps nothing it wrote, before or after its await", async () => {
    const file = new_db();
    const connection = connect(file);
    connection.client.exec("CREATE TABLE t (who TEXT NOT NULL)");
    const t = sqliteTable("t", { who: text("who").notNull() });

    let resumed = false;
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const failure = thrown_by(() =>
      connection.write(async () => {
        connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("before await");
        await gate;
        connection.db.insert(t).values({ who: "after await" }).run();
        connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("after await, raw");
        resumed = true;
      }),
    );
    expect(failure).toBeInstanceOf(AirFailure);
    expect((failure as AirFailure).error).toMatchObject({ kind: "system_error", retryability: "not_retryable" });
    expect((failure as AirFailure).message).toMatch(/promise/);

    // While the callback is still running, other writes are refused rather than mixed into it.
    expect(thrown_by(() => connection.write(() => connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("meanwhile")))).toBeInstanceOf(AirFailure);

    finish();
    await expect.poll(() => resumed).toBe(true);
    await expect.poll(() => connection.client.inTransaction).toBe(false);
    expect(who(file)).toEqual([]);

    // The connection is usable again afterwards.
    connection.write(() => connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("sync write"));
    expect(who(file)).toEqual(["sync write"]);
  });

  it("discards the writes of an async callback that rejects", async () => {
    const file = new_db();
    const connection = connect(file);
    connection.client.exec("CREATE TABLE t (who TEXT NOT NULL)");
    let rejected = false;
    expect(
      thrown_by(() =>
        connection.write(async () => {
          connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("before await");
          await Promise.resolve();
          connection.client.prepare("INSERT INTO t (who) VALUES (?)").run("after await");
          rejected = true;
          throw new Error("boom after await");
        }),
      ),
    ).toBeInstanceOf(AirFailure);
    await expect.poll(() => rejected && !connection.client.inTransaction).toBe(true);
    expect(who(file)).toEqual([]);
  });
});

describe("air's modules: one SQLite library per process", () => {
  const FORBIDDEN = [
    /^better-sqlite3(\/|$)/,
    /^@libsql\/client(\/|$)/,
    /^drizzle-orm\/libsql(\/|$)/,
    /^drizzle-orm\/better-sqlite3(\/(index|driver)(\.js)?)?$/,
  ];

  function specifiers(source: string): string[] {
    const found: string[] = [];
    const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(["'`])([^"'`]+)\1/g;
    for (const match of source.matchAll(pattern)) found.push(match[2]!);
    return found;
  }

  function forbidden_in(source: string): string[] {
    return specifiers(source).filter((specifier) => FORBIDDEN.some((rule) => rule.test(specifier)));
  }

  function source_files(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return source_files(full);
      return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
    });
  }

  it("recognises every way of importing a second SQLite library (self-check of the scanner)", () => {
    expect(
      forbidden_in(`
        import Database from "better-sqlite3";
        import { createClient } from '@libsql/client';
        const lazy = await import("@libsql/client/web");
        const cjs = require("better-sqlite3");
        import "drizzle-orm/libsql";
        import { drizzle } from "drizzle-orm/better-sqlite3";
        import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
        import Database2 from "libsql";
      `),
    ).toEqual(["better-sqlite3", "@libsql/client", "@libsql/client/web", "better-sqlite3", "drizzle-orm/libsql", "drizzle-orm/better-sqlite3"]);
  });

  it("never imports better-sqlite3 or @libsql/client (or drizzle drivers that load them) from src/", () => {
    const files = source_files(path.join(REPO_ROOT, "src"));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((file) =>
      forbidden_in(fs.readFileSync(file, "utf8")).map((specifier) => `${path.relative(REPO_ROOT, file)}: ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("depends at runtime on libsql only among SQLite drivers", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    const names = Object.keys(manifest.dependencies ?? {});
    expect(names).toContain("libsql");
    expect(names.filter((name) => FORBIDDEN.some((rule) => rule.test(name)))).toEqual([]);
  });
});

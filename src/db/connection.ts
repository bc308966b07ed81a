import fs from "node:fs";
import Database from "libsql";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { air_failure, AirFailure } from "../contracts/errors.js";

/** Milliseconds a statement waits for another connection's lock before SQLITE_BUSY (libsql's default is 0). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

type LibsqlStatement = ReturnType<InstanceType<typeof Database>["prepare"]>;

/**
 * libsql binds a lone object argument as named parameters, so a single Buffer aborts the process and
 * a single null throws (libsql-js #114). Binding every call's parameters as one array avoids both.
 */
class PositionalStatement {
  constructor(private readonly inner: LibsqlStatement) {}

  run(...params: unknown[]) {
    return this.inner.run(params);
  }
  get(...params: unknown[]) {
    return this.inner.get(params);
  }
  all(...params: unknown[]) {
    return this.inner.all(params);
  }
  raw(on?: boolean) {
    this.inner.raw(on);
    return this;
  }
}

/** The slice of a libsql `Database` that air uses, with positional binding enforced. */
export class SqliteClient {
  constructor(private readonly database: InstanceType<typeof Database>) {}

  prepare(sql: string): PositionalStatement {
    return new PositionalStatement(this.database.prepare(sql));
  }
  exec(sql: string): void {
    this.database.exec(sql);
  }
  get inTransaction(): boolean {
    return this.database.inTransaction;
  }
  close(): void {
    this.database.close();
  }
}

export type DrizzleDb = BaseSQLiteDatabase<"sync", unknown>;

/**
 * drizzle has no driver for the synchronous libsql binding; its better-sqlite3 session runs on it
 * unchanged (research/libsql-drizzle.md §1.2) without importing better-sqlite3 itself.
 */
function drizzle_over(client: SqliteClient): DrizzleDb {
  const dialect = new SQLiteSyncDialect();
  const session = new BetterSQLiteSession(client as never, dialect, undefined, {});
  return new BaseSQLiteDatabase("sync", dialect, session as never, undefined) as DrizzleDb;
}

export type OpenOptions = {
  busy_timeout_ms?: number;
  /** A missing file is an error instead of a new empty database (readers never create sessions). */
  must_exist?: boolean;
};

export function sqlite_code(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

export function is_busy(error: unknown): boolean {
  return sqlite_code(error)?.startsWith("SQLITE_BUSY") ?? false;
}

function open_failure(path: string, error: unknown): AirFailure {
  const code = sqlite_code(error);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") {
    return air_failure(
      {
        kind: "project_error",
        message: `${path} is not an SQLite database (${code})`,
        retryability: "not_retryable",
        user_action: "Move the file aside (air never overwrites it) and start a new session, or restore it from a backup.",
        metadata: { path, code },
      },
      error,
    );
  }
  if (is_busy(error)) return busy_failure(path, error);
  return air_failure(
    {
      kind: "env_error",
      message: `cannot open ${path}: ${error instanceof Error ? error.message : String(error)}`,
      retryability: "unknown",
      user_action: "Check that the folder exists, is writable, and the disk is not full.",
      metadata: { path, ...(code === undefined ? {} : { code }) },
    },
    error,
  );
}

export function busy_failure(path: string, error: unknown): AirFailure {
  return air_failure(
    {
      kind: "system_error",
      message: `${path} stayed locked by another connection past the busy timeout`,
      retryability: "retryable",
      user_action: "Another air process is writing this session; wait for it to finish or stop it.",
      metadata: { path },
    },
    error,
  );
}

/**
 * One connection to one database file. Every connection gets WAL, synchronous=NORMAL (libsql defaults
 * to FULL: 5× slower commits), foreign_keys=OFF (invariants are checked by air) and a busy timeout.
 */
export class Connection {
  #client: SqliteClient;
  #db: DrizzleDb;
  #statements = new Map<string, unknown>();

  private constructor(
    readonly path: string,
    private readonly options: Required<Omit<OpenOptions, "must_exist">>,
  ) {
    this.#client = Connection.connect(path, options.busy_timeout_ms);
    this.#db = drizzle_over(this.#client);
  }

  static open(path: string, options: OpenOptions = {}): Connection {
    if (options.must_exist && !fs.existsSync(path)) {
      throw air_failure({
        kind: "user_error",
        message: `no database at ${path}`,
        retryability: "not_retryable",
        user_action: "Check the session id with `air session list`.",
        metadata: { path },
      });
    }
    return new Connection(path, { busy_timeout_ms: options.busy_timeout_ms ?? DEFAULT_BUSY_TIMEOUT_MS });
  }

  private static connect(path: string, busy_timeout_ms: number): SqliteClient {
    let database: InstanceType<typeof Database> | undefined;
    try {
      database = new Database(path, { timeout: busy_timeout_ms });
      database.exec(
        `PRAGMA busy_timeout=${busy_timeout_ms}; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;`,
      );
      return new SqliteClient(database);
    } catch (error) {
      database?.close();
      throw open_failure(path, error);
    }
  }

  get client(): SqliteClient {
    return this.#client;
  }

  get db(): DrizzleDb {
    return this.#db;
  }

  /** A prepared statement (or drizzle prepared query) cached for this connection's lifetime. */
  statement<T>(key: string, prepare: (db: DrizzleDb, client: SqliteClient) => T): T {
    let prepared = this.#statements.get(key) as T | undefined;
    if (prepared === undefined) {
      prepared = prepare(this.#db, this.#client);
      this.#statements.set(key, prepared);
    }
    return prepared;
  }

  /**
   * Runs `work` in `BEGIN IMMEDIATE … COMMIT`. The write lock is taken up front (no BUSY on lock
   * upgrade), and taken through `exec`, whose BUSY does not poison a libsql connection. `work` must be
   * synchronous: libsql would COMMIT at its first `await` and run the rest outside the transaction.
   */
  write<T>(work: () => T): T {
    try {
      this.#client.exec("BEGIN IMMEDIATE");
    } catch (error) {
      if (is_busy(error)) throw busy_failure(this.path, error);
      throw error;
    }
    try {
      const result = work();
      if (result instanceof Promise) {
        result.catch(() => undefined);
        throw air_failure({
          kind: "system_error",
          message: "a database write callback returned a promise; writes must be synchronous",
          retryability: "not_retryable",
          user_action: "This is a bug in air; report it.",
        });
      }
      this.#client.exec("COMMIT");
      return result;
    } catch (error) {
      this.rollback_after(error);
      throw error;
    }
  }

  /**
   * After SQLITE_BUSY from a prepared statement a libsql connection silently loses later writes
   * (libsql-js #352), so such a connection is replaced instead of reused.
   */
  private rollback_after(error: unknown): void {
    if (this.#client.inTransaction) this.#client.exec("ROLLBACK");
    if (is_busy(error)) this.reopen();
  }

  reopen(): void {
    this.#client.close();
    this.#statements.clear();
    this.#client = Connection.connect(this.path, this.options.busy_timeout_ms);
    this.#db = drizzle_over(this.#client);
  }

  close(): void {
    this.#statements.clear();
    this.#client.close();
  }
}

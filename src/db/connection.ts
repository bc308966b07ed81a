import fs from "node:fs";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { air_failure } from "../contracts/errors.js";
import { busy_failure, DEFAULT_BUSY_TIMEOUT_MS, is_busy, open_client, type SqliteClient } from "./sqlite.js";

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

function async_write_failure(message: string) {
  return air_failure({
    kind: "system_error",
    message,
    retryability: "not_retryable",
    user_action: "This is a bug in air; report it.",
  });
}

export type OpenOptions = {
  busy_timeout_ms?: number;
  /** A missing file is an error instead of a new empty database (readers never create sessions). */
  must_exist?: boolean;
};

/**
 * One connection to one database file. Every connection gets WAL, synchronous=NORMAL (libsql defaults
 * to FULL: 5× slower commits), foreign_keys=OFF (invariants are checked by air) and a busy timeout.
 */
export class Connection {
  #client: SqliteClient;
  #db: DrizzleDb;
  #statements = new Map<string, unknown>();
  /** Set while a refused async write callback is still running (see `discard_when_settled`). */
  #unsettled: Promise<void> | undefined;

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
    return open_client(path, {
      busy_timeout_ms,
      pragmas: "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;",
    });
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
    if (this.#unsettled !== undefined) {
      throw async_write_failure("an earlier write callback returned a promise that has not settled; its writes are still being discarded");
    }
    try {
      this.#client.exec("BEGIN IMMEDIATE");
    } catch (error) {
      if (is_busy(error)) throw busy_failure(this.path, error);
      throw error;
    }
    let result: T;
    try {
      result = work();
      if (!(result instanceof Promise)) {
        this.#client.exec("COMMIT");
        return result;
      }
    } catch (error) {
      this.rollback_after(error);
      throw error;
    }
    this.discard_when_settled(result);
    throw async_write_failure("a database write callback returned a promise; writes must be synchronous");
  }

  /**
   * The code of an async callback after its first `await` runs later, outside `work()`: ending the
   * transaction now would let those writes autocommit. So the transaction stays open (other writes are
   * refused meanwhile) until the promise settles, and is then rolled back: nothing the callback wrote is kept.
   */
  private discard_when_settled(pending: Promise<unknown>): void {
    const client = this.#client;
    const settled = () => {
      this.#unsettled = undefined;
      try {
        if (client.inTransaction) client.exec("ROLLBACK");
      } catch {
        // The connection was closed meanwhile, which rolled the transaction back.
      }
    };
    this.#unsettled = pending.then(settled, settled);
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

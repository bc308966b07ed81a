import Database from "libsql";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import { sleep_sync } from "../sleep-sync.js";

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
  // biome-ignore lint/style/useNamingConvention: the slice keeps libsql's own name for it
  get inTransaction(): boolean {
    return this.database.inTransaction;
  }
  close(): void {
    this.database.close();
  }
}

export function sqlite_code(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
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
 * Opens a libsql connection with an explicit busy timeout (libsql's default is 0: fail at once) and runs
 * `pragmas`. This module loads libsql only, so read-only commands stay fast to start.
 */
export function open_client(path: string, options: { busy_timeout_ms?: number; pragmas?: string } = {}): SqliteClient {
  const busy_timeout_ms = options.busy_timeout_ms ?? DEFAULT_BUSY_TIMEOUT_MS;
  const deadline = Date.now() + busy_timeout_ms;
  for (let attempt = 1; ; attempt++) {
    let database: InstanceType<typeof Database> | undefined;
    try {
      database = new Database(path, { timeout: busy_timeout_ms });
      database.exec(`PRAGMA busy_timeout=${busy_timeout_ms}; ${options.pragmas ?? ""}`);
      return new SqliteClient(database);
    } catch (error) {
      database?.close();
      // Switching a new file to WAL takes its exclusive lock without the busy handler, so a second process
      // opening the same fresh file at that instant gets SQLITE_BUSY at once: wait as the busy timeout would.
      if (is_busy(error) && Date.now() < deadline) {
        sleep_sync(Math.min(5 * attempt, 50));
        continue;
      }
      throw open_failure(path, error);
    }
  }
}

import fs from "node:fs";
import type { KeyObject } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { is_air_failure } from "../contracts/errors.js";
import { credential_env_secrets, default_redactor, type SecretRedactor } from "../permissions/secret-redactor.js";
import { air_home } from "../project/layout.js";
import { AIR_VERSION } from "../version.js";
import { home_config_secrets } from "./config-secrets.js";
import { key_id, parse_public_key, seal_record } from "./developer-cipher.js";
import { RotatingFile } from "./rotating-file.js";

/**
 * air's two logs (seeds 003 §15, D-050), under `<air home>/logs/`:
 * - `air.log`, for the user: one redacted line per operational error or recovery summary;
 * - `air.developer.log`, for air's developers: the full record (stack, causes, data), still redacted — a key
 *   is never needed to debug — and sealed to the team's public key, so only they can read it.
 * Logging never fails its caller and costs nothing until something is logged: the files, the key and the
 * configuration's secrets are all read on the first record.
 */

/** The public key shipped with the package; AIR_DEVELOPER_LOG_PUBLIC_KEY names another PEM file (a build's, a test's). */
const SHIPPED_KEY = fileURLToPath(new URL("../../keys/developer-log.pub.pem", import.meta.url));
const KEY_VARIABLE = "AIR_DEVELOPER_LOG_PUBLIC_KEY";
/** How deep a chain of causes is followed into the developer log. */
const MAX_CAUSES = 5;

export function log_paths(home: string): { readonly air_log: string; readonly developer_log: string } {
  const folder = path.join(home, "logs");
  return { air_log: path.join(folder, "air.log"), developer_log: path.join(folder, "air.developer.log") };
}

type Sealer = { readonly public_key: KeyObject; readonly kid: string };

type Sinks = {
  readonly home: string;
  readonly key_file: string;
  readonly air: RotatingFile;
  readonly developer: RotatingFile;
  readonly redactor: SecretRedactor;
  sealer?: Sealer;
};

let sinks: Sinks | undefined;
let noted = false;

/** Once per process: a log that cannot be written must not go unnoticed, nor flood the terminal. */
function note_failure(error: unknown): void {
  if (noted) return;
  noted = true;
  try {
    process.stderr.write(`air: cannot write its log (${error instanceof Error ? error.message : String(error)}); the run goes on without it.\n`);
  } catch {
    // stderr itself is gone: there is nobody left to tell.
  }
}

/** The sinks of the current air home and key (tests and `AIR_HOME` switch them), made on first use. */
function current_sinks(): Sinks {
  const home = air_home(process.env);
  const key_file = process.env[KEY_VARIABLE] || SHIPPED_KEY;
  if (sinks?.home === home && sinks.key_file === key_file) return sinks;
  const redactor = default_redactor();
  for (const secret of credential_env_secrets()) redactor.add(secret);
  for (const value of home_config_secrets(home)) redactor.add({ label: "config_secret", value });
  const paths = log_paths(home);
  sinks = { home, key_file, air: new RotatingFile(paths.air_log), developer: new RotatingFile(paths.developer_log), redactor };
  return sinks;
}

function sealer_of(current: Sinks): Sealer {
  if (current.sealer === undefined) {
    const public_key = parse_public_key(fs.readFileSync(current.key_file, "utf8"));
    current.sealer = { public_key, kid: key_id(public_key) };
  }
  return current.sealer;
}

/** An error as the developer log keeps it: an AirError whole, any error's stack, and its causes. */
function error_record(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const record: Record<string, unknown> = { name: error.name, message: error.message, stack: error.stack };
  if (is_air_failure(error)) record.air_error = error.error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) record.code = code;
  if (error.cause !== undefined && depth < MAX_CAUSES) record.cause = error_record(error.cause, depth + 1);
  return record;
}

/** What the user reads of an error: its kind, message and what to do, on one line. */
function error_line(error: unknown): string {
  if (is_air_failure(error)) {
    const { kind, message, user_action } = error.error;
    return `${kind}: ${message}${user_action === undefined ? "" : ` (what to do: ${user_action})`}`;
  }
  return error instanceof Error ? error.message : String(error);
}

type Level = "error" | "warning" | "info";
type Entry = { readonly level: Level; readonly area: string; readonly message: string; readonly error?: unknown; readonly data?: Record<string, unknown> };

function write_user_line(current: Sinks, entry: Entry): void {
  const text = entry.error === undefined ? entry.message : `${entry.message}: ${error_line(entry.error)}`;
  const line = current.redactor.redact(text.replace(/\s*\n\s*/g, " | "));
  current.air.append(`${new Date().toISOString()} ${entry.level.toUpperCase()} [${entry.area}] ${line}\n`);
}

function write_developer_record(current: Sinks, entry: Entry): void {
  const record = {
    at: new Date().toISOString(),
    level: entry.level,
    area: entry.area,
    message: entry.message,
    air_version: AIR_VERSION,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    pid: process.pid,
    argv: process.argv.slice(2),
    ...(entry.data === undefined ? {} : { data: entry.data }),
    ...(entry.error === undefined ? {} : { error: error_record(entry.error) }),
  };
  const { public_key, kid } = sealer_of(current);
  current.developer.append(seal_record(public_key, kid, JSON.stringify(current.redactor.redact_value(record))));
}

function write(entry: Entry, user_facing: boolean): void {
  let current: Sinks;
  try {
    current = current_sinks();
  } catch (error) {
    note_failure(error);
    return;
  }
  for (const sink of user_facing ? [write_user_line, write_developer_record] : [write_developer_record]) {
    try {
      sink(current, entry);
    } catch (error) {
      note_failure(error);
    }
  }
}

/** An operational error: a redacted line in air.log, the whole story in the developer log. */
export function log_error(area: string, message: string, error?: unknown, data?: Record<string, unknown>): void {
  write({ level: "error", area, message, error, ...(data === undefined ? {} : { data }) }, true);
}

/** What a recovery did, in a sentence for air.log and in full for the developer log. */
export function log_summary(area: string, message: string, data?: Record<string, unknown>): void {
  write({ level: "info", area, message, ...(data === undefined ? {} : { data }) }, true);
}

/** Detail only air's developers need (a retried request, a handler's stack): the developer log alone. */
export function log_detail(area: string, message: string, error?: unknown, data?: Record<string, unknown>): void {
  write({ level: "warning", area, message, error, ...(data === undefined ? {} : { data }) }, false);
}

import type { TurnInput } from "../../src/providers/scripted/script.js";
/**
 * Shared pieces of the end-to-end tests: the built `air` binary as a child process, projects copied from
 * the shipped fixtures, a scripted model server in this process, and read-only views of a session DB.
 * Nothing is mocked: every test drives `node bin/air.js` against the real runtime, worker and libsql.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Connection } from "../../src/db/connection.js";
import { open_client, type SqliteClient } from "../../src/db/sqlite.js";
import { session_artifacts_dir, session_db_path, project_layout } from "../../src/project/layout.js";
import { AIR_BIN, REPO_ROOT } from "../fixtures/cli.js";
import { decode_json_columns, type Row } from "../fixtures/session.js";

export { AIR_BIN };

export const SHIPPED_FIXTURES = path.join(REPO_ROOT, "fixtures");

/** The CLI tests run the build (`npm test` builds first); say so plainly instead of failing obscurely. */
export function require_build(): void {
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "cli", "main.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before the e2e tests (npm test does it)");
  }
}

/** A fresh folder under the OS temp dir; `cleanup` removes it. */
export function temp_dir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The environment of an `air` child: this process's, minus every provider setting that could leak in from
 * the machine running the tests, with its own AIR_HOME, plus `extra`.
 */
export function air_env(air_home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^ANTHROPIC_/i.test(name) || name === "AIR_MODEL" || name === "AIR_HOME") continue;
    env[name] = value;
  }
  return { ...env, AIR_HOME: air_home, ...extra };
}

/** Copies `fixtures/<name>/project` to `<into>/project` and returns the new project root. */
export function copy_fixture_project(name: string, into: string): string {
  const root = path.join(into, "project");
  fs.cpSync(path.join(SHIPPED_FIXTURES, name, "project"), root, { recursive: true });
  return root;
}

export function fixture_requirement(name: string): string {
  const fixture = JSON.parse(fs.readFileSync(path.join(SHIPPED_FIXTURES, name, "fixture.json"), "utf8")) as { requirement: string };
  return fixture.requirement;
}

// ---------------------------------------------------------------------------------------------------
// The built CLI as a child process (async: the scripted server lives in this process's event loop)
// ---------------------------------------------------------------------------------------------------

export type AirExit = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

export class AirProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = "";
  stderr = "";
  readonly exit: Promise<AirExit>;

  /** `keep_stdin`: leave standard input open for the test to write to (prompt answers); closed otherwise. */
  constructor(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; keep_stdin?: boolean }) {
    this.child = spawn(process.execPath, [AIR_BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    if (options.keep_stdin !== true) this.child.stdin.end();
    this.child.stdout.setEncoding("utf8");
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => (this.stdout += chunk));
    this.child.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    this.exit = new Promise((resolve, reject) => {
      this.child.on("error", reject);
      this.child.on("close", (code, signal) => resolve({ code, signal }));
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`air did not start: ${this.stderr}`);
    return this.child.pid;
  }

  /** What a failing assertion should show. */
  get transcript(): string {
    return `--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`;
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

/** Runs `air <args>` to its end. */
export async function air(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<AirProcess & { result: AirExit }> {
  const run = new AirProcess(args, options);
  const result = await run.exit;
  return Object.assign(run, { result });
}

// ---------------------------------------------------------------------------------------------------
// Waiting and processes
// ---------------------------------------------------------------------------------------------------

// The tmux harness and scripts outside vitest use it too, without this module's vitest-bound imports.
export { wait_until } from "../fixtures/wait.js";

/** True while `pid` runs; a zombie (exited, not yet reaped by its new parent) counts as gone. */
export function pid_alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) S …": the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** The environment of a running process (Linux `/proc/<pid>/environ`), or undefined where there is no /proc. */
export function process_environment(pid: number): Record<string, string> | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const entry of raw.split("\0")) {
    const at = entry.indexOf("=");
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

/** Pids of the processes whose command line contains `marker` (Linux; empty elsewhere). */
export function pids_with_cmdline(marker: string): number[] {
  if (!fs.existsSync("/proc")) return [];
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

// ---------------------------------------------------------------------------------------------------
// The session database, read only
// ---------------------------------------------------------------------------------------------------

/** The ids of the sessions of a project, oldest first. */
export function session_ids(project_root: string): string[] {
  const dir = project_layout(project_root).sessions;
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(session_db_path(project_layout(project_root), name)))
    .sort();
}

export function only_session(project_root: string): string {
  const ids = session_ids(project_root);
  if (ids.length !== 1) throw new Error(`expected exactly one session in ${project_root}, found ${ids.length}`);
  return ids[0]!;
}

export function session_files(project_root: string, session_id: string): { db: string; artifacts: string } {
  const layout = project_layout(project_root);
  return { db: session_db_path(layout, session_id), artifacts: session_artifacts_dir(layout, session_id) };
}

/** A connection that cannot write (`query_only`), beside a live writer or after it. */
export function open_readonly(db_file: string): Connection {
  const connection = Connection.open(db_file, { must_exist: true });
  connection.client.exec("PRAGMA query_only=ON");
  return connection;
}

/**
 * Reads a session database that another process may be creating or writing right now: a connection of
 * plain libsql (no WAL switch, no drizzle) that cannot write. Undefined while the file or its tables are
 * not there yet, or the read fails for any other reason: the caller polls.
 */
export function peek<T>(db_file: string, read: (client: SqliteClient) => T): T | undefined {
  if (!fs.existsSync(db_file)) return undefined;
  let client: SqliteClient | undefined;
  try {
    client = open_client(db_file, { busy_timeout_ms: 1_000, pragmas: "PRAGMA query_only=ON;" });
    return read(client);
  } catch {
    return undefined;
  } finally {
    client?.close();
  }
}

/** Rows of a query on a plain client, without libsql's `_metadata`. */
export function rows(client: SqliteClient, sql: string, ...params: unknown[]): Row[] {
  return (client.prepare(sql).all(...params) as Row[]).map((row) => {
    const { _metadata: _ignored, ...columns } = row;
    return columns;
  });
}

/** Every row of a query, `*_json` columns decoded. */
export function query(connection: Connection, sql: string, ...params: unknown[]): Row[] {
  return (connection.client.prepare(sql).all(...params) as Row[]).map((row) => {
    const { _metadata: _ignored, ...columns } = row;
    return decode_json_columns(columns);
  });
}

export type EventRecord = { seq: number; id: string; type: string; task_id: string | null; agent_id: string | null; payload: Record<string, unknown> };

export function events_of(connection: Connection): EventRecord[] {
  return query(connection, "SELECT seq, id, type, task_id, agent_id, payload_json FROM events ORDER BY seq").map((row) => ({
    seq: Number(row.seq),
    id: String(row.id),
    type: String(row.type),
    task_id: (row.task_id as string | null) ?? null,
    agent_id: (row.agent_id as string | null) ?? null,
    payload: row.payload_json as Record<string, unknown>,
  }));
}

/**
 * Where each pattern of `chain` first matches, in order (a pattern ending in `.*` matches a family such as
 * `tool.*`); throws naming the first link that has no match after the previous one.
 */
export function chain_positions(types: readonly string[], chain: readonly string[]): number[] {
  const positions: number[] = [];
  let from = 0;
  for (const link of chain) {
    const matches = (type: string) => (link.endsWith(".*") ? type.startsWith(link.slice(0, -1)) : type === link);
    const at = types.findIndex((type, index) => index >= from && matches(type));
    if (at === -1) throw new Error(`event chain broken at "${link}" (after position ${from}); events: ${types.join(", ")}`);
    positions.push(at);
    from = at + 1;
  }
  return positions;
}

/** The Main Agent's turn that classifies the worker fixture's request as one task (its shipped script's first turn). */
export const CLASSIFY_GREETING: TurnInput = {
  expect: { last_user_contains: "greeting", tools: ["classify_request"] },
  reply: {
    content: [
      {
        type: "tool_use",
        name: "classify_request",
        input: {
          intent: "task",
          title: "Add the greeting file",
          description: 'Create greeting.txt at the project root containing exactly "hello from air".',
          acceptance_criteria: ["greeting.txt holds 'hello from air'"],
          verification_commands: ['grep -qx "hello from air" greeting.txt'],
        },
      },
    ],
  },
};

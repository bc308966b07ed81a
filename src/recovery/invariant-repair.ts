import fs from "node:fs";
import path from "node:path";
import { asc } from "drizzle-orm";
import { to_air_error } from "../contracts/errors.js";
import type { DurableEvent } from "../contracts/events/registry.js";
import { Connection } from "../db/connection.js";
import { event_from_row } from "../db/event-row.js";
import { migrate } from "../db/migrate.js";
import { events } from "../db/schema.js";
import { EventBus } from "../event-store/event-bus.js";
import { EventStore } from "../event-store/event-store.js";
import { referential_check, type OrphanReport } from "../event-store/referential-check.js";
import type { Session } from "../project/session-manager.js";

/**
 * The FK-off invariant scan of seeds 000 §18.3 with repair (§16.3 step 6). Every row of the projection comes
 * from the session's event log, so the log says what a dangling reference should reach: the log is replayed
 * into a scratch database (a projection rebuild, the event store's own write path), and the live rows are
 * brought back to what it says — and only that:
 * - the row a reference points at is missing from the live projection but the replay has it → that row is
 *   restored from the replay;
 * - the replay has the referencing row pointing elsewhere (or nowhere) → its column is restored from the replay.
 * Nothing is deleted and no event is rewritten. What the log cannot settle is reported with what to do: a
 * row in no event (written outside air), or a reference the log itself makes to something it never created.
 * A restored row may itself point at a missing row, so repair goes round until nothing more can be done.
 */
type Orphan = OrphanReport["orphans"][number];

type Repair = { readonly orphan: Orphan; readonly action: string };
type Unrepaired = { readonly orphan: Orphan; readonly reason: string; readonly user_action: string };
export type InvariantRepair = { readonly repaired: Repair[]; readonly unrepaired: Unrepaired[] };

/** The table each reference column of §18.3 points into. */
const TARGET_OF: Readonly<Record<string, string>> = {
  session_id: "sessions",
  task_id: "tasks",
  agent_id: "agents",
  tool_run_id: "tool_runs",
  command_run_id: "command_runs",
  artifact_id: "artifacts",
  message_id: "messages",
  diagnostic_id: "diagnostics",
};

/** Repair stops after this many rounds: each round restores at least one row, and chains are short. */
const MAX_ROUNDS = 16;

const REPORT_ACTION = "Run `air doctor --bundle` and report it: the session still opens, and its other rows are sound.";

type Values = Record<string, unknown>;

/** The session's log replayed, in order, through the event store into a new database at `file`. */
function replay(session: Session, file: string): Connection {
  const scratch = Connection.open(file);
  try {
    migrate(scratch, "session");
    const logged = session.connection.db.select().from(events).orderBy(asc(events.seq)).all();
    new EventStore(scratch, session.id, new EventBus()).append_parsed(logged.map((row) => event_from_row(row) as DurableEvent));
    return scratch;
  } catch (error) {
    scratch.close();
    throw error;
  }
}

function row_of(connection: Connection, table: string, id: string): Values | undefined {
  return connection.client.prepare(`SELECT * FROM "${table}" WHERE id = ?`).get(id) as Values | undefined;
}

/** The table's columns (a row object from libsql carries a `_metadata` key besides them). */
function columns_of(connection: Connection, table: string): string[] {
  return (connection.client.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((column) => column.name);
}

type Step = { readonly orphan: Orphan; readonly action: string; readonly apply: () => void } | Unrepaired;

function step_for(live: Connection, replayed: Connection, orphan: Orphan): Step {
  const target = TARGET_OF[orphan.column];
  if (target !== undefined && row_of(replayed, target, orphan.value) !== undefined) {
    return {
      orphan,
      action: `restored ${target} row ${orphan.value} from the event log`,
      apply: () => {
        if (row_of(live, target, orphan.value) !== undefined) return;
        const row = row_of(replayed, target, orphan.value) as Values;
        const columns = columns_of(replayed, target);
        live.client
          .prepare(`INSERT INTO "${target}" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
          .run(...columns.map((column) => row[column]));
      },
    };
  }
  const logged = row_of(replayed, orphan.table, orphan.id);
  if (logged === undefined) {
    return {
      orphan,
      reason: `${orphan.table} row ${orphan.id} is in none of the session's events (written outside air), so the log cannot say what its ${orphan.column} should be`,
      user_action:
        "If you wrote that row yourself, remove it (sqlite3 on the session's session.db); otherwise keep the session and report it with `air doctor --bundle`.",
    };
  }
  const value = logged[orphan.column];
  if (value === orphan.value) {
    return {
      orphan,
      reason: `the session's own events point ${orphan.table}.${orphan.column} at ${orphan.value}, which none of them creates`,
      user_action: REPORT_ACTION,
    };
  }
  return {
    orphan,
    action: `restored ${orphan.table}.${orphan.column} of ${orphan.id} to ${value === null ? "NULL" : String(value)} from the event log`,
    apply: () => live.client.prepare(`UPDATE "${orphan.table}" SET "${orphan.column}" = ? WHERE id = ?`).run(value, orphan.id),
  };
}

/** A scratch file for the replay, under the project's `.air/local/tmp/`, removed by `done`. */
function scratch_file(session: Session): { file: string; done: () => void } {
  fs.mkdirSync(session.project.layout.tmp, { recursive: true });
  const folder = fs.mkdtempSync(path.join(session.project.layout.tmp, "replay-"));
  return { file: path.join(folder, "session.db"), done: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/** One round: the check, then what the replay says of each orphan; applied unless `dry_run`. */
function round(session: Session, replayed: Connection, dry_run: boolean): { repaired: Repair[]; unrepaired: Unrepaired[] } {
  const steps = referential_check(session.connection).orphans.map((orphan) => step_for(session.connection, replayed, orphan));
  const repairs = steps.filter((step): step is Extract<Step, { apply: () => void }> => "apply" in step);
  const unrepaired = steps.filter((step): step is Unrepaired => "reason" in step);
  if (!dry_run && repairs.length > 0) {
    try {
      session.connection.write(() => {
        for (const repair of repairs) repair.apply();
      });
    } catch (error) {
      // One transaction: none of this round's rows were written.
      const reason = `restoring the rows the event log gives failed: ${to_air_error(error).message}`;
      return { repaired: [], unrepaired: [...unrepaired, ...repairs.map(({ orphan }) => ({ orphan, reason, user_action: REPORT_ACTION }))] };
    }
  }
  return { repaired: repairs.map(({ orphan, action }) => ({ orphan, action })), unrepaired };
}

/** Scans one open session and repairs what its log settles; `dry_run` plans one round and changes nothing. */
export function repair_invariants(session: Session, options: { readonly dry_run: boolean }): InvariantRepair {
  const found = referential_check(session.connection);
  if (found.ok) return { repaired: [], unrepaired: [] };
  const scratch = scratch_file(session);
  let replayed: Connection;
  try {
    replayed = replay(session, scratch.file);
  } catch (error) {
    scratch.done();
    const reason = `the session's event log could not be replayed to rebuild its rows: ${to_air_error(error).message}`;
    return { repaired: [], unrepaired: found.orphans.map((orphan) => ({ orphan, reason, user_action: REPORT_ACTION })) };
  }
  try {
    const repaired: Repair[] = [];
    for (let n = 0; n < MAX_ROUNDS; n += 1) {
      const result = round(session, replayed, options.dry_run);
      repaired.push(...result.repaired);
      if (options.dry_run || result.repaired.length === 0) return { repaired, unrepaired: result.unrepaired };
    }
    return { repaired, unrepaired: round(session, replayed, true).unrepaired };
  } finally {
    replayed.close();
    scratch.done();
  }
}

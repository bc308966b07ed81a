/**
 * Crash safety of the write path (DESIGN.md §3): a real writer process is SIGKILLed at 50 random moments
 * while it appends; after every kill the session file must hold every event the writer reported as
 * committed, each with its projection, and no transaction may be half there.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { Connection } from "../../src/db/connection.js";
import { assert_readable } from "../../src/db/migrate.js";
import { session_lock_path } from "../../src/project/layout.js";
import { init_project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { task_created_event } from "../fixtures/events.js";
import { Child, TempDirs } from "../fixtures/processes.js";
import { set_air_home } from "../fixtures/session.js";
import { seeded_random } from "../fixtures/prng.js";

const KILLS = 50;
/** The event types of crash-writer.ts's first round, in the order it appends them. */
const ROUND_ORDER = ["task.created", "task.started", "tool.started", "tool.completed"];
const dirs = new TempDirs();
const children: Child[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  dirs.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Check = { events: number };

/** Everything a reader may rely on after a crash, checked with a fresh connection as the next opener would. */
function check_session_file(db_path: string, reported: ReadonlySet<string>): Check {
  const connection = Connection.open(db_path, { must_exist: true });
  try {
    const column = (sql: string) => (connection.client.prepare(sql).raw().all() as [unknown][]).map((row) => row[0]);
    const count = (sql: string) => Number(column(sql)[0]);

    expect(column("PRAGMA quick_check")).toEqual(["ok"]);
    assert_readable(connection, "session");

    const stored = new Set(column("SELECT id FROM events"));
    const lost = [...reported].filter((id) => !stored.has(id));
    expect(lost, "events reported as committed but missing").toEqual([]);

    // Each event type against its projection, both directions: an event without its row or a row
    // without its event would be a transaction that was only partly written.
    const extract = (type: string, pointer: string) => `SELECT json_extract(payload_json, '${pointer}') FROM events WHERE type = '${type}'`;
    const mismatches = {
      "tasks without task.created": column(`SELECT id FROM tasks EXCEPT ${extract("task.created", "$.task.id")}`),
      "task.created without tasks row": column(`${extract("task.created", "$.task.id")} EXCEPT SELECT id FROM tasks`),
      "task_attempts without task.started": column(`SELECT id FROM task_attempts EXCEPT ${extract("task.started", "$.attempt_id")}`),
      "task.started without task_attempts row": column(`${extract("task.started", "$.attempt_id")} EXCEPT SELECT id FROM task_attempts`),
      "running tasks without their attempt": column(
        "SELECT id FROM tasks WHERE status = 'running' AND attempt_count = 1 EXCEPT SELECT task_id FROM task_attempts WHERE status = 'running'",
      ),
      "attempts of tasks not running": column("SELECT task_id FROM task_attempts EXCEPT SELECT id FROM tasks WHERE status = 'running' AND attempt_count = 1"),
      "pending tasks with a start": column(
        `SELECT id FROM tasks WHERE status = 'pending' AND (attempt_count <> 0 OR id IN (${extract("task.started", "$.task_id")}))`,
      ),
      "tool_runs without tool.started": column("SELECT id FROM tool_runs EXCEPT SELECT tool_run_id FROM events WHERE type = 'tool.started'"),
      "tool.started without tool_runs row": column("SELECT tool_run_id FROM events WHERE type = 'tool.started' EXCEPT SELECT id FROM tool_runs"),
      "ok tool_runs without tool.completed": column(
        "SELECT id FROM tool_runs WHERE status = 'ok' EXCEPT SELECT tool_run_id FROM events WHERE type = 'tool.completed'",
      ),
      "tool.completed without an ok tool_runs row": column(
        "SELECT tool_run_id FROM events WHERE type = 'tool.completed' EXCEPT SELECT id FROM tool_runs WHERE status = 'ok'",
      ),
      "tool_runs neither running nor ok": column("SELECT id FROM tool_runs WHERE status NOT IN ('running', 'ok')"),
      "append_many batches not of 5 events": column(
        "SELECT route_text FROM events WHERE route_text LIKE 'runtime/crash/batch-%' GROUP BY route_text HAVING count(*) <> 5",
      ),
    };
    expect(mismatches).toEqual(Object.fromEntries(Object.keys(mismatches).map((key) => [key, []])));

    const events = count("SELECT count(*) FROM events");
    const projected =
      count("SELECT count(*) FROM sessions") +
      count("SELECT count(*) FROM tasks") +
      count("SELECT count(*) FROM task_attempts") +
      count("SELECT count(*) FROM tool_runs") +
      count("SELECT count(*) FROM tool_runs WHERE status = 'ok'");
    expect(events, "events = sum of the rows and updates they project").toBe(projected);
    expect(count("SELECT count(*) FROM events WHERE type = 'session.created'")).toBe(1);
    // A writer killed early may not have reached every type of its first round; what is there is
    // always a prefix of the round's order, so a later type never appears without the earlier ones.
    const types = column("SELECT DISTINCT type FROM events ORDER BY type");
    const reached = ROUND_ORDER.filter((type) => types.includes(type)).length;
    expect(types).toEqual(["session.created", ...ROUND_ORDER.slice(0, reached)].sort());

    expect(referential_check(connection)).toEqual({ ok: true, orphans: [] });
    return { events };
  } finally {
    connection.close();
  }
}

describe("session database under SIGKILL", () => {
  it(`keeps every committed event with its projection, and no partial transaction, across ${KILLS} kills of a live writer`, async () => {
    const started = performance.now();
    const root = dirs.make("air-crash-");
    const air_home = path.join(root, "home");
    onTestFinished(set_air_home(air_home));
    const { project } = init_project(root);
    const created = open_session(project, { title: "crash test" });
    const session_id = created.id;
    const db_path = created.db_path;
    created.close();
    const lock_file = session_lock_path(project.layout, session_id);

    const seed = Date.now() % 2 ** 31;
    const random = seeded_random(seed);
    const reported = new Set<string>();
    const per_child: number[] = [];
    let checked: Check = { events: 1 };

    for (let kill = 0; kill < KILLS; kill++) {
      const context = `kill ${kill + 1}/${KILLS}, seed ${seed}`;
      const child = new Child("crash-writer.ts", [root, session_id], { AIR_HOME: air_home });
      children.push(child);
      await child.line((line) => line === "ready");
      // Its first commit first: a kill before it would test nothing, and under load that could be most kills.
      await child.line((line) => line.startsWith("c "));
      await sleep(5 + random() * 145);
      child.kill("SIGKILL");
      const exit = await child.exit;
      expect(exit, `${context}: the writer must die by our SIGKILL, not on its own\n${child.stderr}`).toEqual({ code: null, signal: "SIGKILL" });
      expect(child.stderr, context).toBe("");

      const commits = child.lines.filter((line) => line.startsWith("c "));
      for (const line of commits) for (const id of line.slice(2).split(" ")) reported.add(id);
      per_child.push(commits.length);

      // The killed writer left its lock behind; the next writer must take it over as stale.
      expect(JSON.parse(fs.readFileSync(lock_file, "utf8")), context).toMatchObject({ pid: child.pid });

      checked = check_session_file(db_path, reported);
      expect(checked.events, context).toBeGreaterThanOrEqual(reported.size + 1);
    }

    // Every writer resumed the session after its predecessor's crash and got its events accepted.
    expect(per_child.filter((commits) => commits > 0)).toHaveLength(KILLS);

    // The session is still writable by a normal opener after the last crash.
    const resumed = open_session(project, { session_id });
    try {
      const task_id = new_id("task");
      const after = checked.events;
      resumed.ingestor.ingest(task_created_event(resumed.origin, { id: task_id, title: "after the crashes" }));
      resumed.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt") }, resumed.origin));
      expect(resumed.store.query({ task_id }).map((stored) => stored.event.type)).toEqual(["task.created", "task.started"]);
      expect(resumed.store.query({ types: ["task.created"] }).length).toBeGreaterThan(1);
      expect(referential_check(resumed.connection).ok).toBe(true);
      expect(resumed.connection.client.prepare("SELECT count(*) FROM events").raw().get()).toEqual([after + 2]);
    } finally {
      resumed.close();
    }
    expect(fs.existsSync(lock_file)).toBe(false);
    check_session_file(db_path, reported);

    const seconds = (performance.now() - started) / 1000;
    console.log(
      `crash-safety: ${KILLS} kills in ${seconds.toFixed(1)} s (seed ${seed}); ${reported.size} events reported committed, ` +
        `${checked.events} stored; commits per writer min ${Math.min(...per_child)} max ${Math.max(...per_child)}`,
    );
  }, 300_000);
});

/**
 * Sessions (DESIGN.md §3, §9): open_session's files and first event, the single-writer lock across
 * threads of control and processes, stale locks, and the artifact store's files and rows.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { Connection } from "../../src/db/connection.js";
import { schema_version_of, target_schema_version } from "../../src/db/migrate.js";
import { session_artifacts_dir, session_dir, session_lock_path } from "../../src/project/layout.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { task_created_event } from "../fixtures/events.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { Child, dead_pid, kill_and_close, TempDirs } from "../fixtures/processes.js";
import { set_air_home } from "../fixtures/session.js";

const dirs = new TempDirs();
const sessions: Session[] = [];
const children: Child[] = [];
let restore_air_home: () => void;
let air_home: string;
let root: string;
let project: Project;

beforeEach(() => {
  root = dirs.make("air-session-");
  air_home = path.join(root, "air-home");
  restore_air_home = set_air_home(air_home);
  project = init_project(root).project;
});
afterEach(() => {
  kill_and_close(children, sessions);
  restore_air_home();
});
afterAll(() => dirs.cleanup());

function open(options: Parameters<typeof open_session>[1] = {}): Session {
  const session = open_session(project, options);
  sessions.push(session);
  return session;
}

/** Opens and closes a session, so later opens resume it. */
function existing_session(): SessionId {
  const session = open_session(project, { title: "existing" });
  session.close();
  return session.id;
}

function holder(fixture_args: string[]): Child {
  const child = new Child("lock-holder.ts", [root, ...fixture_args], { AIR_HOME: air_home });
  children.push(child);
  return child;
}

function lock_of(id: string): { pid: number; hostname: string } {
  return JSON.parse(fs.readFileSync(session_lock_path(project.layout, id), "utf8")) as { pid: number; hostname: string };
}

function write_lock(id: string, content: string): void {
  fs.writeFileSync(session_lock_path(project.layout, id), content);
}

describe("open_session", () => {
  it("creates session.db and artifacts/, migrates it and ingests session.created", () => {
    const session = open({ title: "first session", model_provider_id: "anthropic", model_id: "claude" });
    expect(session.id).toMatch(/^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
    const dir = session_dir(project.layout, session.id);
    expect(session.db_path).toBe(path.join(dir, "session.db"));
    expect(fs.statSync(session.db_path).isFile()).toBe(true);
    expect(fs.statSync(session_artifacts_dir(project.layout, session.id)).isDirectory()).toBe(true);
    expect(schema_version_of(session.connection)).toBe(target_schema_version("session"));

    const stored = session.store.query();
    expect(stored.map((row) => row.event.type)).toEqual(["session.created"]);
    expect(stored[0]!.event).toMatchObject({
      session_id: session.id,
      project_id: project.file.project_id,
      payload: { title: "first session", model_provider_id: "anthropic", model_id: "claude" },
    });
    expect(session.connection.client.prepare("SELECT id, status FROM sessions").all()).toEqual([{ id: session.id, status: "active" }]);
    expect(lock_of(session.id)).toMatchObject({ pid: process.pid, hostname: os.hostname() });
  });

  it("resumes an existing session: same database, no second session.created, new events accepted", () => {
    const id = existing_session();
    const session = open({ session_id: id, title: "ignored on resume" });
    session.ingestor.ingest(task_created_event(session.origin));
    expect(session.store.query().map((row) => row.event.type)).toEqual(["session.created", "task.created"]);
    expect(referential_check(session.connection).ok).toBe(true);
  });

  it("carries the provider and model it was created with, and a resumed session those of its row", () => {
    const created = open_session(project, { title: "with a model", model_provider_id: "anthropic", model_id: "claude-sonnet-4-5" });
    expect(created).toMatchObject({ model_provider_id: "anthropic", model_id: "claude-sonnet-4-5" });
    created.close();
    const resumed = open({ session_id: created.id, model_provider_id: "openai", model_id: "gpt-5" });
    expect(resumed).toMatchObject({ model_provider_id: "anthropic", model_id: "claude-sonnet-4-5" });
    expect(open({ title: "no model named" })).toMatchObject({ model_provider_id: undefined, model_id: undefined });
  });

  it("refuses to resume a session that does not exist, creating nothing", () => {
    const id = new_id("session") as SessionId;
    const failure = expect_air_failure(() => open({ session_id: id }));
    expect(failure.error.user_action).toBeTruthy();
    expect(fs.existsSync(session_dir(project.layout, id))).toBe(false);
    expect(fs.readdirSync(project.layout.locks)).toEqual([]);
  });

  it("reports a session.db that is not SQLite as a project_error, leaves it as it was and releases the lock", () => {
    const id = existing_session();
    const db_path = path.join(session_dir(project.layout, id), "session.db");
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${db_path}${suffix}`, { force: true });
    const garbage = crypto.randomBytes(4096);
    fs.writeFileSync(db_path, garbage);
    const failure = expect_air_failure(() => open({ session_id: id }));
    expect(failure.error).toMatchObject({ kind: "project_error" });
    expect(failure.error.user_action).toBeTruthy();
    expect(fs.readFileSync(db_path).equals(garbage)).toBe(true);
    const left = fs.readdirSync(session_dir(project.layout, id));
    expect(left.filter((name) => name.startsWith("session.db"))).toEqual(["session.db"]);
    expect(fs.existsSync(session_lock_path(project.layout, id))).toBe(false);
  });
});

describe("the session lock", () => {
  it("refuses a second writer in the same process, naming this process's pid", () => {
    const first = open();
    const failure = expect_air_failure(() => open({ session_id: first.id }));
    expect(failure.error).toMatchObject({ kind: "user_error", retryability: "retryable", metadata: { pid: process.pid } });
    expect(failure.message).toContain(`pid ${process.pid}`);
    expect(failure.error.user_action).toContain(String(process.pid));
    // The refusal did not disturb the holder.
    expect(lock_of(first.id).pid).toBe(process.pid);
    first.ingestor.ingest(task_created_event(first.origin));
    expect(first.store.query({ types: ["task.created"] })).toHaveLength(1);
  });

  it("refuses a writer while another process holds the session, naming the holder's pid", async () => {
    const id = existing_session();
    const other = holder([id]);
    await other.line((line) => line.startsWith("locked "));
    const failure = expect_air_failure(() => open({ session_id: id }));
    expect(failure.error).toMatchObject({ kind: "user_error", metadata: { pid: other.pid, hostname: os.hostname() } });
    expect(failure.message).toContain(`pid ${other.pid}`);
    expect(lock_of(id).pid).toBe(other.pid);

    other.send("close");
    await other.line((line) => line === "closed");
    expect(await other.exit).toEqual({ code: 0, signal: null });
    const session = open({ session_id: id });
    expect(lock_of(id).pid).toBe(process.pid);
    session.ingestor.ingest(task_created_event(session.origin));
  });

  it("is refused to another process while this process holds it, naming this pid", async () => {
    const session = open();
    const other = holder([session.id]);
    const refusal = await other.line((line) => line.startsWith("refused ") || line.startsWith("locked "));
    expect(refusal).toMatch(new RegExp(`^refused user_error: .*pid ${process.pid}\\b`));
    expect(await other.exit).toEqual({ code: 1, signal: null });
    expect(lock_of(session.id).pid).toBe(process.pid);
  });

  it("takes over a stale lock whose pid is a dead process", async () => {
    const id = existing_session();
    write_lock(id, JSON.stringify({ pid: await dead_pid(), hostname: os.hostname(), acquired_at: "2026-01-01T00:00:00.000Z" }));
    const session = open({ session_id: id });
    expect(lock_of(id).pid).toBe(process.pid);
    session.ingestor.ingest(task_created_event(session.origin));
  });

  it("takes over the lock of a writer process that was killed, keeping what it wrote", async () => {
    const other = holder(["new"]);
    const locked = await other.line((line) => line.startsWith("locked "));
    const id = locked.split(" ")[1] as SessionId;
    other.kill("SIGKILL");
    expect(await other.exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(lock_of(id).pid).toBe(other.pid);

    const session = open({ session_id: id });
    expect(lock_of(id).pid).toBe(process.pid);
    expect(session.store.query().map((row) => row.event.payload)).toEqual([{ title: "lock holder" }]);
  });

  it("takes over a torn lock file (empty or not JSON)", () => {
    for (const content of ["", '{"pid": 12']) {
      const id = existing_session();
      write_lock(id, content);
      const session = open({ session_id: id });
      expect(lock_of(id).pid).toBe(process.pid);
      session.close();
    }
  });

  it("does not take over a lock held on another host (its pid cannot be checked from here)", async () => {
    const id = existing_session();
    const pid = await dead_pid();
    write_lock(id, JSON.stringify({ pid, hostname: `not-${os.hostname()}`, acquired_at: "2026-01-01T00:00:00.000Z" }));
    const failure = expect_air_failure(() => open({ session_id: id }));
    expect(failure.error).toMatchObject({ kind: "user_error", metadata: { pid, hostname: `not-${os.hostname()}` } });
    expect(lock_of(id).hostname).toBe(`not-${os.hostname()}`);
  });

  it("lets exactly one of three processes take over a stale lock at the same instant (10 trials)", async () => {
    const id = existing_session();
    const outcomes: string[] = [];
    for (let trial = 0; trial < 10; trial++) {
      write_lock(id, JSON.stringify({ pid: await dead_pid(), hostname: os.hostname(), acquired_at: "2026-01-01T00:00:00.000Z" }));
      const racers = [holder([id, "--barrier"]), holder([id, "--barrier"]), holder([id, "--barrier"])];
      await Promise.all(racers.map((racer) => racer.line((line) => line === "ready")));
      for (const racer of racers) racer.send("go");
      const results = await Promise.all(racers.map((racer) => racer.line((line) => /^(locked|refused) /.test(line))));
      const winners = racers.filter((_, i) => results[i]!.startsWith("locked "));
      outcomes.push(`${winners.length} winner(s)`);
      if (winners.length === 1) {
        expect(lock_of(id).pid).toBe(winners[0]!.pid);
        for (const [i, result] of results.entries()) {
          if (!result.startsWith("locked ")) expect(result, `trial ${trial}, racer ${i}`).toContain(`pid ${winners[0]!.pid}`);
        }
      }
      for (const racer of racers) racer.send("close");
      await Promise.all(racers.map((racer) => racer.exit));
      expect(fs.existsSync(session_lock_path(project.layout, id))).toBe(false);
    }
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => "1 winner(s)"));
    expect(fs.readdirSync(project.layout.locks)).toEqual([]);
    // Thirty holder processes, each a tsx start: 27 s alone on this machine, twice that beside a second test worker.
  }, 120_000);

  it("is released by close: the lock file is gone and another process can open the session", async () => {
    const session = open();
    const lock_file = session_lock_path(project.layout, session.id);
    expect(fs.existsSync(lock_file)).toBe(true);
    session.close();
    expect(fs.existsSync(lock_file)).toBe(false);

    const other = holder([session.id]);
    expect(await other.line((line) => line.startsWith("locked ") || line.startsWith("refused "))).toBe(`locked ${session.id} ${other.pid}`);
    other.send("close");
    expect(await other.exit).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(lock_file)).toBe(false);

    const again = open({ session_id: session.id });
    expect(lock_of(again.id).pid).toBe(process.pid);
  });
});

describe("ArtifactStore (session.artifacts)", () => {
  function artifact_row(session: Session, id: string) {
    return session.connection.client.prepare("SELECT * FROM artifacts WHERE id = ?").get(id) as Record<string, unknown> | undefined;
  }

  function files_under(dir: string): string[] {
    return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((name) => fs.statSync(path.join(dir, name)).isFile()).sort();
  }

  it("writes a diff artifact: file content and sha256 match, no temp files, a matching artifacts row and event", () => {
    const session = open();
    const content = "--- a/src/main.cpp\n+++ b/src/main.cpp\n@@ -1 +1 @@\n-int main() { return 1; }\n+int main() { return 0; }\n";
    const artifact = session.artifacts.create({ type: "diff", content });

    const sha256 = crypto.createHash("sha256").update(content).digest("hex");
    expect(artifact).toMatchObject({ type: "diff", sha256, size_bytes: Buffer.byteLength(content) });
    expect(artifact.id).toMatch(/^art_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(artifact.uri).toBe(`artifact://project/${project.file.project_id}/session/${session.id}/${artifact.id}`);

    const row = artifact_row(session, artifact.id);
    expect(row).toMatchObject({
      id: artifact.id,
      session_id: session.id,
      type: "diff",
      uri: artifact.uri,
      sha256,
      size_bytes: Buffer.byteLength(content),
      created_at: artifact.created_at,
    });
    const artifacts_dir = session_artifacts_dir(project.layout, session.id);
    const file = path.join(artifacts_dir, String(row!.path));
    expect(path.relative(artifacts_dir, file).startsWith("..")).toBe(false);
    expect(session.artifacts.path_of(String(row!.path))).toBe(file);
    expect(fs.readFileSync(file, "utf8")).toBe(content);
    expect(crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")).toBe(sha256);
    expect(files_under(artifacts_dir)).toEqual([String(row!.path)]);
    expect(String(row!.path)).toMatch(/^diffs\//);

    const [created] = session.store.query({ types: ["artifact.created"] });
    expect(created!.event.payload).toMatchObject({ artifact, path: row!.path });
  });

  it("writes binary content byte for byte and records its links", () => {
    const session = open();
    const task = task_created_event(session.origin);
    session.ingestor.ingest(task);
    const bytes = crypto.randomBytes(10_000);
    const task_id = (task.payload as { task: { id: string } }).task.id;
    const artifact = session.artifacts.create({ type: "core_dump", content: bytes, original_name: "core.1234", task_id });
    const row = artifact_row(session, artifact.id)!;
    expect(row).toMatchObject({ sha256: crypto.createHash("sha256").update(bytes).digest("hex"), size_bytes: 10_000, task_id, original_name: "core.1234" });
    expect(fs.readFileSync(session.artifacts.path_of(String(row.path))).equals(bytes)).toBe(true);
    expect(referential_check(session.connection).ok).toBe(true);
  });

  it("keeps a model request once: the same messages content again is the artifact already written", () => {
    const session = open();
    const request = JSON.stringify({ purpose: "answer", messages: [{ role: "user", content: "hello" }] });
    const first = session.artifacts.create({ type: "messages", content: request, mime_type: "application/json", extension: ".json" });
    const again = session.artifacts.create({
      type: "messages",
      content: request,
      mime_type: "application/json",
      extension: ".json",
      original_name: "model-request",
    });
    const other = session.artifacts.create({ type: "messages", content: request.replace("hello", "bye"), mime_type: "application/json", extension: ".json" });
    expect(again).toEqual(first);
    expect(other.id).not.toBe(first.id);
    const rows = session.connection.client.prepare("SELECT id FROM artifacts WHERE type = 'messages' ORDER BY rowid").all() as { id: string }[];
    expect(rows.map((row) => row.id)).toEqual([first.id, other.id]);
    expect(fs.readdirSync(path.join(session_artifacts_dir(project.layout, session.id), "messages"))).toHaveLength(2);
  });

  it("gives every artifact its own file, uri and row", () => {
    const session = open();
    const refs = ["one", "two", "one"].map((content) => session.artifacts.create({ type: "command_log", content }));
    expect(new Set(refs.map((ref) => ref.uri)).size).toBe(3);
    expect(refs[0]!.sha256).toBe(refs[2]!.sha256);
    const rows = session.connection.client.prepare("SELECT path FROM artifacts").raw().all() as [string][];
    expect(new Set(rows.map((row) => row[0])).size).toBe(3);
    expect(files_under(session_artifacts_dir(project.layout, session.id))).toHaveLength(3);
  });
});

describe("Connection on a session written through open_session", () => {
  it("reads the same events after the session is closed", () => {
    const session = open();
    session.ingestor.ingest(task_created_event(session.origin));
    const expected = session.store.query().map((row) => row.event.id);
    session.close();
    const reader = Connection.open(session.db_path, { must_exist: true });
    try {
      const ids = (reader.client.prepare("SELECT id FROM events ORDER BY seq").raw().all() as [string][]).map((row) => row[0]);
      expect(ids).toEqual(expected);
    } finally {
      reader.close();
    }
  });
});

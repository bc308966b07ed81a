/**
 * `air session archive|delete|purge ID` and `air session list --archived|--all` (issue 17, seeds 001 D-054):
 * archive keeps a session whole and out of the default listing; delete removes its artifacts and keeps its
 * log; purge removes everything of it. Real projects, real libsql files, a real process holding a session.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_session_list } from "../../src/cli/commands/session-list.js";
import { run_session_archive, run_session_delete, run_session_purge } from "../../src/cli/commands/session-manage.js";
import type { Io } from "../../src/cli/output.js";
import { type AirError, is_air_failure } from "../../src/contracts/errors.js";
import type { SessionId } from "../../src/contracts/ids.js";
import { session_artifacts_dir, session_dir, session_lock_path } from "../../src/project/layout.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { read_history, read_summary } from "../../src/project/session-catalog.js";
import { open_session } from "../../src/project/session-manager.js";
import { Child, kill_and_close, TempDirs } from "../fixtures/processes.js";
import { set_air_home } from "../fixtures/session.js";

const dirs = new TempDirs();
const children: Child[] = [];
let restore_home: () => void;
let root: string;
let project: Project;

beforeEach(() => {
  root = dirs.make("air-session-manage-");
  restore_home = set_air_home(path.join(root, "air-home"));
  project = init_project(path.join(root, "project"), { name: "fixture" }).project;
});
afterEach(() => {
  kill_and_close(children, []);
  restore_home();
});
afterAll(() => dirs.cleanup());

type Ran = { code: number; out: string; err: string };

async function ran(command: (io: Io) => Promise<number>): Promise<Ran> {
  let out = "";
  let err = "";
  const code = await command({ out: (text) => (out += text), err: (text) => (err += text), cwd: project.layout.root });
  return { code, out, err };
}

/** The AirError `work` rejects with; fails the test if it resolves or rejects with anything else. */
async function refusal(work: () => Promise<unknown>): Promise<AirError> {
  const error = await work().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(is_air_failure(error), `expected an AirFailure, got ${String(error)}`).toBe(true);
  return (error as { error: AirError }).error;
}

/** A closed session holding one artifact file; returns its id and that file's path. */
function session_with_artifact(title: string): { id: SessionId; artifact: string } {
  const session = open_session(project, { title });
  const ref = session.artifacts.create({ type: "build_log", content: `build output of ${title}\n` });
  session.close();
  const artifacts = session_artifacts_dir(project.layout, session.id);
  const file = (fs.readdirSync(artifacts, { recursive: true }) as string[]).find((name) => name.includes(ref.id));
  if (file === undefined) throw new Error(`no file of ${ref.id} under ${artifacts}`);
  return { id: session.id, artifact: path.join(artifacts, file) };
}

const listed = async (flags: { archived?: boolean; all?: boolean } = {}) =>
  (JSON.parse((await ran((io) => run_session_list(io, { json: true, ...flags }))).out) as { sessions: { id: string; status: string }[] }).sessions;

const event_types = async (id: SessionId) => (await read_history(project.layout, id)).map((event) => event.type);

/** Another air process holding `id` open for writing, until the test ends. */
async function held_elsewhere(id: SessionId): Promise<Child> {
  const holder = new Child("lock-holder.ts", [project.layout.root, id], { AIR_HOME: path.join(root, "air-home") });
  children.push(holder);
  await holder.line((line) => line.startsWith("locked "));
  return holder;
}

describe("air session archive", () => {
  it("keeps the session's artifacts and takes it out of the default listing; --archived and --all show it", async () => {
    const kept = session_with_artifact("still going");
    const put_away = session_with_artifact("done with this");

    const archived = await ran((io) => run_session_archive(io, { id: put_away.id, reason: "merged upstream" }));
    expect(archived).toMatchObject({ code: 0, err: "" });
    expect(archived.out).toContain(`Archived ${put_away.id}`);

    expect(fs.readFileSync(put_away.artifact, "utf8")).toBe("build output of done with this\n");
    expect((await listed()).map((s) => s.id)).toEqual([kept.id]);
    expect(await listed({ archived: true })).toEqual([expect.objectContaining({ id: put_away.id, status: "archived" })]);
    expect((await listed({ all: true })).map((s) => [s.id, s.status])).toEqual([
      [put_away.id, "archived"],
      [kept.id, "active"],
    ]);
    const history = await read_history(project.layout, put_away.id);
    expect(history.at(-1)).toMatchObject({ type: "session.archived", payload: { reason: "merged upstream" } });
  });

  it("shows an archived session in the table with its status, and says when only archived ones exist", async () => {
    const { id } = session_with_artifact("put away");
    await ran((io) => run_session_archive(io, { id }));
    const table = await ran((io) => run_session_list(io, { json: false, archived: true }));
    expect(table.out).toMatch(new RegExp(`${id}\\s+\\S+\\s+archived\\b.*put away`));
    expect((await ran((io) => run_session_list(io, { json: false }))).out).toBe("No active sessions: `--archived` or `--all` lists the others.\n");
  });

  it("refuses a session archived already", async () => {
    const { id } = session_with_artifact("twice");
    await ran((io) => run_session_archive(io, { id }));
    const error = await refusal(() => run_session_archive({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id }));
    expect(error).toMatchObject({ kind: "user_error", message: `session ${id} is already archived` });
  });

  it("refuses a deleted session, which is never reopened", async () => {
    const { id } = session_with_artifact("deleted first");
    await ran((io) => run_session_delete(io, { id, yes: true }));
    const error = await refusal(() => run_session_archive({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id }));
    expect(error.kind).toBe("user_error");
    expect(error.message).toMatch(new RegExp(`^cannot archive session ${id}: session ${id} was deleted at `));
  });
});

describe("air session delete", () => {
  it("records session.deleted, removes the artifacts, keeps the log, and hides the session unless --all", async () => {
    const { id, artifact } = session_with_artifact("throwaway");
    const deleted = await ran((io) => run_session_delete(io, { id, yes: true, reason: "not needed" }));
    expect(deleted).toMatchObject({ code: 0, err: "" });

    expect(fs.existsSync(artifact)).toBe(false);
    expect(fs.existsSync(session_artifacts_dir(project.layout, id))).toBe(false);
    expect(await event_types(id)).toEqual(["session.created", "artifact.created", "session.deleted"]);
    expect((await read_summary(project.layout, id))?.status).toBe("deleted");
    expect(await listed()).toEqual([]);
    expect(await listed({ archived: true })).toEqual([]);
    expect(await listed({ all: true })).toEqual([expect.objectContaining({ id, status: "deleted" })]);
  });

  it("deletes an archived session too", async () => {
    const { id, artifact } = session_with_artifact("archived first");
    await ran((io) => run_session_archive(io, { id }));
    expect((await ran((io) => run_session_delete(io, { id, yes: true }))).code).toBe(0);
    expect(fs.existsSync(artifact)).toBe(false);
    expect((await read_summary(project.layout, id))?.status).toBe("deleted");
  });

  it("refuses without --yes where there is no terminal to ask, and changes nothing", async () => {
    const { id, artifact } = session_with_artifact("keep me");
    const error = await refusal(() => run_session_delete({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id, yes: false }));
    expect(error).toMatchObject({ kind: "user_error", user_action: expect.stringContaining(`air session delete ${id} --yes`) });
    expect(fs.existsSync(artifact)).toBe(true);
    expect((await read_summary(project.layout, id))?.status).toBe("active");
  });

  it("refuses a session deleted already, pointing at purge", async () => {
    const { id } = session_with_artifact("gone");
    await ran((io) => run_session_delete(io, { id, yes: true }));
    const error = await refusal(() => run_session_delete({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id, yes: true }));
    expect(error).toMatchObject({
      kind: "user_error",
      message: `session ${id} is already deleted`,
      user_action: expect.stringContaining(`air session purge ${id}`),
    });
  });
});

describe("air session purge", () => {
  it("removes the session's artifacts and its whole folder, and lists it nowhere", async () => {
    const kept = session_with_artifact("kept");
    const { id, artifact } = session_with_artifact("purge me");
    const purged = await ran((io) => run_session_purge(io, { id, yes: true }));
    expect(purged).toMatchObject({ code: 0, err: "" });
    expect(purged.out).toContain(`Purged ${id}`);

    expect(fs.existsSync(artifact)).toBe(false);
    expect(fs.existsSync(session_dir(project.layout, id))).toBe(false);
    expect(fs.existsSync(session_lock_path(project.layout, id))).toBe(false);
    expect((await listed({ all: true })).map((s) => s.id)).toEqual([kept.id]);
    expect(fs.readFileSync(kept.artifact, "utf8")).toBe("build output of kept\n");
  });

  it("purges an archived session and a deleted one alike", async () => {
    const archived = session_with_artifact("archived");
    const deleted = session_with_artifact("deleted");
    await ran((io) => run_session_archive(io, { id: archived.id }));
    await ran((io) => run_session_delete(io, { id: deleted.id, yes: true }));
    for (const { id } of [archived, deleted]) {
      expect((await ran((io) => run_session_purge(io, { id, yes: true }))).code).toBe(0);
      expect(fs.existsSync(session_dir(project.layout, id))).toBe(false);
    }
  });

  it("refuses a session purged already, saying when it was purged", async () => {
    const { id } = session_with_artifact("once");
    await ran((io) => run_session_purge(io, { id, yes: true }));
    const error = await refusal(() => run_session_purge({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id, yes: true }));
    expect(error.kind).toBe("user_error");
    expect(error.message).toMatch(new RegExp(`^session ${id} was purged at \\d{4}-\\d\\d-\\d\\dT`));
  });

  it("refuses without --yes where there is no terminal to ask, and removes nothing", async () => {
    const { id, artifact } = session_with_artifact("not without asking");
    const error = await refusal(() => run_session_purge({ out: () => undefined, err: () => undefined, cwd: project.layout.root }, { id, yes: false }));
    expect(error.user_action).toContain(`air session purge ${id} --yes`);
    expect(fs.existsSync(artifact)).toBe(true);
  });
});

describe("a session another air process holds", () => {
  it.each(["archive", "delete", "purge"] as const)("is refused by %s, naming the holder, and left untouched", async (command) => {
    const { id, artifact } = session_with_artifact(`held during ${command}`);
    const holder = await held_elsewhere(id);
    const io: Io = { out: () => undefined, err: () => undefined, cwd: project.layout.root };
    const run = {
      archive: () => run_session_archive(io, { id }),
      delete: () => run_session_delete(io, { id, yes: true }),
      purge: () => run_session_purge(io, { id, yes: true }),
    }[command];
    const error = await refusal(run);
    expect(error).toMatchObject({ kind: "user_error", metadata: { pid: holder.pid, hostname: os.hostname() } });
    expect(error.message).toContain(`cannot ${command} session ${id}`);
    expect(error.message).toContain(`pid ${holder.pid}`);

    holder.send("close");
    await holder.line((line) => line === "closed");
    expect(fs.readFileSync(artifact, "utf8")).toBe(`build output of held during ${command}\n`);
    expect((await read_summary(project.layout, id))?.status).toBe("active");
    expect(fs.existsSync(path.join(project.layout.air, "local", "purged-sessions.jsonl"))).toBe(false);
  });
});

describe("bad ids", () => {
  const io = (): Io => ({ out: () => undefined, err: () => undefined, cwd: project.layout.root });

  it.each(["archive", "delete", "purge"] as const)("%s refuses a missing id, a malformed one and an unknown one", async (command) => {
    const run = (id: string | undefined) =>
      ({
        archive: () => run_session_archive(io(), { id }),
        delete: () => run_session_delete(io(), { id, yes: true }),
        purge: () => run_session_purge(io(), { id, yes: true }),
      })[command]();
    expect(await refusal(() => run(undefined))).toMatchObject({ kind: "user_error", message: `air session ${command} needs the session's id` });
    const outside = path.join(root, "outside");
    fs.mkdirSync(outside);
    expect(await refusal(() => run("../../../outside"))).toMatchObject({ kind: "user_error", message: expect.stringContaining("is not a session id") });
    expect(fs.existsSync(outside)).toBe(true);
    const unknown = "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV";
    expect(await refusal(() => run(unknown))).toMatchObject({ kind: "user_error", message: `no session ${unknown} in this project` });
  });

  it("air session list refuses --archived with --all", async () => {
    expect(await refusal(() => run_session_list(io(), { json: false, archived: true, all: true }))).toMatchObject({
      kind: "user_error",
      message: "--archived and --all cannot be used together",
    });
  });
});

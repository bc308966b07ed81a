/**
 * Ending a session (project/session-ending.ts): what the rest of air makes of an archived or deleted session
 * (the latest-session choice, reopening it), the workspaces a delete retires, and a delete or purge that a
 * crash cut short, finished by running it again.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { make_event } from "../../src/contracts/events/registry.js";
import type { SessionId } from "../../src/contracts/ids.js";
import { session_artifacts_dir, session_db_path, session_dir } from "../../src/project/layout.js";
import { purge_record, record_purge } from "../../src/project/purged-sessions.js";
import { chosen_session, read_history, read_summary } from "../../src/project/session-catalog.js";
import { archive_session, delete_session, purge_session } from "../../src/project/session-ending.js";
import { open_session } from "../../src/project/session-manager.js";
import { SnapshotStore } from "../../src/project/snapshot-store.js";
import { sweep_project_workspaces } from "../../src/workspaces/sweep.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { branches, commit_files, init_repo } from "../fixtures/git-repo.js";
import { temp_project, type TempProject } from "../fixtures/session.js";
import { ended_session_with_worktree } from "../fixtures/worktree-session.js";

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
});
afterEach(() => temp.cleanup());

function closed_session(title: string): SessionId {
  const session = open_session(temp.project, { title });
  session.artifacts.create({ type: "report", content: `report of ${title}\n` });
  session.close();
  return session.id;
}

describe("an archived session", () => {
  it("is not the latest one chosen, but is reopened by its id and stays archived", async () => {
    const older = closed_session("older, active");
    const newer = closed_session("newer, archived");
    archive_session(temp.project, newer);

    expect(await chosen_session(temp.project.layout, undefined)).toBe(older);
    expect(await chosen_session(temp.project.layout, newer)).toBe(newer);
    const reopened = open_session(temp.project, { session_id: newer });
    reopened.close();
    expect((await read_summary(temp.project.layout, newer))?.status).toBe("archived");
  });

  it("leaves no latest session when every one is archived", async () => {
    archive_session(temp.project, closed_session("only one"));
    const failure = await chosen_session(temp.project.layout, undefined, "this project has no session to resume").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ error: { kind: "user_error", message: "this project has no session to resume" } });
  });
});

describe("a deleted session", () => {
  it("is never reopened for writing, while its log stays readable", async () => {
    const id = closed_session("deleted");
    await delete_session(temp.project, id, "not needed");
    const failure = expect_air_failure(() => open_session(temp.project, { session_id: id }));
    expect(failure.error).toMatchObject({ kind: "user_error", user_action: expect.stringContaining(`air history --session ${id}`) });
    expect(failure.message).toMatch(new RegExp(`^session ${id} was deleted at \\d{4}-`));
    // The refusal recreated nothing: no artifacts folder came back.
    expect(fs.existsSync(session_artifacts_dir(temp.project.layout, id))).toBe(false);
    expect((await read_history(temp.project.layout, id)).at(-1)).toMatchObject({ type: "session.deleted", payload: { reason: "not needed" } });
  });

  it("had its worktree workspaces removed with their branches first, and the next sweep passes it by", async () => {
    init_repo(temp.project.layout.root);
    commit_files(temp.project.layout.root, "base", { "lib/a.c": "int a;\n" });
    const { session_id, ref } = await ended_session_with_worktree(temp.project);
    expect(branches(temp.project.layout.root)).toContain(ref.branch);

    const outcome = await delete_session(temp.project, session_id);
    expect(outcome.retired_workspaces).toBe(1);
    expect(fs.existsSync(ref.path)).toBe(false);
    expect(branches(temp.project.layout.root)).toEqual(["main"]);
    const types = (await read_history(temp.project.layout, session_id)).map((event) => event.type);
    expect(types.slice(-3)).toEqual(["workspace.abandoned", "workspace.cleaned", "session.deleted"]);

    const current = open_session(temp.project, { title: "the next run" });
    try {
      expect(await sweep_project_workspaces(current)).toEqual({ abandoned: [], cleaned: [], busy: [] });
    } finally {
      current.close();
    }
  });

  it("is refused while a workspace merge it started is cut off midway, keeping everything", async () => {
    init_repo(temp.project.layout.root);
    commit_files(temp.project.layout.root, "base", { "lib/a.c": "int a;\n" });
    const { session_id, ref } = await ended_session_with_worktree(temp.project, (session, made) =>
      session.ingestor.ingest(make_event("workspace.merge.started", { workspace_id: made.workspace_id }, session.origin)),
    );

    const failure = await delete_session(temp.project, session_id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ error: { kind: "user_error", user_action: expect.stringContaining(`air resume --session ${session_id}`) } });
    expect(fs.existsSync(ref.path)).toBe(true);
    expect((await read_summary(temp.project.layout, session_id))?.status).toBe("active");
  });
});

describe("what an ending keeps of a session's snapshots", () => {
  /** A session whose edit of `notes.txt` was snapshotted, as a file tool's is, beside one of another session. */
  async function snapshotted_sessions(): Promise<{ ended: SessionId; other: SessionId; store: SnapshotStore }> {
    const { root } = temp.project.layout;
    fs.writeFileSync(path.join(root, "notes.txt"), "first words\n");
    const store = SnapshotStore.for_project(temp.project.layout);
    const ended = closed_session("snapshotted");
    const other = closed_session("another");
    await store.take({ root, session_id: ended, cause: "tool", phase: "before", paths: ["notes.txt"] });
    fs.writeFileSync(path.join(root, "notes.txt"), "second words\n");
    await store.take({ root, session_id: other, cause: "tool", phase: "before", paths: ["notes.txt"] });
    return { ended, other, store };
  }

  it("archive keeps the session's artifacts and snapshots", async () => {
    const { ended, store } = await snapshotted_sessions();
    archive_session(temp.project, ended);
    expect(await store.list({ session_id: ended })).toHaveLength(1);
    expect(fs.readdirSync(session_artifacts_dir(temp.project.layout, ended))).not.toEqual([]);
  });

  it("purge removes the session's artifacts and snapshots, and leaves another session's", async () => {
    const { ended, other, store } = await snapshotted_sessions();
    const [snapshot] = await store.list({ session_id: ended });
    await purge_session(temp.project, ended);
    expect(await store.list({ session_id: ended })).toEqual([]);
    expect(await store.list({ session_id: other })).toHaveLength(1);
    expect(fs.existsSync(session_artifacts_dir(temp.project.layout, ended))).toBe(false);
    // Its commit is gone from the repository, not only unnamed.
    const found = spawnSync("git", [`--git-dir=${path.join(temp.project.layout.backups, ".git")}`, "cat-file", "-e", snapshot?.commit ?? ""]);
    expect(found.status).not.toBe(0);
  });
});

describe("an ending cut short by a crash", () => {
  it("delete: the event was recorded, the artifacts not yet removed; deleting again removes them", async () => {
    const id = closed_session("crashed delete");
    const session = open_session(temp.project, { session_id: id });
    session.ingestor.ingest(make_event("session.deleted", {}, session.origin));
    session.close();
    expect(fs.readdirSync(session_artifacts_dir(temp.project.layout, id), { recursive: true }).length).toBeGreaterThan(0);

    expect(await delete_session(temp.project, id)).toEqual({ retired_workspaces: 0, finished_earlier_delete: true });
    expect(fs.existsSync(session_artifacts_dir(temp.project.layout, id))).toBe(false);
  });

  it("purge: recorded as purged, its database already gone but its folder left; purging again removes the folder", async () => {
    const id = closed_session("crashed purge");
    await delete_session(temp.project, id);
    const first = record_purge(temp.project.layout, id);
    fs.rmSync(session_db_path(temp.project.layout, id));
    expect(fs.existsSync(session_dir(temp.project.layout, id))).toBe(true);

    expect(await purge_session(temp.project, id)).toEqual({ purged_at: first.purged_at, finished_earlier_purge: true });
    expect(fs.existsSync(session_dir(temp.project.layout, id))).toBe(false);
    expect(purge_record(temp.project.layout, id)).toEqual(first);
  });

  it("a purge record torn by a crash mid-line does not swallow the next one", async () => {
    fs.writeFileSync(temp.project.layout.purged_sessions, '{"session_id":"ses_01ARZ3NDEKTSV4RRFFQ69G5F');
    const id = closed_session("after a torn line");
    await purge_session(temp.project, id);
    expect(purge_record(temp.project.layout, id)?.session_id).toBe(id);
    expect(fs.existsSync(path.join(temp.project.layout.sessions, id))).toBe(false);
  });
});

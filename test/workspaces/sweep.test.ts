import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId, type TaskId } from "../../src/contracts/ids.js";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { WorkspaceManager, type WorkspaceRef } from "../../src/workspaces/manager.js";
import { sweep_project_workspaces } from "../../src/workspaces/sweep.js";
import { air_error, task_created_event } from "../fixtures/events.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { find_row, temp_project, type TempProject } from "../fixtures/session.js";

const DAY_MS = 24 * 60 * 60 * 1000;

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
  init_repo(temp.project.layout.root);
  commit_files(temp.project.layout.root, "base", { "lib/a.c": "int a;\n" });
});
afterEach(() => temp.cleanup());

/** A session that made one worktree workspace for a new task, then ended (closed); `then` runs before it closes. */
async function ended_session_with_worktree(
  then: (session: Session, ref: WorkspaceRef, task_id: TaskId) => void,
): Promise<{ session_id: SessionId; ref: WorkspaceRef }> {
  const session = open_session(temp.project, { title: "an earlier run" });
  try {
    const task_id = new_id("task") as TaskId;
    session.ingestor.ingest(task_created_event(session.origin, { id: task_id, title: "a task" }));
    const manager = new WorkspaceManager(session);
    const { commit } = await manager.snapshot();
    const ref = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit });
    then(session, ref, task_id);
    return { session_id: session.id, ref };
  } finally {
    session.close();
  }
}

/** Runs the sweep as `air run` does: from a new session of the project, at `now`. */
async function sweep_from_new_session(now: Date) {
  const current = open_session(temp.project, { title: "this run" });
  try {
    return await sweep_project_workspaces(current, now);
  } finally {
    current.close();
  }
}

function workspace_row(session_id: SessionId, workspace_id: string) {
  const session = open_session(temp.project, { session_id });
  try {
    return find_row(session.connection, "workspaces", workspace_id);
  } finally {
    session.close();
  }
}

function branches(): string[] {
  return git(temp.project.layout.root, "branch", "--list", "--format=%(refname:short)")
    .split("\n")
    .filter((name) => name !== "");
}

describe("sweep_project_workspaces", () => {
  it("keeps an abandoned workspace 3 days, then removes its worktree and branch and records workspace.cleaned in its own session", async () => {
    const { session_id, ref } = await ended_session_with_worktree((session, made) =>
      new WorkspaceManager(session).abandon_workspace(made, "attempt failed to merge"),
    );
    const abandoned_at = Date.parse(String(workspace_row(session_id, ref.workspace_id)?.updated_at));

    const early = await sweep_from_new_session(new Date(abandoned_at + 3 * DAY_MS - 60_000));
    expect(early.cleaned).toEqual([]);
    expect(fs.existsSync(ref.path)).toBe(true);
    expect(branches()).toContain(ref.branch);

    const due = await sweep_from_new_session(new Date(abandoned_at + 3 * DAY_MS));
    expect(due.cleaned).toEqual([ref.workspace_id]);
    expect(fs.existsSync(ref.path)).toBe(false);
    expect(branches()).toEqual(["main"]);
    const row = workspace_row(session_id, ref.workspace_id);
    expect(row?.status).toBe("cleaned");
  });

  it("abandons the worktree of a task that ended failed, keeping its files for their 3 days", async () => {
    const { session_id, ref } = await ended_session_with_worktree((session, _made, task_id) => {
      session.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt") }, session.origin));
      session.ingestor.ingest(make_event("task.failed", { task_id, error: air_error() }, session.origin));
    });

    const swept = await sweep_from_new_session(new Date());
    expect(swept.abandoned).toEqual([ref.workspace_id]);
    expect(swept.cleaned).toEqual([]);
    expect(fs.existsSync(ref.path)).toBe(true);
    expect(workspace_row(session_id, ref.workspace_id)?.status).toBe("abandoned");
  });

  it("leaves the active workspace of a task that has not ended, however old", async () => {
    const { session_id, ref } = await ended_session_with_worktree(() => undefined);
    const swept = await sweep_from_new_session(new Date(Date.now() + 365 * DAY_MS));
    expect(swept).toEqual({ abandoned: [], cleaned: [], busy: [] });
    expect(fs.existsSync(ref.path)).toBe(true);
    expect(workspace_row(session_id, ref.workspace_id)?.status).toBe("active");
  });
});

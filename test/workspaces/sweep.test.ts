import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { open_session } from "../../src/project/session-manager.js";
import { WorkspaceManager } from "../../src/workspaces/manager.js";
import { sweep_project_workspaces } from "../../src/workspaces/sweep.js";
import { air_error } from "../fixtures/events.js";
import { branches, commit_files, init_repo } from "../fixtures/git-repo.js";
import { find_row, temp_project, type TempProject } from "../fixtures/session.js";
import { ended_session_with_worktree } from "../fixtures/worktree-session.js";

const DAY_MS = 24 * 60 * 60 * 1000;

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
  init_repo(temp.project.layout.root);
  commit_files(temp.project.layout.root, "base", { "lib/a.c": "int a;\n" });
});
afterEach(() => temp.cleanup());

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

describe("sweep_project_workspaces", () => {
  it("keeps an abandoned workspace 3 days, then removes its worktree and branch and records workspace.cleaned in its own session", async () => {
    const { session_id, ref } = await ended_session_with_worktree(temp.project, (session, made) =>
      new WorkspaceManager(session).abandon_workspace(made, "attempt failed to merge"),
    );
    const abandoned_at = Date.parse(String(workspace_row(session_id, ref.workspace_id)?.updated_at));

    const early = await sweep_from_new_session(new Date(abandoned_at + 3 * DAY_MS - 60_000));
    expect(early.cleaned).toEqual([]);
    expect(fs.existsSync(ref.path)).toBe(true);
    expect(branches(temp.project.layout.root)).toContain(ref.branch);

    const due = await sweep_from_new_session(new Date(abandoned_at + 3 * DAY_MS));
    expect(due.cleaned).toEqual([ref.workspace_id]);
    expect(fs.existsSync(ref.path)).toBe(false);
    expect(branches(temp.project.layout.root)).toEqual(["main"]);
    const row = workspace_row(session_id, ref.workspace_id);
    expect(row?.status).toBe("cleaned");
  });

  it("abandons the worktree of a task that ended failed, keeping its files for their 3 days", async () => {
    const { session_id, ref } = await ended_session_with_worktree(temp.project, (session, _made, task_id) => {
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
    const { session_id, ref } = await ended_session_with_worktree(temp.project, () => undefined);
    const swept = await sweep_from_new_session(new Date(Date.now() + 365 * DAY_MS));
    expect(swept).toEqual({ abandoned: [], cleaned: [], busy: [] });
    expect(fs.existsSync(ref.path)).toBe(true);
    expect(workspace_row(session_id, ref.workspace_id)?.status).toBe("active");
  });
});

import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_doctor } from "../../src/cli/commands/doctor.js";
import type { Io } from "../../src/cli/output.js";
import { new_id, type SessionId, type TaskId } from "../../src/contracts/ids.js";
import { session_artifacts_dir } from "../../src/project/layout.js";
import { delete_session } from "../../src/project/session-ending.js";
import { open_session } from "../../src/project/session-manager.js";
import type { ProjectRecovery } from "../../src/recovery/run.js";
import { recover_project } from "../../src/recovery/run.js";
import { WorkspaceManager, type WorkspaceRef } from "../../src/workspaces/manager.js";
import { file_hashes } from "../fixtures/checkout.js";
import { envelope, task_created_event } from "../fixtures/events.js";
import { branches, commit_files, init_repo } from "../fixtures/git-repo.js";
import { dump_tables, find_row, temp_project, type Dump, type TempProject } from "../fixtures/session.js";

const DAY_MS = 24 * 60 * 60 * 1000;

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
  init_repo(temp.project.layout.root);
  commit_files(temp.project.layout.root, "base", { "lib/a.c": "int a;\n" });
});
afterEach(() => temp.cleanup());

type Workspaces = { merged_8_days_ago: WorkspaceRef; merged_2_days_ago: WorkspaceRef; active: WorkspaceRef };

/**
 * An ended session with three worktree workspaces of pending tasks: two merged (the merge recorded at the
 * given age), one active. Plus a stray file in its artifacts folder and a task row deleted behind the log.
 */
async function damaged_session(): Promise<{ session_id: SessionId; workspaces: Workspaces; deleted_task: TaskId }> {
  const session = open_session(temp.project, { title: "an earlier run" });
  try {
    const manager = new WorkspaceManager(session);
    const { commit } = await manager.snapshot();
    const workspace = async () => {
      const task_id = new_id("task") as TaskId;
      session.ingestor.ingest(task_created_event(session.origin, { id: task_id, title: `task ${task_id}` }));
      return { task_id, ref: await manager.create_workspace({ task_id, strategy: "worktree", base_commit: commit }) };
    };
    const merged_at = async (age_ms: number) => {
      const { ref } = await workspace();
      const timestamp = new Date(Date.now() - age_ms).toISOString();
      session.ingestor.ingest(envelope("workspace.merge.started", { workspace_id: ref.workspace_id }, session.origin, { timestamp }));
      session.ingestor.ingest(envelope("workspace.merge.completed", { workspace_id: ref.workspace_id }, session.origin, { timestamp }));
      return ref;
    };
    const workspaces = { merged_8_days_ago: await merged_at(8 * DAY_MS), merged_2_days_ago: await merged_at(2 * DAY_MS), active: (await workspace()).ref };
    const { task_id: deleted_task } = await workspace();
    session.connection.client.exec(`DELETE FROM tasks WHERE id = '${deleted_task}'`);
    fs.writeFileSync(path.join(session_artifacts_dir(temp.project.layout, session.id), "stray.txt"), "not air's\n");
    return { session_id: session.id, workspaces, deleted_task };
  } finally {
    session.close();
  }
}

function rows(session_id: SessionId): Dump {
  const session = open_session(temp.project, { session_id });
  try {
    return dump_tables(session.connection);
  } finally {
    session.close();
  }
}

/** The files of the project's `.air/local/sessions` and workspace folders, each with its bytes' sha256 (databases left out). */
function files(): Record<string, string> {
  return file_hashes(temp.project.layout.local, (entry) => !/session\.db|\.lock$|summary/.test(entry));
}

async function doctor(options: { dry_run: boolean; json: boolean }): Promise<{ code: number; out: string }> {
  let out = "";
  const io: Io = { out: (text) => (out += text), err: () => undefined, cwd: temp.project.layout.root };
  const code = await run_doctor(io, { json: options.json, fix: true, dry_run: options.dry_run });
  return { code, out };
}

describe("recover_project", () => {
  it("cleans a merged workspace 7 days after its merge, keeping its row; keeps a younger merged one and an active one", async () => {
    const { session_id, workspaces } = await damaged_session();

    const recovery = await recover_project(temp.project, { dry_run: false });

    expect(recovery.sessions.map((found) => [found.session_id, found.workspaces])).toEqual([
      [session_id, { abandoned: [], cleaned: [workspaces.merged_8_days_ago.workspace_id] }],
    ]);
    const after = open_session(temp.project, { session_id });
    const status = (ref: WorkspaceRef) => find_row(after.connection, "workspaces", ref.workspace_id)?.status;
    expect([status(workspaces.merged_8_days_ago), status(workspaces.merged_2_days_ago), status(workspaces.active)]).toEqual(["cleaned", "merged", "active"]);
    after.close();
    expect(fs.existsSync(workspaces.merged_8_days_ago.path)).toBe(false);
    expect(fs.existsSync(workspaces.merged_2_days_ago.path)).toBe(true);
    expect(fs.existsSync(workspaces.active.path)).toBe(true);
    expect(branches(temp.project.layout.root)).not.toContain(workspaces.merged_8_days_ago.branch);
    expect(branches(temp.project.layout.root)).toContain(workspaces.merged_2_days_ago.branch);
  });

  it("leaves a session another air process holds, and says so", async () => {
    const { session_id } = await damaged_session();
    const holder = open_session(temp.project, { session_id });
    try {
      const recovery = await recover_project(temp.project, { dry_run: false });
      expect(recovery).toEqual({ dry_run: false, sessions: [], busy: [session_id] });
    } finally {
      holder.close();
    }
  });

  it("passes a deleted session by: its artifacts went on purpose and it is never reopened", async () => {
    const { session_id } = await damaged_session();
    await delete_session(temp.project, session_id);
    const recovery = await recover_project(temp.project, { dry_run: false });
    expect(recovery).toEqual({ dry_run: false, sessions: [], busy: [] });
  });
});

describe("air doctor --fix, recovery section", () => {
  it("--dry-run reports the stray file, the dangling references and the due workspace, and changes nothing", async () => {
    const { session_id, workspaces, deleted_task } = await damaged_session();
    const before = { rows: rows(session_id), files: files(), branches: branches(temp.project.layout.root) };

    const { code, out } = await doctor({ dry_run: true, json: true });

    expect(code).toBe(0);
    const { recovery } = JSON.parse(out) as { recovery: ProjectRecovery };
    expect(recovery.dry_run).toBe(true);
    const [found] = recovery.sessions;
    expect(found?.artifacts.quarantined).toEqual([{ path: "stray.txt", reason: "not a place and name air gives an artifact" }]);
    expect(found?.invariants.repaired.map((entry) => [entry.orphan.table, entry.action])).toEqual([
      ["workspaces", `restored tasks row ${deleted_task} from the event log`],
    ]);
    expect(found?.workspaces).toEqual({ abandoned: [], cleaned: [workspaces.merged_8_days_ago.workspace_id] });
    expect({ rows: rows(session_id), files: files(), branches: branches(temp.project.layout.root) }).toEqual(before);
    expect(fs.existsSync(workspaces.merged_8_days_ago.path)).toBe(true);

    const text = await doctor({ dry_run: true, json: false });
    expect(text.out).toContain(
      "Recovery (dry run, nothing is changed): 1 session(s) checked: 1 artifact file(s) to quarantine, 1 dangling reference(s) to repair, 1 workspace(s) to clean\n",
    );
    expect(text.out).toContain("    would quarantine stray.txt: not a place and name air gives an artifact\n");
    expect({ rows: rows(session_id), files: files(), branches: branches(temp.project.layout.root) }).toEqual(before);
  });

  it("repairs, quarantines and cleans, says so in its Recovery section, and finds nothing the second time", async () => {
    const { session_id, workspaces, deleted_task } = await damaged_session();

    const { out } = await doctor({ dry_run: false, json: false });

    expect(out).toContain(
      "Recovery: 1 session(s) checked: 1 artifact file(s) quarantined, 1 dangling reference(s) repaired, 1 workspace(s) cleaned\n" +
        `  ${session_id}:\n` +
        "    quarantined stray.txt: not a place and name air gives an artifact\n",
    );
    expect(out).toMatch(new RegExp(`    workspaces\\.task_id of wsp_\\w+: restored tasks row ${deleted_task} from the event log\n`));
    expect(out).toContain(`    workspace ${workspaces.merged_8_days_ago.workspace_id}: cleaned (past its retention; the row stays)\n`);
    const after = rows(session_id);
    expect(after.tasks?.map((row) => row.id)).toContain(deleted_task);
    expect(after.workspaces?.find((row) => row.id === workspaces.merged_8_days_ago.workspace_id)?.status).toBe("cleaned");
    expect(fs.existsSync(path.join(session_artifacts_dir(temp.project.layout, session_id), "quarantine", "stray.txt"))).toBe(true);

    expect((await doctor({ dry_run: false, json: false })).out).toContain("Recovery: 1 session(s) checked, nothing to recover\n");
  });
});

/**
 * A workspace merge is the way a parallel wave's changes reach the user's files: the checkout's files it
 * touches are snapshotted before it applies, linked to the workspace and its task (issue 17).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { new_id, type TaskId } from "../../src/contracts/ids.js";
import { apply_restore, plan_restore } from "../../src/project/snapshot-restore.js";
import { SnapshotStore } from "../../src/project/snapshot-store.js";
import { WorkspaceManager } from "../../src/workspaces/manager.js";
import { write_files } from "../fixtures/checkout.js";
import { task_created_event } from "../fixtures/events.js";
import { commit_files, init_repo } from "../fixtures/git-repo.js";
import { temp_session_per_test, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
temp_session_per_test((opened) => {
  temp = opened;
});

describe("a workspace merge into the checkout", () => {
  it("snapshots the files it touches before applying, linked to the workspace and task, and a restore undoes the merge", async () => {
    const root = temp.project.layout.root;
    init_repo(root);
    commit_files(root, "base", { "lib/a.c": "int a;\n", "lib/b.c": "int b;\n" });
    const task_id = new_id("task") as TaskId;
    temp.session.ingestor.ingest(task_created_event(temp.session.origin, { id: task_id, title: "a task" }));
    const manager = new WorkspaceManager(temp.session);
    const ref = await manager.create_workspace({ task_id, strategy: "worktree", base_commit: (await manager.snapshot()).commit });
    write_files(ref.path, { "lib/a.c": "int a = 1;\n", "lib/new.c": "int n;\n" });
    write_files(root, { "notes.txt": "the user's uncommitted notes\n" });

    const result = await manager.merge_workspace(ref, { message: "a task", verify: async () => ({ passed: true }) });
    expect(result.kind).toBe("merged");
    const taken = temp.session.store.query({ types: ["snapshot.taken"] }).flatMap(({ event }) => (event.type === "snapshot.taken" ? [event.payload] : []));
    expect(taken).toEqual([expect.objectContaining({ cause: "merge", phase: "before", workspace_id: ref.workspace_id, task_id })]);
    expect([...(taken[0]?.paths ?? [])].sort()).toEqual(["lib/a.c", "lib/new.c"]);

    const store = SnapshotStore.for_project(temp.project.layout);
    const snapshot_id = taken[0]!.snapshot_id;
    await apply_restore(store, await plan_restore(store, { root, target: { kind: "snapshot", snapshot_id } }), { session_id: temp.session.id });
    expect(fs.readFileSync(path.join(root, "lib/a.c"), "utf8")).toBe("int a;\n");
    expect(fs.existsSync(path.join(root, "lib/new.c"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("the user's uncommitted notes\n");
  });
});

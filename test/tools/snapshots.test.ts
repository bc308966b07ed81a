/**
 * Snapshots around every change air makes, driven through the real ToolRegistry (issue 17): a file tool's
 * write, a shell command judged as writing (before and after), `snapshot.taken` linking each to its run, the
 * restore primitives bringing back what a command changed, and no snapshot → no write.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apply_restore, plan_restore } from "../../src/project/snapshot-restore.js";
import { SnapshotStore } from "../../src/project/snapshot-store.js";
import { ALLOW_ONCE } from "../fixtures/permissions.js";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness({ answerer: ALLOW_ONCE });
});
afterEach(() => h.cleanup());

function read(relative: string): string {
  return fs.readFileSync(path.join(h.root, relative), "utf8");
}

function store(): SnapshotStore {
  return SnapshotStore.for_project(h.temp.project.layout);
}

describe("snapshots of file tools", () => {
  it("snapshots the file fs.edit writes before it writes, linked to the tool run by snapshot.taken", async () => {
    write(h.root, "src/calc.cpp", "for (long i = 1; i < n; ++i)\n");
    output_of(await h.call("fs.read", { path: "src/calc.cpp" }));
    const outcome = await h.call("fs.edit", { path: "src/calc.cpp", old_string: "i < n", new_string: "i <= n" });
    output_of(outcome);

    const [taken] = h.events("snapshot.taken").map((event) => event.payload);
    expect(taken).toMatchObject({ cause: "tool", phase: "before", tool_run_id: outcome.tool_run_id, paths: ["src/calc.cpp"], paths_total: 1 });
    const [record] = await store().list({ session_id: h.temp.session.id });
    expect(record).toMatchObject({ snapshot_id: taken!.snapshot_id, commit: taken!.commit, tool_run_id: outcome.tool_run_id });

    const plan = await plan_restore(store(), { root: h.root, target: { kind: "run", run_id: outcome.tool_run_id! } });
    await apply_restore(store(), plan, { session_id: h.temp.session.id });
    expect(read("src/calc.cpp")).toBe("for (long i = 1; i < n; ++i)\n");
  });

  it("takes no snapshot for a write that only touches air's own folder or build output", async () => {
    output_of(await h.call("fs.write", { path: "build/generated.txt", content: "built\n" }));
    expect(h.events("snapshot.taken")).toEqual([]);
  });

  it("refuses the write when the snapshot fails: no snapshot, no write", async () => {
    write(h.root, "notes.txt", "n\n");
    fs.rmSync(h.temp.project.layout.backups, { recursive: true, force: true });
    fs.writeFileSync(h.temp.project.layout.backups, "a file where the backups repository belongs\n");
    output_of(await h.call("fs.read", { path: "notes.txt" }));
    const error = error_of(await h.call("fs.write", { path: "notes.txt", content: "changed\n" }));
    expect(error.message).toContain("fs.write did not run: the snapshot of the project failed");
    expect(read("notes.txt")).toBe("n\n");
  });
});

describe("snapshots of shell commands", () => {
  it("snapshots before and after a writing command, records what it changed, created and deleted, and the restore brings all back", async () => {
    write(h.root, "src/calc.cpp", "for (long i = 1; i < n; ++i)\n");
    write(h.root, "src/obsolete.h", "#pragma once\n");
    write(h.root, "README.md", "the user's readme\n");
    const at = new Date().toISOString();
    const outcome = await h.call("shell.run", {
      command: "sed -i 's/i < n/i <= n/' src/calc.cpp && echo '#define GENERATED 1' > src/generated.h && rm src/obsolete.h",
    });
    const output = output_of<{ command_run_id: string; exit_code: number }>(outcome);
    expect(output.exit_code).toBe(0);

    const taken = h.events("snapshot.taken").map((event) => event.payload);
    expect(taken).toEqual([
      expect.objectContaining({ cause: "command", phase: "before", command_run_id: output.command_run_id, tool_run_id: outcome.tool_run_id, paths: [] }),
      expect.objectContaining({ cause: "command", phase: "after", command_run_id: output.command_run_id, before_snapshot_id: taken[0]!.snapshot_id }),
    ]);
    expect([...(taken[1]!.paths as string[])].sort()).toEqual(["src/calc.cpp", "src/generated.h", "src/obsolete.h"]);
    write(h.root, "README.md", "the user's readme, edited after the command\n");

    const plan = await plan_restore(store(), { root: h.root, target: { kind: "time", at } });
    const applied = await apply_restore(store(), plan, { session_id: h.temp.session.id });
    expect(read("src/calc.cpp")).toBe("for (long i = 1; i < n; ++i)\n");
    expect(read("src/obsolete.h")).toBe("#pragma once\n");
    expect(fs.existsSync(path.join(h.root, "src/generated.h"))).toBe(false);
    expect(read("README.md")).toBe("the user's readme, edited after the command\n");

    const undo = await plan_restore(store(), { root: h.root, target: { kind: "snapshot", snapshot_id: applied.before.snapshot_id } });
    await apply_restore(store(), undo, { session_id: h.temp.session.id });
    expect(read("src/calc.cpp")).toBe("for (long i = 1; i <= n; ++i)\n");
    expect(read("src/generated.h")).toBe("#define GENERATED 1\n");
    expect(fs.existsSync(path.join(h.root, "src/obsolete.h"))).toBe(false);
  });

  it("takes no snapshot around a read-only command", async () => {
    write(h.root, "a.txt", "a\n");
    output_of(await h.call("shell.run", { command: "cat a.txt && ls -la && git status --short || true" }));
    expect(h.events("snapshot.taken")).toEqual([]);
  });

  it("does not run a writing command whose snapshot failed", async () => {
    fs.rmSync(h.temp.project.layout.backups, { recursive: true, force: true });
    fs.writeFileSync(h.temp.project.layout.backups, "a file where the backups repository belongs\n");
    const error = error_of(await h.call("shell.run", { command: "echo made > made.txt" }));
    expect(error.message).toContain("the command did not run: the snapshot of the project failed");
    expect(fs.existsSync(path.join(h.root, "made.txt"))).toBe(false);
    expect(h.events("command.started")).toEqual([]);
  });
});

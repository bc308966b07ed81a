/**
 * `backup_required` (seeds 000 §9.3, 003 §12 rule 7): an allowed write outside the project, or into a
 * credential file, is preceded by a backup in the git-backed `.air/local/backups/`; the backup can be restored.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BackupStore } from "../../src/project/backup-store.js";
import { ALLOW_ONCE } from "../fixtures/permissions.js";
import { output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness({ answerer: ALLOW_ONCE });
});
afterEach(() => h.cleanup());

describe("backup before an outside or credential write", () => {
  it("backs up the outside file before fs.write changes it, links the backup as evidence, and restores it", async () => {
    const target = write(h.outside, "elsewhere/target.txt", "outside\n");
    output_of(await h.call("fs.read", { path: "../elsewhere/target.txt" }));
    output_of(await h.call("fs.write", { path: "../elsewhere/target.txt", content: "changed\n" }));
    expect(fs.readFileSync(target, "utf8")).toBe("changed\n");

    const store = BackupStore.for_project(h.temp.project.layout);
    const [backup] = await store.list();
    expect(backup!.files).toEqual([expect.objectContaining({ original_path: fs.realpathSync(target), existed: true })]);
    const evidence = h.events("evidence.created").map((event) => event.payload);
    expect(JSON.stringify(evidence)).toContain(`backup:${backup!.backup_id}`);

    await store.restore(backup!.backup_id);
    expect(fs.readFileSync(target, "utf8")).toBe("outside\n");
  });

  it("backs up a project credential file before writing it, and nothing for plain project writes", async () => {
    const env_file = write(h.temp.project.layout.root, ".env", "KEY=1\n");
    output_of(await h.call("fs.write", { path: "notes.txt", content: "n\n" }));
    expect(await BackupStore.for_project(h.temp.project.layout).list()).toEqual([]);
    const expected_sha256 = crypto.createHash("sha256").update("KEY=1\n").digest("hex");
    output_of(await h.call("fs.write", { path: ".env", content: "KEY=2\n", expected_sha256 }));
    const [backup] = await BackupStore.for_project(h.temp.project.layout).list();
    expect(backup!.files).toEqual([expect.objectContaining({ original_path: fs.realpathSync(env_file), existed: true })]);
  });
});

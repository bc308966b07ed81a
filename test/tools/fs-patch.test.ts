/**
 * fs.patch (seeds 000 §9.4, 003 §10.9): a unified diff of several files applied all or nothing, with
 * read-before-edit per file, every target path judged by the PermissionEngine before anything runs,
 * rejected hunks saved as an artifact, and a write failure midway undone. Real files, real registry.
 */
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { effects_of } from "../../src/contracts/tool.js";
import { error_of, files_under, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");
const read = (relative: string) => fs.readFileSync(path.join(h.root, relative), "utf8");
const exists = (relative: string) => fs.existsSync(path.join(h.root, relative));

type FileResult = { path: string; operation: string; from?: string; sha256?: string; hunks_applied: number; diff_artifact_id: string };
type PatchOutput = { files: FileResult[] };

/** Every file of the project (symlinks as their target) with its bytes, inode and mtime: "untouched" means all three are equal. */
function fingerprint(): Record<string, { bytes: string; ino: number; mtime: number }> {
  return Object.fromEntries(
    files_under(h.root)
      .filter((file) => !file.startsWith(".air"))
      .map((file) => {
        const absolute = path.join(h.root, file);
        const stat = fs.lstatSync(absolute);
        const bytes = stat.isSymbolicLink() ? `-> ${fs.readlinkSync(absolute)}` : fs.readFileSync(absolute).toString("base64");
        return [file, { bytes, ino: stat.ino, mtime: stat.mtimeMs }];
      }),
  );
}

async function read_all(...files: string[]) {
  for (const file of files) output_of(await h.call("fs.read", { path: file }));
}

const numbers = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n") + "\n";

/** Two hunks on the 30-line file: line 3 and line 27 changed. */
const TWO_HUNKS = `--- a/src/numbers.txt
+++ b/src/numbers.txt
@@ -1,6 +1,6 @@
 line 1
 line 2
-line 3
+line three
 line 4
 line 5
 line 6
@@ -24,7 +24,7 @@
 line 24
 line 25
 line 26
-line 27
+line twenty-seven
 line 28
 line 29
 line 30
`;

const CREATE = `diff --git a/src/new/created.txt b/src/new/created.txt
new file mode 100644
--- /dev/null
+++ b/src/new/created.txt
@@ -0,0 +1,2 @@
+fresh
+file
`;

const DELETE = `diff --git a/src/gone.txt b/src/gone.txt
deleted file mode 100644
--- a/src/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-to be
-removed
`;

const BAD_HUNK = `--- a/src/config.txt
+++ b/src/config.txt
@@ -1,3 +1,3 @@
 mode = fast
-level = 7
+level = 8
 name = demo
`;

beforeEach(() => {
  write(h.root, "src/numbers.txt", numbers);
  write(h.root, "src/gone.txt", "to be\nremoved\n");
  write(h.root, "src/config.txt", "mode = fast\nlevel = 3\nname = demo\n");
});

describe("fs.patch all or nothing", () => {
  it("leaves every file byte-identical when one hunk of several files fails, and saves the rejected hunk", async () => {
    await read_all("src/numbers.txt", "src/gone.txt", "src/config.txt");
    const before = fingerprint();
    const outcome = await h.call("fs.patch", { patch: TWO_HUNKS + CREATE + DELETE + BAD_HUNK });

    const error = error_of(outcome);
    expect(error.kind).toBe("tool_error");
    expect(error.message).toMatch(/does not apply, nothing was written: src\/config\.txt \(hunk 1\)/);
    expect(fingerprint()).toEqual(before);
    expect(exists("src/new")).toBe(false);

    const metadata = error.metadata as { failed_files: { path: string; hunks: { index: number }[] }[]; rejects_artifact_id: string };
    expect(metadata.failed_files).toEqual([{ path: "src/config.txt", hunks: [{ index: 1, old_start: 1, reason: expect.stringMatching(/do not match/) }] }]);
    const rejects = h.artifact_text(metadata.rejects_artifact_id);
    expect(rejects).toContain("--- a/src/config.txt");
    expect(rejects).toContain("-level = 7");
    expect(rejects).not.toContain("line three");
    expect(h.artifacts().map((artifact) => artifact.id)).toEqual([metadata.rejects_artifact_id]);
    expect(h.tool_runs().find((run) => run.id === outcome.tool_run_id)).toMatchObject({ tool_name: "fs.patch", status: "error" });
  });

  it("names only the failing hunks of a file whose other hunks apply", async () => {
    await read_all("src/numbers.txt");
    const one_bad = TWO_HUNKS.replace("-line 27\n", "-line 72\n");
    const error = error_of(await h.call("fs.patch", { patch: one_bad }));
    expect(error.metadata).toMatchObject({ failed_files: [{ path: "src/numbers.txt", hunks: [{ index: 2 }] }] });
    expect(read("src/numbers.txt")).toBe(numbers);
  });

  it("restores the files already written when a later write fails", async () => {
    await read_all("src/numbers.txt");
    write(h.root, "blocker", "a file where the patch wants a folder\n");
    const before = fingerprint();
    const creates_under_a_file = CREATE.replaceAll("src/new/created.txt", "blocker/created.txt");
    const outcome = await h.call("fs.patch", { patch: TWO_HUNKS + creates_under_a_file });
    const error = error_of(outcome);
    expect(error.message).toMatch(/writing the patched files failed .*every file already written was restored/);
    // Everything was put back: the failed call changed no file.
    expect(effects_of(outcome).changed_files).toEqual([]);
    expect(error.metadata).toMatchObject({ restored: ["src/numbers.txt"], restore_failed: [] });
    expect(read("src/numbers.txt")).toBe(numbers);
    expect(Object.keys(fingerprint())).toEqual(Object.keys(before));
  });
});

describe("fs.patch success", () => {
  it("modifies (several hunks), creates, deletes and renames in one call, with a diff artifact and evidence per file", async () => {
    write(h.root, "src/old-name.txt", "keep\nchange me\n");
    await read_all("src/numbers.txt", "src/gone.txt", "src/old-name.txt");
    const rename = `diff --git a/src/old-name.txt b/src/new-name.txt
similarity index 60%
rename from src/old-name.txt
rename to src/new-name.txt
--- a/src/old-name.txt
+++ b/src/new-name.txt
@@ -1,2 +1,2 @@
 keep
-change me
+changed
`;
    const outcome = await h.call("fs.patch", { patch: TWO_HUNKS + CREATE + DELETE + rename });
    const output = output_of<PatchOutput>(outcome);

    const expected_numbers = numbers.replace("line 3\n", "line three\n").replace("line 27\n", "line twenty-seven\n");
    expect(read("src/numbers.txt")).toBe(expected_numbers);
    expect(read("src/new/created.txt")).toBe("fresh\nfile\n");
    expect(exists("src/gone.txt")).toBe(false);
    expect(exists("src/old-name.txt")).toBe(false);
    expect(read("src/new-name.txt")).toBe("keep\nchanged\n");
    expect(output.files).toEqual([
      {
        path: "src/numbers.txt",
        operation: "modified",
        sha256: sha256(expected_numbers),
        size_bytes: expected_numbers.length,
        hunks_applied: 2,
        diff_artifact_id: expect.any(String),
      },
      {
        path: "src/new/created.txt",
        operation: "created",
        sha256: sha256("fresh\nfile\n"),
        size_bytes: 11,
        hunks_applied: 1,
        diff_artifact_id: expect.any(String),
      },
      { path: "src/gone.txt", operation: "deleted", hunks_applied: 1, diff_artifact_id: expect.any(String) },
      {
        path: "src/new-name.txt",
        operation: "renamed",
        from: "src/old-name.txt",
        sha256: sha256("keep\nchanged\n"),
        size_bytes: 13,
        hunks_applied: 1,
        diff_artifact_id: expect.any(String),
      },
    ]);
    // The effects: every file changed (a rename removes one and writes another) and a diff per file.
    const effects = effects_of(outcome);
    expect(effects).toEqual({
      changed_files: ["src/numbers.txt", "src/new/created.txt", "src/gone.txt", "src/old-name.txt", "src/new-name.txt"],
      diff_artifact_ids: output.files.map((file) => file.diff_artifact_id),
      command_runs: [],
      commits: [],
    });
    expect(output).not.toHaveProperty("effects");
    expect(h.artifact_text(effects.diff_artifact_ids[0]!)).toContain("+line twenty-seven");
    const completed = h.events("tool.completed").find((event) => event.payload.tool_run_id === outcome.tool_run_id);
    expect(completed!.payload.artifact_ids).toEqual(effects.diff_artifact_ids);
    // The recorded output keeps the tool's whole answer, effects included.
    expect(completed!.payload.output).toMatchObject({ effects: { changed_files: effects.changed_files, diff_artifact_ids: effects.diff_artifact_ids } });
    expect(completed!.payload.evidence_ids).toHaveLength(4);
  });

  it("a git copy creates the new file from the old one, which stays as it was (and needs no prior read)", async () => {
    const copy = `diff --git a/src/config.txt b/src/config-copy.txt
similarity index 70%
copy from src/config.txt
copy to src/config-copy.txt
--- a/src/config.txt
+++ b/src/config-copy.txt
@@ -1,3 +1,3 @@
 mode = fast
-level = 3
+level = 4
 name = demo
`;
    const outcome = await h.call("fs.patch", { patch: copy });
    const output = output_of<PatchOutput>(outcome);
    expect(output.files).toMatchObject([{ path: "src/config-copy.txt", operation: "copied", from: "src/config.txt" }]);
    expect(effects_of(outcome).changed_files).toEqual(["src/config-copy.txt"]);
    expect(read("src/config-copy.txt")).toBe("mode = fast\nlevel = 4\nname = demo\n");
    expect(read("src/config.txt")).toBe("mode = fast\nlevel = 3\nname = demo\n");
  });

  it("records the new content as read: a following fs.edit needs no new fs.read", async () => {
    await read_all("src/config.txt");
    output_of(await h.call("fs.patch", { patch: BAD_HUNK.replace("level = 7", "level = 3") }));
    output_of(await h.call("fs.edit", { path: "src/config.txt", old_string: "level = 8", new_string: "level = 9" }));
    expect(read("src/config.txt")).toBe("mode = fast\nlevel = 9\nname = demo\n");
  });

  it("applies what `git diff` printed, expected_sha256 standing in for reads", async () => {
    execFileSync("git", ["init", "-q"], { cwd: h.root });
    execFileSync("git", ["add", "src"], { cwd: h.root });
    fs.writeFileSync(path.join(h.root, "src/config.txt"), "mode = slow\nlevel = 3\nname = demo\n");
    const patch = execFileSync("git", ["-c", "core.pager=cat", "diff", "--no-color", "--no-ext-diff"], { cwd: h.root, encoding: "utf8" });
    fs.writeFileSync(path.join(h.root, "src/config.txt"), "mode = fast\nlevel = 3\nname = demo\n");
    const expected_sha256 = { "src/config.txt": sha256("mode = fast\nlevel = 3\nname = demo\n") };
    output_of(await h.call("fs.patch", { patch, expected_sha256 }));
    expect(read("src/config.txt")).toBe("mode = slow\nlevel = 3\nname = demo\n");
  });
});

describe("fs.patch refusals (nothing written)", () => {
  it("a file not read before is refused", async () => {
    await read_all("src/numbers.txt");
    const before = fingerprint();
    const error = error_of(await h.call("fs.patch", { patch: TWO_HUNKS + BAD_HUNK.replace("level = 7", "level = 3") }));
    expect(error.message).toMatch(/src\/config\.txt has not been read/);
    expect(fingerprint()).toEqual(before);
  });

  it("a file changed after fs.read (stale read) is refused", async () => {
    await read_all("src/numbers.txt", "src/config.txt");
    fs.appendFileSync(path.join(h.root, "src/config.txt"), "# someone else\n");
    const before = fingerprint();
    const error = error_of(await h.call("fs.patch", { patch: TWO_HUNKS + BAD_HUNK.replace("level = 7", "level = 3") }));
    expect(error.message).toMatch(/changed since it was read/);
    expect(fingerprint()).toEqual(before);
  });

  it("a wrong expected_sha256 is refused", async () => {
    const error = error_of(await h.call("fs.patch", { patch: BAD_HUNK, expected_sha256: { "src/config.txt": sha256("other") } }));
    expect(error.message).toMatch(/not the expected version/);
  });

  it("creating a file that exists is refused", async () => {
    write(h.root, "src/new/created.txt", "already here\n");
    const error = error_of(await h.call("fs.patch", { patch: CREATE }));
    expect(error.message).toMatch(/src\/new\/created\.txt already exists/);
    expect(read("src/new/created.txt")).toBe("already here\n");
  });

  it("a deletion whose hunks leave content is rejected", async () => {
    write(h.root, "src/gone.txt", "to be\nremoved\nbut more\n");
    await read_all("src/gone.txt");
    const error = error_of(await h.call("fs.patch", { patch: DELETE }));
    expect(error.message).toMatch(/does not apply/);
    expect(exists("src/gone.txt")).toBe(true);
  });

  it.each([
    ["prose", "please change level to 8", /contains no file changes/],
    ["a hunk whose line counts are wrong", "--- a/src/config.txt\n+++ b/src/config.txt\n@@ -1,3 +1,3 @@\n mode = fast\n-level = 3\n", /cannot be parsed/],
    ["a hunk without file headers", "@@ -1,1 +1,1 @@\n-a\n+b\n", /without ---\/\+\+\+ file headers/],
    ["a file touched twice", BAD_HUNK + BAD_HUNK, /touches src\/config\.txt more than once/],
    ["a binary patch", "diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ\n", /binary patch/],
    ["a mode change", "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", /changes the mode/],
    ["different names without rename headers", "--- a/one.txt\n+++ b/two.txt\n@@ -1 +1 @@\n-a\n+b\n", /rename needs/],
  ])("malformed: %s", async (_name, patch, pattern) => {
    const before = fingerprint();
    const outcome = await h.call("fs.patch", { patch });
    const error = error_of(outcome);
    expect(error.kind).toBe("tool_error");
    expect(error.message).toMatch(pattern);
    expect(error.user_action).toBeTruthy();
    expect(fingerprint()).toEqual(before);
    expect(h.events("tool.started")).toEqual([]);
  });
});

describe("fs.patch escapes (refused by the PermissionEngine before anything is written)", () => {
  let elsewhere: string;
  beforeEach(() => {
    elsewhere = path.join(h.outside, "elsewhere");
    write(elsewhere, "target.txt", "outside original\n");
  });

  const create = (target: string) => `--- /dev/null\n+++ ${target}\n@@ -0,0 +1 @@\n+pwned\n`;

  async function expect_refused(patch: string, kind: "permission_error" | "policy_error") {
    await read_all("src/numbers.txt");
    const before = fingerprint();
    const error = error_of(await h.call("fs.patch", { patch: TWO_HUNKS + patch }));
    expect(error.kind, error.message).toBe(kind);
    expect(h.events("tool.started").filter((event) => event.payload.tool_name === "fs.patch")).toEqual([]);
    const decisions = h.events("permission.decision.recorded").filter((event) => event.payload.tool_name === "fs.patch");
    expect(decisions.map((event) => event.payload.action)).toEqual([expect.not.stringMatching(/^(allow|announce_then_run)$/)]);
    expect(fingerprint()).toEqual(before);
    expect(files_under(elsewhere)).toEqual(["target.txt"]);
    expect(fs.readFileSync(path.join(elsewhere, "target.txt"), "utf8")).toBe("outside original\n");
  }

  it.each(["b/../escape.txt", "b/src/../../elsewhere/planted.txt"])("a `..` path (%s)", async (target) => {
    await expect_refused(create(target), "permission_error");
    expect(fs.existsSync(path.join(h.outside, "escape.txt"))).toBe(false);
  });

  it("an absolute path outside the project", async () => {
    await expect_refused(create(path.join(elsewhere, "planted.txt")), "permission_error");
  });

  it("a modification of an absolute path outside the project", async () => {
    const target = path.join(elsewhere, "target.txt");
    await expect_refused(`--- ${target}\n+++ ${target}\n@@ -1 +1 @@\n-outside original\n+pwned\n`, "permission_error");
  });

  it("a symlinked folder pointing outside", async () => {
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "link"));
    await expect_refused(create("b/src/link/planted.txt"), "permission_error");
  });

  it("a deletion through a symlinked folder pointing outside", async () => {
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "link"));
    await expect_refused("--- a/src/link/target.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-outside original\n", "permission_error");
  });

  it.each([".git/config", ".GIT/config"])("a patch to %s", async (target) => {
    execFileSync("git", ["init", "-q"], { cwd: h.root });
    const config = fs.readFileSync(path.join(h.root, ".git/config"), "utf8");
    await expect_refused(`--- a/${target}\n+++ b/${target}\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = touch /tmp/pwned\n`, "policy_error");
    expect(fs.readFileSync(path.join(h.root, ".git/config"), "utf8")).toBe(config);
  });

  it("a rename whose new name is outside", async () => {
    write(h.root, "src/inside.txt", "inside\n");
    await expect_refused(
      "diff --git a/src/inside.txt b/../moved.txt\nsimilarity index 100%\nrename from src/inside.txt\nrename to ../moved.txt\n",
      "permission_error",
    );
  });
});

/**
 * The fs tools and the execution discipline of seeds 003 §10.9: read-before-edit keyed by path + sha256,
 * exact unique old_string, atomic writes, a diff artifact per change. Real files in a real project; a
 * refused edit writes nothing and leaves its tool run ended (error), never running.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import { effects_of } from "../../src/contracts/tool.js";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");
const read = (relative: string) => fs.readFileSync(path.join(h.root, relative), "utf8");

type ReadOutput = { path: string; content: string; start_line: number; end_line: number; total_lines: number; truncated: boolean; sha256: string };
type EditOutput = { path: string; replacements: number; sha256: string; diff_artifact_id: string };
type WriteOutput = { path: string; created: boolean; changed: boolean; sha256: string; diff_artifact_id?: string };

describe("fs.read", () => {
  it("returns the content, its sha256 and line counts", async () => {
    write(h.root, "src/a.txt", "one\ntwo\nthree\n");
    const output = output_of<ReadOutput>(await h.call("fs.read", { path: "src/a.txt" }));
    expect(output).toMatchObject({
      path: "src/a.txt",
      content: "one\ntwo\nthree\n",
      start_line: 1,
      end_line: 3,
      total_lines: 3,
      truncated: false,
      sha256: sha256("one\ntwo\nthree\n"),
    });
    const [run] = h.tool_runs();
    expect(run).toMatchObject({ tool_name: "fs.read", status: "ok" });
  });

  it("offset and limit select lines, exactly as they are in the file (CRLF kept)", async () => {
    write(h.root, "crlf.txt", "a\r\nb\r\nc\r\nd");
    expect(output_of<ReadOutput>(await h.call("fs.read", { path: "crlf.txt", offset: 2, limit: 2 }))).toMatchObject({
      content: "b\r\nc\r\n",
      start_line: 2,
      end_line: 3,
      total_lines: 4,
      truncated: true,
    });
    expect(output_of<ReadOutput>(await h.call("fs.read", { path: "crlf.txt", offset: 4 }))).toMatchObject({ content: "d", start_line: 4, end_line: 4 });
    expect(output_of<ReadOutput>(await h.call("fs.read", { path: "crlf.txt", offset: 9 }))).toMatchObject({ content: "", start_line: 0, end_line: 0 });
  });

  it("a missing file, a folder and a binary file are tool errors recorded as failed runs", async () => {
    write(h.root, "bin.dat", "\0\x01\x02");
    fs.mkdirSync(path.join(h.root, "folder"));
    for (const [target, pattern] of [
      ["missing.txt", /does not exist/],
      ["folder", /is a folder/],
      ["bin.dat", /binary/],
    ] as const) {
      const error = error_of(await h.call("fs.read", { path: target }));
      expect(error.kind).toBe("tool_error");
      expect(error.message).toMatch(pattern);
      expect(error.user_action).toBeTruthy();
    }
    expect(h.tool_runs().map((run) => run.status)).toEqual(["error", "error", "error"]);
    expect(h.events("tool.failed")).toHaveLength(3);
  });
});

describe("fs.edit refusals (nothing written, run ended as error)", () => {
  beforeEach(() => {
    write(h.root, "src/code.ts", "const a = 1;\nconst b = 1;\n");
  });

  function expect_refused(outcome: Awaited<ReturnType<ToolHarness["call"]>>, pattern: RegExp) {
    const error = error_of(outcome);
    expect(error.kind).toBe("tool_error");
    expect(error.message).toMatch(pattern);
    expect(error.user_action).toBeTruthy();
    expect(outcome.tool_run_id).toBeDefined();
    const run = h.tool_runs().find((row) => row.id === outcome.tool_run_id);
    expect(run).toMatchObject({ tool_name: "fs.edit", status: "error" });
    expect(h.tool_runs().filter((row) => row.status === "running")).toEqual([]);
    expect(h.artifacts().filter((row) => row.type === "diff")).toEqual([]);
    expect(h.events("tool.failed").map((event) => event.payload.tool_run_id)).toContain(outcome.tool_run_id);
    return error;
  }

  it("without a prior read", async () => {
    expect_refused(await h.call("fs.edit", { path: "src/code.ts", old_string: "const a = 1;", new_string: "const a = 2;" }), /has not been read/);
    expect(read("src/code.ts")).toBe("const a = 1;\nconst b = 1;\n");
  });

  it("with a non-unique old_string", async () => {
    output_of(await h.call("fs.read", { path: "src/code.ts" }));
    const error = expect_refused(await h.call("fs.edit", { path: "src/code.ts", old_string: " = 1;", new_string: " = 2;" }), /occurs 2 times/);
    expect(error.metadata).toMatchObject({ occurrences: 2 });
    expect(read("src/code.ts")).toBe("const a = 1;\nconst b = 1;\n");
  });

  it("with an old_string that is not there (no indentation guessing)", async () => {
    output_of(await h.call("fs.read", { path: "src/code.ts" }));
    expect_refused(await h.call("fs.edit", { path: "src/code.ts", old_string: "const  a = 1;", new_string: "x" }), /not found/);
    expect(read("src/code.ts")).toBe("const a = 1;\nconst b = 1;\n");
  });

  it("when the file changed since it was read", async () => {
    output_of(await h.call("fs.read", { path: "src/code.ts" }));
    fs.writeFileSync(path.join(h.root, "src/code.ts"), "const a = 1;\nconst b = 1;\n// someone else\n");
    expect_refused(await h.call("fs.edit", { path: "src/code.ts", old_string: "const a = 1;", new_string: "const a = 2;" }), /changed since it was read/);
    expect(read("src/code.ts")).toBe("const a = 1;\nconst b = 1;\n// someone else\n");
  });

  it("when another agent read it (observations are per agent)", async () => {
    const reader = new_id("agent");
    const editor = new_id("agent");
    output_of(await h.call("fs.read", { path: "src/code.ts" }, { agent_id: reader }));
    expect_refused(
      await h.call("fs.edit", { path: "src/code.ts", old_string: "const a = 1;", new_string: "const a = 2;" }, { agent_id: editor }),
      /has not been read/,
    );
    output_of(await h.call("fs.edit", { path: "src/code.ts", old_string: "const a = 1;", new_string: "const a = 2;" }, { agent_id: reader }));
  });

  it("when expected_sha256 does not match", async () => {
    expect_refused(
      await h.call("fs.edit", { path: "src/code.ts", old_string: "const a = 1;", new_string: "const a = 2;", expected_sha256: sha256("something else") }),
      /not the expected version/,
    );
    expect(read("src/code.ts")).toBe("const a = 1;\nconst b = 1;\n");
  });

  it("when the file is not valid UTF-8 (its decoded text would lose bytes)", async () => {
    fs.writeFileSync(path.join(h.root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café\n" in latin-1
    expect(output_of<{ valid_utf8: boolean }>(await h.call("fs.read", { path: "latin1.txt" })).valid_utf8).toBe(false);
    expect_refused(await h.call("fs.edit", { path: "latin1.txt", old_string: "caf", new_string: "tea" }), /not valid UTF-8/);
    expect(fs.readFileSync(path.join(h.root, "latin1.txt"))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it("with old_string equal to new_string, or empty (schema)", async () => {
    output_of(await h.call("fs.read", { path: "src/code.ts" }));
    expect_refused(await h.call("fs.edit", { path: "src/code.ts", old_string: "const a", new_string: "const a" }), /nothing to change/);
    const schema_error = error_of(await h.call("fs.edit", { path: "src/code.ts", old_string: "", new_string: "x" }));
    expect(schema_error.message).toMatch(/input of fs.edit fails its schema/);
  });
});

describe("fs.edit success", () => {
  it("replaces atomically, keeps the mode, records a diff artifact, evidence and tool.completed", async () => {
    const file = write(h.root, "src/run.sh", "#!/bin/sh\necho hello world\n");
    fs.chmodSync(file, 0o755);
    const inode_before = fs.statSync(file).ino;
    output_of(await h.call("fs.read", { path: "src/run.sh" }));
    const outcome = await h.call("fs.edit", { path: "src/run.sh", old_string: "hello world", new_string: "hello there" });
    const output = output_of<EditOutput>(outcome);

    expect(read("src/run.sh")).toBe("#!/bin/sh\necho hello there\n");
    expect(output).toMatchObject({ path: "src/run.sh", replacements: 1, sha256: sha256("#!/bin/sh\necho hello there\n") });
    // temp + rename: a new inode took the name, no temp file is left, the mode was carried over.
    expect(fs.statSync(file).ino).not.toBe(inode_before);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["run.sh"]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);

    const [artifact] = h.artifacts();
    expect(artifact).toMatchObject({
      id: output.diff_artifact_id,
      type: "diff",
      tool_run_id: outcome.tool_run_id,
      entity_type: "file",
      entity_id: "src/run.sh",
    });
    const diff = h.artifact_text(output.diff_artifact_id);
    expect(diff).toContain("--- a/src/run.sh");
    expect(diff).toContain("+++ b/src/run.sh");
    expect(diff).toContain("-echo hello world");
    expect(diff).toContain("+echo hello there");

    expect(effects_of(outcome)).toEqual({ changed_files: ["src/run.sh"], diff_artifact_ids: [output.diff_artifact_id], command_runs: [], commits: [] });

    const completed = h.events("tool.completed").find((event) => event.payload.tool_run_id === outcome.tool_run_id);
    expect(completed!.payload.artifact_ids).toEqual([output.diff_artifact_id]);
    expect(completed!.payload.evidence_ids).toHaveLength(1);
    expect(h.tool_runs().find((run) => run.id === outcome.tool_run_id)).toMatchObject({ status: "ok", artifact_ids_json: [output.diff_artifact_id] });
    expect(
      h
        .events()
        .map((event) => event.type)
        .slice(-6),
    ).toEqual(["permission.decision.recorded", "tool.started", "snapshot.taken", "artifact.created", "evidence.created", "tool.completed"]);
  });

  it("replace_all replaces every occurrence; a following edit needs no new read (the observation moves on)", async () => {
    write(h.root, "a.txt", "x x x\n");
    output_of(await h.call("fs.read", { path: "a.txt" }));
    expect(output_of<EditOutput>(await h.call("fs.edit", { path: "a.txt", old_string: "x", new_string: "y", replace_all: true })).replacements).toBe(3);
    output_of(await h.call("fs.edit", { path: "a.txt", old_string: "y y y", new_string: "z" }));
    expect(read("a.txt")).toBe("z\n");
  });

  it("`$` patterns in new_string are inserted literally", async () => {
    write(h.root, "a.txt", "price\n");
    output_of(await h.call("fs.read", { path: "a.txt" }));
    output_of(await h.call("fs.edit", { path: "a.txt", old_string: "price", new_string: "$& $1 $$" }));
    expect(read("a.txt")).toBe("$& $1 $$\n");
  });

  it("expected_sha256 stands in for a prior read", async () => {
    write(h.root, "a.txt", "old\n");
    output_of(await h.call("fs.edit", { path: "a.txt", old_string: "old", new_string: "new", expected_sha256: sha256("old\n") }));
    expect(read("a.txt")).toBe("new\n");
  });
});

describe("fs.write", () => {
  it("creates a file (and its folders) with a diff artifact from /dev/null", async () => {
    const outcome = await h.call("fs.write", { path: "src/deep/new.txt", content: "hello\n" });
    const output = output_of<WriteOutput>(outcome);
    expect(output).toMatchObject({ path: "src/deep/new.txt", created: true, changed: true, sha256: sha256("hello\n") });
    expect(effects_of(outcome)).toMatchObject({ changed_files: ["src/deep/new.txt"], diff_artifact_ids: [output.diff_artifact_id] });
    expect(read("src/deep/new.txt")).toBe("hello\n");
    const diff = h.artifact_text(output.diff_artifact_id!);
    expect(diff).toContain("--- /dev/null");
    expect(diff).toContain("+hello");
  });

  it("overwriting requires a prior read and an unchanged file", async () => {
    write(h.root, "a.txt", "first\n");
    expect(error_of(await h.call("fs.write", { path: "a.txt", content: "second\n" })).message).toMatch(/has not been read/);
    expect(read("a.txt")).toBe("first\n");

    output_of(await h.call("fs.read", { path: "a.txt" }));
    fs.writeFileSync(path.join(h.root, "a.txt"), "changed behind our back\n");
    expect(error_of(await h.call("fs.write", { path: "a.txt", content: "second\n" })).message).toMatch(/changed since it was read/);
    expect(read("a.txt")).toBe("changed behind our back\n");

    output_of(await h.call("fs.read", { path: "a.txt" }));
    const output = output_of<WriteOutput>(await h.call("fs.write", { path: "a.txt", content: "second\n" }));
    expect(output).toMatchObject({ created: false, changed: true });
    expect(read("a.txt")).toBe("second\n");
    expect(h.artifact_text(output.diff_artifact_id!)).toContain("-changed behind our back");
  });

  it("writing the same content changes nothing and records no diff", async () => {
    write(h.root, "a.txt", "same\n");
    output_of(await h.call("fs.read", { path: "a.txt" }));
    const outcome = await h.call("fs.write", { path: "a.txt", content: "same\n" });
    expect(output_of<WriteOutput>(outcome)).toMatchObject({ changed: false });
    expect(effects_of(outcome)).toMatchObject({ changed_files: [], diff_artifact_ids: [] });
    expect(h.artifacts()).toEqual([]);
  });
});

describe("fs.list", () => {
  beforeEach(() => {
    write(h.root, "src/a.ts", "a");
    write(h.root, "src/lib/b.ts", "bb");
    write(h.root, ".git/HEAD", "ref\n");
    fs.symlinkSync(path.join(h.root, "src"), path.join(h.root, "src-link"));
  });

  type ListOutput = { path: string; entries: { path: string; type: string; size_bytes?: number }[]; truncated: boolean };

  it("lists one level with types and sizes", async () => {
    const output = output_of<ListOutput>(await h.call("fs.list", { path: "src" }));
    expect(output).toEqual({
      path: "src",
      entries: [
        { path: "src/a.ts", type: "file", size_bytes: 1 },
        { path: "src/lib", type: "directory" },
      ],
      truncated: false,
    });
  });

  it("depth descends folders but not symlinks or .git", async () => {
    const output = output_of<ListOutput>(await h.call("fs.list", { depth: 3 }));
    const paths = output.entries.map((entry) => `${entry.path}:${entry.type}`);
    expect(output.path).toBe(".");
    expect(paths).toContain("src/lib/b.ts:file");
    expect(paths).toContain("src-link:symlink");
    expect(paths).toContain(".git:directory");
    expect(paths.some((entry) => entry.startsWith(".git/"))).toBe(false);
    expect(paths.some((entry) => entry.startsWith("src-link/"))).toBe(false);
  });

  it("a file is not a folder", async () => {
    expect(error_of(await h.call("fs.list", { path: "src/a.ts" })).message).toMatch(/not a folder/);
  });
});

/**
 * Snapshots of the project's checkout in the backups repository, and the restore primitives on them
 * (issue 17): real git, real files in a temp project that is not a git repository itself.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { is_air_failure } from "../../src/contracts/errors.js";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { apply_restore, plan_restore } from "../../src/project/snapshot-restore.js";
import { MAX_SNAPSHOT_FILE_BYTES } from "../../src/project/snapshot-paths.js";
import { SnapshotStore } from "../../src/project/snapshot-store.js";
import { scrub_env } from "../../src/tools/shell/env.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
let store: SnapshotStore;
let root: string;
let session_id: SessionId;

beforeEach(() => {
  temp = temp_project();
  store = SnapshotStore.for_project(temp.project.layout);
  root = fs.realpathSync(temp.project.layout.root);
  session_id = new_id("session");
});
afterEach(() => temp.cleanup());

function put(relative: string, content: string | Buffer): string {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function read(relative: string): string {
  return fs.readFileSync(path.join(root, relative), "utf8");
}

/** git on the backups repository, as a reader from outside would run it. */
function backups_git(...args: string[]): string {
  return execFileSync("git", [`--git-dir=${path.join(temp.project.layout.backups, ".git")}`, ...args], {
    env: { ...scrub_env(process.env), GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}

function blob_count(): number {
  return backups_git("cat-file", "--batch-all-objects", "--batch-check=%(objecttype)")
    .split("\n")
    .filter((type) => type === "blob").length;
}

function tree_paths(tree: string): string[] {
  return backups_git("ls-tree", "-r", "-z", "--name-only", tree).split("\0").filter(Boolean).sort();
}

async function failure_of(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!is_air_failure(error)) throw new Error(`expected an AirError, got ${String(error)}`);
  return error.error;
}

/** A change as a command makes it: a snapshot of the whole checkout before, `change()`, one after. */
async function command_change(change: () => void) {
  const before = await store.take({ root, session_id, cause: "command", phase: "before" });
  change();
  const after = await store.take({ root, session_id, cause: "command", phase: "after", before });
  return { before, after };
}

describe("SnapshotStore.take", () => {
  it("stores a file's bytes once: a second snapshot of unchanged files adds no blob, a changed file adds one", async () => {
    for (let index = 0; index < 50; index += 1) put(`src/file-${index}.txt`, `content ${index}\n`);
    await store.take({ root, session_id, cause: "command", phase: "before" });
    const after_first = blob_count();
    expect(after_first).toBe(50);

    await store.take({ root, session_id, cause: "command", phase: "before" });
    expect(blob_count()).toBe(after_first);

    put("src/file-7.txt", "changed\n");
    const third = await store.take({ root, session_id, cause: "tool", phase: "before", paths: ["src/file-7.txt"] });
    expect(blob_count()).toBe(after_first + 1);
    expect(third).toMatchObject({ holds: "paths", paths: ["src/file-7.txt"] });
    expect(tree_paths(third.tree)).toEqual(["src/file-7.txt"]);
    expect(backups_git("cat-file", "blob", `${third.commit}:src/file-7.txt`)).toBe("changed\n");
  });

  it("leaves out ignored files, .git/info/exclude entries, build output, dependencies and .air", async () => {
    put(".gitignore", "*.log\n/generated/\n");
    put("src/main.cpp", "int main() {}\n");
    put("run.log", "log\n");
    put("generated/out.txt", "out\n");
    put("local-only.txt", "mine\n");
    put(".git/info/exclude", "local-only.txt\n");
    put("build/CMakeCache.txt", "CMAKE\n");
    put("build/calc_test", "\x7fELF");
    put("node_modules/pkg/index.js", "module.exports = 1;\n");
    put("cmake-build-debug/obj.o", "o");
    const { before } = await command_change(() => undefined);
    expect(tree_paths(before.tree)).toEqual([".gitignore", "src/main.cpp"]);
  });

  it("leaves out what the cpp-fix fixture's cmake build leaves in build/", async () => {
    fs.cpSync(fileURLToPath(new URL("../../fixtures/cpp-fix/project", import.meta.url)), root, { recursive: true });
    const sources = ["CMakeLists.txt", "src/calc.cpp", "src/calc.h", "tests/calc_test.cpp"];
    put("build/CMakeFiles/calc.dir/src/calc.cpp.o", "obj");
    put("build/Testing/Temporary/LastTest.log", "ok");
    put("build/compile_commands.json", "[]");
    const { before } = await command_change(() => undefined);
    expect(tree_paths(before.tree)).toEqual(sources);
  });

  it("records what a command created, changed and deleted", async () => {
    put("src/calc.cpp", "for (i = 1; i < n; ++i)\n");
    put("src/old.txt", "old\n");
    const { after } = await command_change(() => {
      put("src/calc.cpp", "for (i = 1; i <= n; ++i)\n");
      put("gen/version.h", "#define V 2\n");
      fs.rmSync(path.join(root, "src/old.txt"));
    });
    expect(after.paths.sort()).toEqual(["gen/version.h", "src/calc.cpp", "src/old.txt"]);
    expect(await store.list({ session_id })).toEqual([expect.objectContaining({ phase: "before" }), after]);
    expect(await store.list({ since: after.created_at })).toEqual([after]);
    expect(await store.list({ until: after.created_at, root })).toEqual([expect.objectContaining({ snapshot_id: after.before_snapshot_id })]);
  });

  it("keeps a file's bytes exactly, whatever the project's .gitattributes say", async () => {
    put(".gitattributes", "* text=auto eol=lf\n*.txt ident filter=lfs\n");
    const crlf = Buffer.from("line one\r\n$Id$\r\nline two\r\n");
    put("notes.txt", crlf);
    const { before } = await command_change(() => put("notes.txt", "replaced\n"));
    const state = (await store.states_at(before, ["notes.txt"])).get("notes.txt");
    if (state?.kind !== "file") throw new Error(`expected a file, got ${JSON.stringify(state)}`);
    expect((await store.read_blobs([state.oid])).get(state.oid)).toEqual(crlf);
  });

  it("refuses paths outside the root, lexically or through a symlinked folder", async () => {
    const outside = path.join(temp.root, "outside");
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(root, "escape"));
    for (const input of ["../outside/x.txt", path.join(outside, "x.txt"), "escape/x.txt"]) {
      const error = await failure_of(store.take({ root, session_id, cause: "tool", phase: "before", paths: [input] }));
      expect(error.kind, input).toBe("user_error");
    }
    expect(await store.list()).toEqual([]);
  });

  it("snapshots a symlink that points outside as a link, never the file it points to", async () => {
    const secret = path.join(temp.root, "secret.txt");
    fs.writeFileSync(secret, "outside secret\n");
    fs.symlinkSync(secret, path.join(root, "link"));
    const { before } = await command_change(() => undefined);
    const state = (await store.states_at(before, ["link"])).get("link");
    if (state?.kind !== "symlink") throw new Error(`expected a symlink, got ${JSON.stringify(state)}`);
    expect((await store.read_blobs([state.oid])).get(state.oid)?.toString()).toBe(secret);
  });

  it("is not stopped by files git would take for its own, and never stores them", async () => {
    put(".GIT", "gitdir: /etc\n");
    put("sub/.git", "gitdir: /nonexistent\n");
    put("sub/file.txt", "in sub\n");
    put("git~1/config", "[core]\n\thooksPath = /tmp\n");
    put(".gitfoo", "an ordinary file\n");
    put(".github/workflows/ci.yml", "on: push\n");
    const { before } = await command_change(() => undefined);
    expect(tree_paths(before.tree)).toEqual([".gitfoo", ".github/workflows/ci.yml", "sub/file.txt"]);
  });

  it("leaves out a file over the size cap, names it, and a restore refuses to guess it", async () => {
    const huge = path.join(root, "disk.img");
    fs.writeFileSync(huge, "");
    fs.truncateSync(huge, MAX_SNAPSHOT_FILE_BYTES + 1);
    const at = new Date().toISOString();
    const { before } = await command_change(() => fs.truncateSync(huge, 10));
    expect(before.skipped).toEqual([{ path: "disk.img", size_bytes: MAX_SNAPSHOT_FILE_BYTES + 1 }]);
    const plan = await plan_restore(store, { root, target: { kind: "time", at } });
    expect(plan.files).toEqual([]);
    expect(plan.unrestorable).toEqual([{ path: "disk.img", reason: expect.stringContaining("larger than") }]);
  });

  it("purges one session's snapshots and their objects, and keeps another's", async () => {
    const other: SessionId = new_id("session");
    put("kept.txt", "kept\n");
    await store.take({ root, session_id: other, cause: "command", phase: "before" });
    put("purged.txt", "only in the purged session\n");
    const purged = await store.take({ root, session_id, cause: "command", phase: "before" });
    const blob = backups_git("rev-parse", `${purged.tree}:purged.txt`).trim();

    expect(await store.purge_session(session_id)).toEqual({ removed: 1 });
    expect(await store.list({ session_id })).toEqual([]);
    expect(await store.list({ session_id: other })).toHaveLength(1);
    expect(() => backups_git("cat-file", "-e", blob)).toThrow();
    put("after.txt", "after the purge\n");
    const next = await store.take({ root, session_id: other, cause: "command", phase: "before" });
    expect(tree_paths(next.tree)).toEqual(["after.txt", "kept.txt", "purged.txt"]);
  });
});

describe("plan_restore and apply_restore", () => {
  it("brings back a changed, a generated and a deleted file, and leaves a user's edit outside them alone", async () => {
    put("src/calc.cpp", "original\n");
    put("src/removed.txt", "removed by the command\n");
    put("notes/user.md", "user text\n");
    const at = new Date().toISOString();
    await command_change(() => {
      put("src/calc.cpp", "changed by air\n");
      put("gen/out.h", "generated\n");
      fs.rmSync(path.join(root, "src/removed.txt"));
    });
    put("notes/user.md", "the user's edit after air's change\n");

    const plan = await plan_restore(store, { root, target: { kind: "time", at } });
    expect(plan.files.map((file) => [file.path, file.current.kind, file.restored.kind])).toEqual([
      ["gen/out.h", "file", "absent"],
      ["src/calc.cpp", "file", "file"],
      ["src/removed.txt", "absent", "file"],
    ]);
    await apply_restore(store, plan, { session_id });
    expect(read("src/calc.cpp")).toBe("original\n");
    expect(read("src/removed.txt")).toBe("removed by the command\n");
    expect(fs.existsSync(path.join(root, "gen"))).toBe(false);
    expect(read("notes/user.md")).toBe("the user's edit after air's change\n");
  });

  it("restores to the state before air first touched a file, through several changes", async () => {
    put("a.txt", "v0\n");
    const first = await store.take({ root, session_id, cause: "tool", phase: "before", paths: ["a.txt"], links: { tool_run_id: new_id("tool_run") } });
    put("a.txt", "v1\n");
    await store.take({ root, session_id, cause: "tool", phase: "before", paths: ["a.txt"] });
    put("a.txt", "v2\n");
    const plan = await plan_restore(store, { root, target: { kind: "run", run_id: first.tool_run_id! } });
    expect(plan.files).toEqual([expect.objectContaining({ path: "a.txt", snapshot_id: first.snapshot_id })]);
    await apply_restore(store, plan, { session_id });
    expect(read("a.txt")).toBe("v0\n");
  });

  it("can undo a restore, back to the state the restore replaced", async () => {
    put("a.txt", "before air\n");
    const at = new Date().toISOString();
    await command_change(() => {
      put("a.txt", "air's version\n");
      put("new.txt", "made by air\n");
    });
    const applied = await apply_restore(store, await plan_restore(store, { root, target: { kind: "time", at } }), { session_id });
    expect(applied.after.paths.sort()).toEqual(["a.txt", "new.txt"]);
    expect(fs.existsSync(path.join(root, "new.txt"))).toBe(false);

    const undo = await plan_restore(store, { root, target: { kind: "snapshot", snapshot_id: applied.before.snapshot_id } });
    await apply_restore(store, undo, { session_id });
    expect(read("a.txt")).toBe("air's version\n");
    expect(read("new.txt")).toBe("made by air\n");
  });

  it("restores one file only when asked for it, and only a session's own changes when asked for the session", async () => {
    put("a.txt", "a0\n");
    put("b.txt", "b0\n");
    const other: SessionId = new_id("session");
    const at = new Date().toISOString();
    await command_change(() => put("a.txt", "a1\n"));
    const before_other = await store.take({ root, session_id: other, cause: "command", phase: "before" });
    put("b.txt", "b1\n");
    await store.take({ root, session_id: other, cause: "command", phase: "after", before: before_other });

    const one = await plan_restore(store, { root, target: { kind: "time", at }, paths: ["b.txt"] });
    expect(one.files.map((file) => file.path)).toEqual(["b.txt"]);
    const own = await plan_restore(store, { root, target: { kind: "session", session_id } });
    expect(own.files.map((file) => file.path)).toEqual(["a.txt"]);
  });

  it("refuses to apply a plan whose files changed since it was made, and changes nothing", async () => {
    put("a.txt", "a0\n");
    put("b.txt", "b0\n");
    const at = new Date().toISOString();
    await command_change(() => {
      put("a.txt", "a1\n");
      put("b.txt", "b1\n");
    });
    const plan = await plan_restore(store, { root, target: { kind: "time", at } });
    put("b.txt", "b2 by the user\n");
    const error = await failure_of(apply_restore(store, plan, { session_id }));
    expect(error.message).toContain("b.txt changed since the restore was planned");
    expect([read("a.txt"), read("b.txt")]).toEqual(["a1\n", "b2 by the user\n"]);
  });

  it("refuses a restore path outside the root, and a restore that would write through a symlinked folder", async () => {
    put("dir/a.txt", "a0\n");
    const at = new Date().toISOString();
    await command_change(() => put("dir/a.txt", "a1\n"));
    const error = await failure_of(plan_restore(store, { root, target: { kind: "time", at }, paths: ["../../etc/passwd"] }));
    expect(error.kind).toBe("user_error");

    const outside = path.join(temp.root, "outside");
    fs.mkdirSync(outside);
    fs.rmSync(path.join(root, "dir"), { recursive: true });
    fs.symlinkSync(outside, path.join(root, "dir"));
    const through = await failure_of(plan_restore(store, { root, target: { kind: "time", at } }));
    expect(through.message).toContain("leads outside the root");
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it("puts back a symlink as a symlink, without writing to where it points", async () => {
    const target_file = path.join(temp.root, "target.txt");
    fs.writeFileSync(target_file, "outside\n");
    fs.symlinkSync(target_file, path.join(root, "link"));
    const at = new Date().toISOString();
    await command_change(() => {
      fs.rmSync(path.join(root, "link"));
      put("link", "a regular file now\n");
    });
    await apply_restore(store, await plan_restore(store, { root, target: { kind: "time", at } }), { session_id });
    expect(fs.readlinkSync(path.join(root, "link"))).toBe(target_file);
    expect(fs.readFileSync(target_file, "utf8")).toBe("outside\n");
  });

  it("keeps a restored file's executable bit", async () => {
    put("run.sh", "#!/bin/sh\necho 1\n");
    fs.chmodSync(path.join(root, "run.sh"), 0o755);
    const at = new Date().toISOString();
    await command_change(() => {
      fs.rmSync(path.join(root, "run.sh"));
    });
    await apply_restore(store, await plan_restore(store, { root, target: { kind: "time", at } }), { session_id });
    expect(fs.statSync(path.join(root, "run.sh")).mode & 0o111).not.toBe(0);
  });
});

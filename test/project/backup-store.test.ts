/**
 * The git-backed backup store (seeds 003 §12 rule 7, DESIGN §9): real git, real files in temp folders,
 * real concurrent processes.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { is_air_failure } from "../../src/contracts/errors.js";
import { BackupStore } from "../../src/project/backup-store.js";
import { scrub_env } from "../../src/tools/shell/env.js";
import { Child } from "../fixtures/processes.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
let store: BackupStore;
/** A folder outside the project (the case backups exist for). */
let outside: string;

beforeEach(() => {
  temp = temp_project();
  store = BackupStore.for_project(temp.project.layout);
  outside = fs.mkdtempSync(path.join(os.tmpdir(), "air-outside-"));
});
afterEach(() => {
  temp.cleanup();
  fs.rmSync(outside, { recursive: true, force: true });
});

function git_in(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { env: scrub_env(process.env), encoding: "utf8" });
}

async function failure_of(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!is_air_failure(error)) throw new Error(`expected an AirError, got ${String(error)}`);
  return error.error;
}

function sha256(bytes: Buffer): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

describe("BackupStore.backup and restore", () => {
  it("restores the original bytes and permission bits of a file that was modified after its backup", async () => {
    const file = path.join(temp.project.layout.root, "src", "main.c");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "int main() { return 0; }\n", { mode: 0o640 });
    fs.chmodSync(file, 0o640);
    const record = await store.backup([file], { reason: "fs.write src/main.c" });
    expect(record.files).toEqual([
      { original_path: file, existed: true, sha256: sha256(Buffer.from("int main() { return 0; }\n")), size_bytes: 25, mode: 0o640 },
    ]);

    fs.writeFileSync(file, "int main() { return 1; }\n");
    fs.chmodSync(file, 0o600);
    const restored = await store.restore(record.backup_id);
    expect(fs.readFileSync(file, "utf8")).toBe("int main() { return 0; }\n");
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(restored.backup_id).toBe(record.backup_id);
  });

  it("backs up and restores a file outside the project", async () => {
    const file = path.join(outside, "etc", "app.conf");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "port = 80\n");
    const record = await store.backup([file], { reason: "outside write", tool_run_id: "tlr_x", session_id: "ses_y" });
    fs.writeFileSync(file, "port = 8080\n");
    await store.restore(record.backup_id);
    expect(fs.readFileSync(file, "utf8")).toBe("port = 80\n");
  });

  it("records a file that did not exist, and restoring deletes the file created since", async () => {
    const file = path.join(outside, "new", "created.txt");
    const record = await store.backup([file], { reason: "create" });
    expect(record.files).toEqual([{ original_path: file, existed: false }]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "created later\n");
    await store.restore(record.backup_id);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("recreates a file whose folder was deleted since the backup", async () => {
    const file = path.join(outside, "gone", "deep", "file.txt");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "keep me\n");
    const record = await store.backup([file], { reason: "before rm -r" });
    fs.rmSync(path.join(outside, "gone"), { recursive: true });
    await store.restore(record.backup_id);
    expect(fs.readFileSync(file, "utf8")).toBe("keep me\n");
  });

  it("restores a large binary file byte for byte (NULs, CR LF, invalid UTF-8)", async () => {
    const file = path.join(outside, "blob.bin");
    const bytes = Buffer.concat([crypto.randomBytes(12 * 1024 * 1024), Buffer.from("\r\n\0\xff\r\n", "latin1")]);
    fs.writeFileSync(file, bytes);
    const record = await store.backup([file], { reason: "large" });
    expect(record.files[0]!.sha256).toBe(sha256(bytes));
    fs.writeFileSync(file, "replaced");
    await store.restore(record.backup_id);
    expect(sha256(fs.readFileSync(file))).toBe(sha256(bytes));
  });

  it("stores .gitattributes, .gitignore and .git/ files verbatim, and they do not change how other files are stored", async () => {
    const folder = path.join(outside, "repo");
    const files = {
      [path.join(folder, ".gitattributes")]: "* text eol=crlf\n*.txt filter=lfs\n",
      [path.join(folder, ".gitignore")]: "*\n",
      [path.join(folder, ".git", "config")]: "[core]\n\tfsmonitor = /tmp/evil\n",
      [path.join(folder, "notes.txt")]: "line one\nline two\n",
      [path.join(folder, "100%.txt")]: "percent\n",
    };
    fs.mkdirSync(path.join(folder, ".git"), { recursive: true });
    for (const [file, content] of Object.entries(files)) fs.writeFileSync(file, content);
    const record = await store.backup(Object.keys(files), { reason: "git files" });
    for (const file of Object.keys(files)) fs.writeFileSync(file, "changed\n");
    await store.restore(record.backup_id);
    for (const [file, content] of Object.entries(files)) expect(fs.readFileSync(file, "utf8")).toBe(content);
  });

  it("makes every restore undoable and never rewrites history", async () => {
    const file = path.join(outside, "a.txt");
    fs.writeFileSync(file, "one\n");
    const first = await store.backup([file], { reason: "first" });
    fs.writeFileSync(file, "two\n");
    const restored = await store.restore(first.backup_id);
    expect(fs.readFileSync(file, "utf8")).toBe("one\n");
    await store.restore(restored.undo_backup_id);
    expect(fs.readFileSync(file, "utf8")).toBe("two\n");

    const subjects = git_in(store.dir, "log", "--format=%s").trim().split("\n");
    expect(subjects).toHaveLength(5);
    expect(subjects.filter((subject) => subject.startsWith(`air restore ${first.backup_id}`))).toHaveLength(1);
    git_in(store.dir, "merge-base", "--is-ancestor", first.commit_sha, "HEAD");
  });
});

describe("BackupStore.list", () => {
  it("lists every backup newest first with its reason, links and commit", async () => {
    expect(await store.list()).toEqual([]);
    const file = path.join(outside, "a.txt");
    fs.writeFileSync(file, "a\n");
    const first = await store.backup([file], { reason: "first", tool_run_id: "tlr_1", session_id: "ses_1" });
    const second = await store.backup([file, path.join(outside, "missing.txt")], { reason: "second" });
    const listed = await store.list();
    expect(listed.map((record) => record.backup_id)).toEqual([second.backup_id, first.backup_id]);
    expect(listed[1]).toEqual(first);
    expect(listed[0]!.commit_sha).toBe(git_in(store.dir, "rev-parse", "HEAD").trim());
    expect(listed[0]!.files.map((entry) => entry.existed)).toEqual([true, false]);
  });

  it("refuses an unknown backup id", async () => {
    const error = await failure_of(store.restore("bkp_01J9ZQ4X8K2M5N7P9R1T3V5W7Y"));
    expect(error.kind).toBe("user_error");
  });
});

describe("BackupStore: what it refuses and what cannot reach it", () => {
  it("refuses relative paths, folders and symlinks before touching the repository", async () => {
    fs.symlinkSync(path.join(outside, "target"), path.join(outside, "link"));
    for (const bad of ["relative.txt", `${outside}/../x`, outside, path.join(outside, "link")]) {
      expect((await failure_of(store.backup([bad], { reason: "bad" }))).kind).toBe("user_error");
    }
    expect(fs.existsSync(path.join(store.dir, ".git"))).toBe(false);
  });

  it("is a clear env_error when git is not installed", async () => {
    const saved = process.env.PATH;
    process.env.PATH = path.join(outside, "no-bin");
    try {
      const error = await failure_of(store.backup([path.join(outside, "x")], { reason: "no git" }));
      expect(error.kind).toBe("env_error");
      expect(error.message).toMatch(/git is not installed/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("ignores GIT_DIR of the parent and a global config that demands signing, and leaves the project's repository alone", async () => {
    const root = temp.project.layout.root;
    git_in(root, "init", "-q");
    const home = path.join(outside, "home");
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, ".gitconfig"), "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = false\n[core]\n\texcludesFile = /dev/null\n");
    const saved = { HOME: process.env.HOME, GIT_DIR: process.env.GIT_DIR };
    process.env.HOME = home;
    process.env.GIT_DIR = path.join(root, ".git");
    try {
      const file = path.join(root, "README.md");
      fs.writeFileSync(file, "hello\n");
      const record = await store.backup([file], { reason: "hostile env" });
      expect(record.commit_sha).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      process.env.HOME = saved.HOME;
      if (saved.GIT_DIR === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved.GIT_DIR;
    }
    expect(() => git_in(root, "rev-parse", "-q", "--verify", "HEAD")).toThrow();
    expect(git_in(store.dir, "config", "--local", "user.name").trim()).toBe("air backups");
  });
});

describe("BackupStore under concurrency", () => {
  it("serialises concurrent backups of one process, each commit holding exactly its own bytes", async () => {
    const other = BackupStore.for_project(temp.project.layout);
    const files = Array.from({ length: 8 }, (_, index) => path.join(outside, `f${index}.txt`));
    for (const [index, file] of files.entries()) fs.writeFileSync(file, `file ${index}\n`);
    const records = await Promise.all(files.map((file, index) => (index % 2 === 0 ? store : other).backup([file], { reason: `#${index}` })));
    expect(new Set(records.map((record) => record.commit_sha)).size).toBe(8);
    expect(await store.list()).toHaveLength(8);
  });

  it("two processes backing up at the same instant both succeed and leave a consistent repository", async () => {
    const lock_file = path.join(temp.project.layout.locks, "backups.lock");
    const writers = ["a", "b"].map((name) => new Child("backup-writer.ts", [store.dir, lock_file, path.join(outside, `${name}.txt`), "6"]));
    await Promise.all(writers.map((writer) => writer.line((line) => line === "ready")));
    for (const writer of writers) writer.send("go");
    const exits = await Promise.all(writers.map((writer) => writer.exit));
    expect(
      exits.map((exit) => exit.code),
      writers.map((writer) => writer.stderr).join("\n"),
    ).toEqual([0, 0]);

    const listed = await store.list();
    expect(listed).toHaveLength(12);
    for (const record of listed) {
      const file = record.files[0]!;
      const stored = execFileSync("git", ["-C", store.dir, "show", `${record.commit_sha}:files${file.original_path}`], { env: scrub_env(process.env) });
      expect(sha256(stored)).toBe(file.sha256);
    }
    git_in(store.dir, "fsck", "--strict", "--no-progress");
  });
});

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { air_failure } from "../contracts/errors.js";

/**
 * Writes git objects and refs of the backups repository directly, in git's loose-object and loose-ref
 * formats (stable since git's first releases), for the one path that must be cheap: a file tool's snapshot
 * before each edit. Four git spawns there (update-index, write-tree, commit-tree, update-ref) cost more than
 * the 20 ms an edit may spend; writing a blob, a few small trees and a commit from here costs well under
 * one. Reading stays with git (packed objects, `ls-tree`, `cat-file`); every write here happens under the
 * backups lock, which every writer of the repository holds.
 */

/** A tree entry: a file's mode as git writes it, its name, and the object it points to. */
export type TreeEntry = { readonly mode: "100644" | "100755" | "120000" | "40000"; readonly name: string; readonly oid: string };

function write_object(git_dir: string, type: "blob" | "tree" | "commit", body: Uint8Array): string {
  const header = Buffer.from(`${type} ${body.length}\0`);
  const oid = crypto.createHash("sha1").update(header).update(body).digest("hex");
  const file = path.join(git_dir, "objects", oid.slice(0, 2), oid.slice(2));
  if (fs.existsSync(file)) return oid;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
  fs.writeFileSync(temp, zlib.deflateSync(Buffer.concat([header, body])), { mode: 0o444 });
  fs.renameSync(temp, file);
  return oid;
}

export function write_blob(git_dir: string, bytes: Uint8Array): string {
  return write_object(git_dir, "blob", bytes);
}

/** git orders a tree's entries by name, a folder's name as if it ended in `/`. */
function sort_key(entry: TreeEntry): string {
  return entry.mode === "40000" ? `${entry.name}/` : entry.name;
}

export function write_tree(git_dir: string, entries: readonly TreeEntry[]): string {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(sort_key(a)), Buffer.from(sort_key(b))));
  const body = Buffer.concat(sorted.flatMap((entry) => [Buffer.from(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.oid, "hex")]));
  return write_object(git_dir, "tree", body);
}

export function write_commit(git_dir: string, commit: { readonly tree: string; readonly parent?: string; readonly message: string }): string {
  const seconds = Math.floor(Date.now() / 1000);
  const identity = `air snapshots <snapshots@air.invalid> ${seconds} +0000`;
  const lines = [`tree ${commit.tree}`, ...(commit.parent === undefined ? [] : [`parent ${commit.parent}`]), `author ${identity}`, `committer ${identity}`];
  return write_object(git_dir, "commit", Buffer.from(`${lines.join("\n")}\n\n${commit.message}`));
}

/** A ref's commit, from its loose file or else `packed-refs`. */
export function read_ref(git_dir: string, ref: string): string | undefined {
  const loose = path.join(git_dir, ref);
  if (fs.existsSync(loose)) return fs.readFileSync(loose, "utf8").trim();
  const packed = path.join(git_dir, "packed-refs");
  if (!fs.existsSync(packed)) return undefined;
  const line = fs
    .readFileSync(packed, "utf8")
    .split("\n")
    .find((candidate) => candidate.endsWith(` ${ref}`));
  return line?.split(" ")[0];
}

/**
 * Moves `ref` to `oid` if it still points at `expected` (undefined: it must not exist), through git's own
 * `<ref>.lock` protocol, so a git that updates refs meanwhile (`gc` packing them) is never overwritten.
 */
export function update_ref(git_dir: string, ref: string, oid: string, expected: string | undefined): void {
  const file = path.join(git_dir, ref);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lock = `${file}.lock`;
  fs.writeFileSync(lock, `${oid}\n`, { flag: "wx" });
  try {
    const current = read_ref(git_dir, ref);
    if (current !== expected) {
      throw air_failure({
        kind: "system_error",
        message: `${ref} moved to ${current ?? "nothing"} while a snapshot was being recorded on ${expected ?? "nothing"}`,
        retryability: "retryable",
        user_action: "Take the snapshot again; another process changed the backups repository without its lock.",
      });
    }
    fs.renameSync(lock, file);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

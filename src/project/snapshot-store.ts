import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import type { RestoreTarget } from "../contracts/events/restore.js";
import type { SnapshotCause, SnapshotPhase } from "../contracts/events/snapshot.js";
import { new_id, now_iso } from "../contracts/ids.js";
import { git_at, run_git_at, run_git_bytes, type BackupGitTarget } from "./backup-git.js";
import { with_backup_repository } from "./backup-repository.js";
import { read_ref, update_ref, write_blob, write_commit, write_tree, type TreeEntry } from "./git-objects.js";
import type { ProjectLayout } from "./layout.js";
import { checked_session_id } from "./session-id.js";
import { parse_snapshot_log, snapshot_message, type SkippedFile, type SnapshotLinks, type SnapshotRecord } from "./snapshot-manifest.js";
import { build_output_folders, inside_root, is_excluded, lstat_entry, MAX_SNAPSHOT_FILE_BYTES } from "./snapshot-paths.js";

const REF_PREFIX = "refs/air/snapshots/";
/** Snapshots taken between two `git gc --auto` (objects written here, unlike by `git commit`, never start one). */
const GC_EVERY = 200;

export type SnapshotRequest = {
  /** The folder to snapshot: the project's checkout. */
  readonly root: string;
  readonly session_id: string;
  readonly cause: SnapshotCause;
  readonly phase: SnapshotPhase;
  readonly links?: SnapshotLinks;
  /**
   * The paths the change writes, when known (relative to `root` or absolute inside it): only they are looked
   * at, on top of the previous snapshot's state — much cheaper than a scan. Absent: the whole root is scanned.
   */
  readonly paths?: readonly string[];
  /** For an `after` snapshot: the `before` one, so the manifest records the paths whose state changed. */
  readonly before?: SnapshotRecord;
  /** For a restore's snapshots: where it went back to (recorded in the manifest and the commit's subject). */
  readonly restored_to?: RestoreTarget;
};

/** A path's state in a snapshot: what a restore puts back. */
export type FileState =
  | { readonly kind: "absent" }
  | { readonly kind: "file"; readonly oid: string; readonly mode: number }
  | { readonly kind: "symlink"; readonly oid: string }
  /** A nested repository (a gitlink): snapshots do not hold its files. */
  | { readonly kind: "repository" };

export type SnapshotFilter = {
  readonly session_id?: string;
  readonly root?: string;
  /** Taken at or after this time (ISO-8601). */
  readonly since?: string;
  /** Taken before this time (ISO-8601). */
  readonly until?: string;
};

const stores = new Map<string, SnapshotStore>();

function split_z(output: string): string[] {
  return output.split("\0").filter((entry) => entry !== "");
}

function state_of_entry(mode: string, oid: string): FileState {
  if (mode === "120000") return { kind: "symlink", oid };
  if (mode === "160000") return { kind: "repository" };
  return { kind: "file", oid, mode: mode === "100755" ? 0o755 : 0o644 };
}

/** What a scan or a list of named paths gives the index: paths to add or remove, and the ones too large. */
type Staging = { readonly update: string[]; readonly drop: string[]; readonly skipped: SkippedFile[] };

function staging_of(root: string, relatives: Iterable<string>): Staging {
  const staging: Staging = { update: [], drop: [], skipped: [] };
  for (const relative of new Set(relatives)) {
    if (is_excluded(relative)) continue;
    const stat = lstat_entry(path.join(root, relative));
    if (stat === undefined) staging.update.push(relative);
    else if (stat.isDirectory() || !(stat.isFile() || stat.isSymbolicLink())) staging.drop.push(relative);
    else if (stat.size > MAX_SNAPSHOT_FILE_BYTES) {
      staging.drop.push(relative);
      staging.skipped.push({ path: relative, size_bytes: stat.size });
    } else staging.update.push(relative);
  }
  return staging;
}

/**
 * Snapshots of the project's checkout in the backups repository (`.air/local/backups/`, issue 17): the same
 * object store as `BackupStore`, pointed at the project with `--work-tree` and an index file of its own per
 * root, whose stat cache makes unchanged files cost nothing. A snapshot is a commit whose tree is the root's
 * state (a command's) or that of the paths named (a file tool's, `holds: "paths"`), on the session's ref
 * `refs/air/snapshots/<session_id>`, its manifest in the message. The project's
 * `.gitignore` files and `.git/info/exclude` apply; `.air/`, `.git` and build output folders never enter.
 */
export class SnapshotStore {
  #taken = 0;

  constructor(
    /** The backups repository (its work tree; the object store is `<dir>/.git`). */
    readonly dir: string,
    private readonly lock_file: string,
  ) {}

  static for_project(layout: ProjectLayout): SnapshotStore {
    let store = stores.get(layout.backups);
    if (store === undefined) {
      store = new SnapshotStore(layout.backups, path.join(layout.locks, "backups.lock"));
      stores.set(layout.backups, store);
    }
    return store;
  }

  get #git_dir(): string {
    return path.join(this.dir, ".git");
  }

  /** Takes a snapshot; it fails loudly (an AirError) rather than record a state it could not read. */
  async take(request: SnapshotRequest): Promise<SnapshotRecord> {
    const session_id = checked_session_id(request.session_id);
    const root = fs.realpathSync.native(request.root);
    const named = request.paths?.map((input) => inside_root(root, input));
    return with_backup_repository(this.dir, this.lock_file, async () => {
      const { staging, tree } = named === undefined ? await this.#scanned(root) : this.#named(root, named);
      const paths =
        request.before === undefined ? [...new Set(named ?? [])].filter((relative) => !is_excluded(relative)) : await this.#changed(request.before.tree, tree);
      const record: Omit<SnapshotRecord, "commit" | "tree"> = {
        snapshot_id: new_id("snapshot"),
        created_at: now_iso(),
        session_id,
        cause: request.cause,
        phase: request.phase,
        holds: named === undefined ? "root" : "paths",
        root,
        ...request.links,
        ...(request.before === undefined ? {} : { before_snapshot_id: request.before.snapshot_id }),
        ...(request.restored_to === undefined ? {} : { restored_to: request.restored_to }),
        paths,
        skipped: staging.skipped,
      };
      const commit = this.#commit(session_id, tree, snapshot_message(record));
      await this.#maybe_gc();
      return { ...record, commit, tree };
    });
  }

  /** Every snapshot (of one session, of one root, in a time range), oldest first. */
  async list(filter: SnapshotFilter = {}): Promise<SnapshotRecord[]> {
    if (!fs.existsSync(path.join(this.#git_dir, "air-ready"))) return [];
    const target = this.#plain_target();
    const revisions = filter.session_id === undefined ? [`--glob=${REF_PREFIX}*`] : [`${REF_PREFIX}${checked_session_id(filter.session_id)}`];
    const log = await run_git_at(target, ["log", "--format=%H%x00%T%x00%B%x1e", ...revisions, "--"]);
    if (log.code !== 0) return [];
    const root = filter.root === undefined ? undefined : fs.realpathSync.native(filter.root);
    const since = filter.since === undefined ? Number.NEGATIVE_INFINITY : Date.parse(filter.since);
    const until = filter.until === undefined ? Number.POSITIVE_INFINITY : Date.parse(filter.until);
    return parse_snapshot_log(log.stdout)
      .filter((record) => (root === undefined || record.root === root) && Date.parse(record.created_at) >= since && Date.parse(record.created_at) < until)
      .sort((a, b) => (a.snapshot_id < b.snapshot_id ? -1 : a.snapshot_id > b.snapshot_id ? 1 : 0));
  }

  /** The state of each path (`/`-separated, relative to the snapshot's root) in the snapshot's tree. */
  async states_at(record: Pick<SnapshotRecord, "tree">, paths: readonly string[]): Promise<Map<string, FileState>> {
    const states = new Map<string, FileState>(paths.map((relative) => [relative, { kind: "absent" }]));
    const target = this.#plain_target();
    const chunk = 500;
    for (let start = 0; start < paths.length; start += chunk) {
      const listed = await git_at(target, ["ls-tree", "-r", "-z", "--full-tree", record.tree, "--", ...paths.slice(start, start + chunk)]);
      for (const line of split_z(listed)) {
        const tab = line.indexOf("\t");
        const [mode = "", , oid = ""] = line.slice(0, tab).split(" ");
        const relative = line.slice(tab + 1);
        if (states.has(relative)) states.set(relative, state_of_entry(mode, oid));
      }
    }
    return states;
  }

  /** The bytes of blobs (a file's contents, a symlink's target), read in one `git cat-file --batch`. */
  async read_blobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const blobs = new Map<string, Buffer>();
    if (unique.length === 0) return blobs;
    const result = await run_git_bytes(this.#plain_target(), ["cat-file", "--batch"], `${unique.join("\n")}\n`);
    let offset = 0;
    for (const oid of unique) {
      const header_end = result.stdout.indexOf(0x0a, offset);
      const [, type, size] = result.stdout.subarray(offset, header_end).toString("utf8").split(" ");
      if (type !== "blob" || size === undefined) {
        throw air_failure({
          kind: "system_error",
          message: `the backups repository ${this.dir} has no blob ${oid}`,
          retryability: "not_retryable",
          user_action: `Check the repository with \`git --git-dir=${this.#git_dir} fsck\`; nothing was restored.`,
        });
      }
      const start = header_end + 1;
      blobs.set(oid, Buffer.from(result.stdout.subarray(start, start + Number(size))));
      offset = start + Number(size) + 1;
    }
    return blobs;
  }

  /**
   * Deletes a session's snapshots: its ref, then every object nothing else reaches. The per-root indexes go
   * too (they may name blobs only that session held); the next snapshot of a root hashes it afresh.
   */
  async purge_session(session_id: string): Promise<{ removed: number }> {
    const checked = checked_session_id(session_id);
    return with_backup_repository(this.dir, this.lock_file, async () => {
      const removed = (await this.list({ session_id: checked })).length;
      if (removed === 0) return { removed };
      const target = this.#plain_target();
      await git_at(target, ["update-ref", "-d", `${REF_PREFIX}${checked}`]);
      await git_at(target, ["gc", "--quiet", "--prune=now"]);
      fs.rmSync(path.join(this.#git_dir, "air-snapshots"), { recursive: true, force: true });
      return { removed };
    });
  }

  /** The repository with its own work tree: for reads that touch no index. */
  #plain_target(): BackupGitTarget {
    return { git_dir: this.#git_dir, work_tree: this.dir };
  }

  /** The repository pointed at `root`, with the root's own index and excludes (written here when they changed). */
  #target(root: string): BackupGitTarget {
    const folder = path.join(this.#git_dir, "air-snapshots");
    const name = crypto.createHash("sha256").update(root).digest("hex").slice(0, 16);
    fs.mkdirSync(folder, { recursive: true });
    const excludes_file = path.join(folder, `${name}.exclude`);
    const project_exclude = path.join(root, ".git", "info", "exclude");
    const excludes = [
      "/.air/",
      ...build_output_folders(root).map((folder_name) => `/${folder_name}/`),
      fs.existsSync(project_exclude) ? fs.readFileSync(project_exclude, "utf8") : "",
    ].join("\n");
    if (!fs.existsSync(excludes_file) || fs.readFileSync(excludes_file, "utf8") !== excludes) fs.writeFileSync(excludes_file, excludes);
    return {
      git_dir: this.#git_dir,
      work_tree: root,
      index_file: path.join(folder, `${name}.index`),
      config: [
        ["core.excludesFile", excludes_file],
        // The paths are the project's, on this machine's file system: git's Windows and macOS name guards would
        // refuse some of them; the `.git` names they guard against are left out by `is_excluded`.
        ["core.protectNTFS", "false"],
        ["core.protectHFS", "false"],
        ["core.symlinks", "true"],
        ["core.fileMode", "true"],
      ],
    };
  }

  /** What changed in the root since its last snapshot: untracked files not ignored, and tracked ones whose stat differs. */
  async #scan(target: BackupGitTarget, root: string): Promise<Staging> {
    const [untracked, modified] = await Promise.all([
      git_at(target, ["ls-files", "-o", "-z", "--exclude-standard"]),
      git_at(target, ["diff-files", "--name-only", "-z", "--no-renames"]),
    ]);
    // A nested repository is listed as its folder (`sub/`): its files are its own repository's business.
    const candidates = [...split_z(untracked), ...split_z(modified)].filter((relative) => !relative.endsWith("/"));
    return staging_of(root, candidates);
  }

  /** The whole root: scanned, the index brought in line with what the scan found, written as a tree. */
  async #scanned(root: string): Promise<{ staging: Staging; tree: string }> {
    const target = this.#target(root);
    const staging = await this.#scan(target, root);
    if (staging.update.length > 0) await git_at(target, ["update-index", "--add", "--remove", "-z", "--stdin"], `${staging.update.join("\0")}\0`);
    if (staging.drop.length > 0) await git_at(target, ["update-index", "--force-remove", "-z", "--stdin"], `${staging.drop.join("\0")}\0`);
    return { staging, tree: (await git_at(target, ["write-tree"])).trim() };
  }

  /** Only the named paths, as they are now. */
  #named(root: string, named: readonly string[]): { staging: Staging; tree: string } {
    const staging = staging_of(root, named);
    return { staging, tree: this.#named_tree(root, staging.update) };
  }

  /**
   * A tree of only the named paths (those that exist; an absent path is absent from it), written without
   * git: the per-edit snapshot must cost less than spawning it (see git-objects.ts).
   */
  #named_tree(root: string, paths: readonly string[]): string {
    const entries = new Map<string, TreeEntry>();
    for (const relative of paths) {
      const file = path.join(root, relative);
      const stat = lstat_entry(file);
      if (stat === undefined) continue;
      const link = stat.isSymbolicLink();
      const oid = write_blob(this.#git_dir, link ? fs.readlinkSync(file, "buffer") : fs.readFileSync(file));
      entries.set(relative, { mode: link ? "120000" : (stat.mode & 0o100) !== 0 ? "100755" : "100644", name: relative, oid });
    }
    return this.#nested_tree([...entries.values()]);
  }

  /** Trees for entries named by `/`-separated paths, folder by folder; returns the top tree. */
  #nested_tree(entries: readonly TreeEntry[]): string {
    const files: TreeEntry[] = [];
    const folders = new Map<string, TreeEntry[]>();
    for (const entry of entries) {
      const slash = entry.name.indexOf("/");
      if (slash === -1) files.push(entry);
      else {
        const folder = entry.name.slice(0, slash);
        folders.set(folder, [...(folders.get(folder) ?? []), { ...entry, name: entry.name.slice(slash + 1) }]);
      }
    }
    const subtrees = [...folders].map(([name, inside]): TreeEntry => ({ mode: "40000", name, oid: this.#nested_tree(inside) }));
    return write_tree(this.#git_dir, [...files, ...subtrees]);
  }

  async #changed(from_tree: string, to_tree: string): Promise<string[]> {
    if (from_tree === to_tree) return [];
    return split_z(await git_at(this.#plain_target(), ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from_tree, to_tree]));
  }

  /** Commits the tree on the session's ref; the ref moves only from the parent read here (under the lock). */
  #commit(session_id: string, tree: string, message: string): string {
    const ref = `${REF_PREFIX}${session_id}`;
    const parent = read_ref(this.#git_dir, ref);
    const commit = write_commit(this.#git_dir, { tree, ...(parent === undefined ? {} : { parent }), message });
    update_ref(this.#git_dir, ref, commit, parent);
    return commit;
  }

  async #maybe_gc(): Promise<void> {
    this.#taken += 1;
    if (this.#taken % GC_EVERY === 0) await git_at(this.#plain_target(), ["gc", "--auto", "--quiet"]);
  }
}

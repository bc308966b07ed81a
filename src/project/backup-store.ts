import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { monotonicFactory } from "ulidx";
import * as v from "valibot";
import { Sha256 } from "../contracts/artifact.js";
import { air_failure } from "../contracts/errors.js";
import { now_iso } from "../contracts/ids.js";
import { backup_git, run_backup_git } from "./backup-git.js";
import { with_backup_repository } from "./backup-repository.js";
import type { ProjectLayout } from "./layout.js";

const BackupId = v.pipe(v.string(), v.regex(/^bkp_[0-9A-HJKMNP-TV-Z]{26}$/, "expected a backup id (bkp_<ulid>)"));
type BackupId = v.InferOutput<typeof BackupId>;

export const BackupFile = v.strictObject({
  /** The absolute path the bytes came from and go back to. */
  original_path: v.string(),
  /** False: there was no file; restoring deletes whatever is there then. */
  existed: v.boolean(),
  sha256: v.optional(Sha256),
  size_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Permission bits, put back on restore. */
  mode: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type BackupFile = v.InferOutput<typeof BackupFile>;

/** The manifest each commit message carries after its subject line: the history is the index. */
const BackupManifest = v.strictObject({
  kind: v.literal("backup"),
  backup_id: BackupId,
  created_at: v.string(),
  reason: v.string(),
  tool_run_id: v.optional(v.string()),
  session_id: v.optional(v.string()),
  files: v.array(BackupFile),
});
type BackupManifest = v.InferOutput<typeof BackupManifest>;

export type BackupInfo = { reason: string; tool_run_id?: string; session_id?: string };
export type BackupRecord = Omit<BackupManifest, "kind"> & { commit_sha: string };
export type RestoreResult = {
  backup_id: BackupId;
  /** The commit that records the restored state in the backups repository. */
  commit_sha: string;
  /** A backup of what the restore replaced: restoring it undoes the restore. */
  undo_backup_id: BackupId;
  files: BackupFile[];
};

const next_ulid = monotonicFactory();

/**
 * Where a file's bytes live in the repository: its absolute path under `files/`. Segments that git
 * would refuse (`.git`) or obey (`.gitignore`, `.gitattributes`) are escaped, so a backed-up
 * `.gitattributes` cannot change how later backups are stored.
 */
function stored_path(original: string): string {
  const segments = original.split(path.sep).filter((segment) => segment !== "");
  return path.posix.join("files", ...segments.map((segment) => segment.replace(/%/g, "%25").replace(/^\.git/i, (dot_git) => `%2E${dot_git.slice(1)}`)));
}

function hash_file(file: string): string {
  const hash = crypto.createHash("sha256");
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = fs.openSync(file, "r");
  try {
    for (let read = fs.readSync(fd, buffer); read > 0; read = fs.readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

function lstat_or_undefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function refuse(message: string, user_action: string, metadata: Record<string, unknown> = {}): never {
  throw air_failure({ kind: "user_error", message, retryability: "not_retryable", user_action, metadata });
}

function checked_path(original: string): string {
  if (!path.isAbsolute(original) || path.normalize(original) !== original) {
    refuse(`a backup takes absolute, normalised paths, not ${JSON.stringify(original)}`, "Pass the real path the write will touch.");
  }
  const stat = lstat_or_undefined(original);
  if (stat !== undefined && !stat.isFile()) {
    refuse(
      `${original} is not a regular file; only files are backed up`,
      "Back up the files inside a folder one by one; a symlink's target by its real path.",
      { path: original },
    );
  }
  return original;
}

function commit_message(manifest: BackupManifest | Record<string, unknown>, subject: string): string {
  // biome-ignore lint/style/noNonNullAssertion: split always returns at least one part
  return `${subject.split("\n")[0]!.slice(0, 120)}\n\n${JSON.stringify(manifest, null, 2)}\n`;
}

function parse_log(output: string): BackupRecord[] {
  const records: BackupRecord[] = [];
  for (const entry of output.split("\x1e")) {
    const [sha, body] = entry.replace(/^\n/, "").split("\x00");
    const json = body?.slice(body.indexOf("\n\n") + 2);
    if (sha === undefined || json === undefined) continue;
    try {
      const parsed = v.safeParse(BackupManifest, JSON.parse(json));
      if (!parsed.success) continue;
      const { kind: _kind, ...manifest } = parsed.output;
      records.push({ ...manifest, commit_sha: sha });
    } catch {
      // a restore commit, or one not written by air: not a backup
    }
  }
  return records;
}

/**
 * Backups in a dedicated git repository (seeds 003 §12 rule 7, DESIGN §9: `.air/local/backups/`): before
 * a write the permission policy marks `backup_required` — typically one outside the project — the
 * current bytes of each file (or the fact that it did not exist) are committed, and `restore` puts them
 * back. A lock file keeps concurrent air processes from interleaving their `add`s and commits.
 */
export class BackupStore {
  constructor(
    /** The repository's work tree. */
    readonly dir: string,
    private readonly lock_file: string,
  ) {}

  static for_project(layout: ProjectLayout): BackupStore {
    return new BackupStore(layout.backups, path.join(layout.locks, "backups.lock"));
  }

  async backup(paths: readonly string[], info: BackupInfo): Promise<BackupRecord> {
    const files = [...new Set(paths.map(checked_path))];
    return this.#locked(() => this.#backup(files, info));
  }

  /** Every backup, newest first. */
  async list(): Promise<BackupRecord[]> {
    if (!fs.existsSync(path.join(this.dir, ".git"))) return [];
    return this.#locked(() => this.#list());
  }

  /**
   * Puts back the files of `backup_id`, each atomically (temp + rename), and deletes those that did not
   * exist. What it replaces is backed up first, and the restore is a commit of its own: history is
   * never rewritten.
   */
  restore(backup_id: string): Promise<RestoreResult> {
    return this.#locked(async () => {
      const record = (await this.#list()).find((candidate) => candidate.backup_id === backup_id);
      if (record === undefined) refuse(`no backup ${backup_id} in ${this.dir}`, "List the backups and pick an existing id.", { backup_id });
      // A path that is now a folder or a symlink is refused here, before anything changes.
      const undo = await this.#backup(
        record.files.map((file) => checked_path(file.original_path)),
        { reason: `before restoring ${backup_id}` },
      );
      try {
        await this.#write_back(record);
      } catch (error) {
        // HEAD is the backup just taken: the work tree goes back to the bytes the originals still have.
        await backup_git(this.dir, ["reset", "-q", "--hard", "HEAD"]);
        throw error;
      }
      await this.#stage(record.files);
      const manifest = { kind: "restore", restored_backup_id: backup_id, undo_backup_id: undo.backup_id, created_at: now_iso() };
      await backup_git(this.dir, ["commit", "-q", "--allow-empty", "--no-verify", "-F", "-"], commit_message(manifest, `air restore ${backup_id}`));
      const commit_sha = (await backup_git(this.dir, ["rev-parse", "HEAD"])).trim();
      return { backup_id: record.backup_id, commit_sha, undo_backup_id: undo.backup_id, files: record.files };
    });
  }

  async #backup(paths: readonly string[], info: BackupInfo): Promise<BackupRecord> {
    const backup_id = `bkp_${next_ulid()}` as BackupId;
    const files = paths.map((original) => this.#copy_in(original));
    await this.#stage(files);
    const manifest: BackupManifest = { kind: "backup", backup_id, created_at: now_iso(), ...info, files };
    await backup_git(
      this.dir,
      ["commit", "-q", "--allow-empty", "--no-verify", "-F", "-"],
      commit_message(manifest, `air backup ${backup_id}: ${info.reason}`),
    );
    const commit_sha = (await backup_git(this.dir, ["rev-parse", "HEAD"])).trim();
    const { kind: _kind, ...record } = manifest;
    return { ...record, commit_sha };
  }

  /** Copies the file's current bytes into the work tree (or removes the copy of a file that is gone). */
  #copy_in(original: string): BackupFile {
    const copy = path.join(this.dir, stored_path(original));
    const stat = lstat_or_undefined(original);
    if (stat === undefined) {
      fs.rmSync(copy, { force: true });
      return { original_path: original, existed: false };
    }
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.copyFileSync(original, copy);
    return { original_path: original, existed: true, sha256: hash_file(copy), size_bytes: fs.statSync(copy).size, mode: stat.mode & 0o7777 };
  }

  /** Brings the index in line with the work tree for these files: added if present, removed if not. */
  async #stage(files: readonly BackupFile[]): Promise<void> {
    const present = files.filter((file) => fs.existsSync(path.join(this.dir, stored_path(file.original_path))));
    const gone = files.filter((file) => !present.includes(file));
    if (present.length > 0) await backup_git(this.dir, ["add", "-f", "--", ...present.map((file) => stored_path(file.original_path))]);
    if (gone.length > 0) await backup_git(this.dir, ["rm", "-q", "--cached", "--ignore-unmatch", "--", ...gone.map((file) => stored_path(file.original_path))]);
  }

  /** Checks out the backup's bytes, verifies them, and replaces the originals all at once. */
  async #write_back(record: BackupRecord): Promise<void> {
    const present = record.files.filter((file) => file.existed);
    const absent = record.files.filter((file) => !file.existed);
    if (present.length > 0) await backup_git(this.dir, ["checkout", record.commit_sha, "--", ...present.map((file) => stored_path(file.original_path))]);
    for (const file of absent) fs.rmSync(path.join(this.dir, stored_path(file.original_path)), { force: true });
    const staged: { temp: string; target: string }[] = [];
    try {
      for (const file of present) staged.push({ temp: this.#stage_copy(file), target: file.original_path });
    } catch (error) {
      for (const { temp } of staged) fs.rmSync(temp, { force: true });
      throw error;
    }
    for (const { temp, target } of staged) fs.renameSync(temp, target);
    for (const file of absent) fs.rmSync(file.original_path, { force: true });
  }

  /** A verified copy of the backed-up bytes next to the original, ready to be renamed over it. */
  #stage_copy(file: BackupFile): string {
    const source = path.join(this.dir, stored_path(file.original_path));
    if (hash_file(source) !== file.sha256) {
      throw air_failure({
        kind: "system_error",
        message: `the backup of ${file.original_path} does not match its recorded sha256`,
        retryability: "not_retryable",
        user_action: `Inspect the backups repository ${this.dir}; nothing was restored.`,
      });
    }
    fs.mkdirSync(path.dirname(file.original_path), { recursive: true });
    const temp = path.join(path.dirname(file.original_path), `.${path.basename(file.original_path)}.air-restore.${process.pid}.${crypto.randomUUID()}`);
    fs.copyFileSync(source, temp, fs.constants.COPYFILE_EXCL);
    if (file.mode !== undefined) fs.chmodSync(temp, file.mode);
    const fd = fs.openSync(temp, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return temp;
  }

  async #list(): Promise<BackupRecord[]> {
    const head = await run_backup_git(this.dir, ["rev-parse", "-q", "--verify", "HEAD"]);
    if (head.code !== 0) return [];
    return parse_log(await backup_git(this.dir, ["log", "--format=%H%x00%B%x1e"]));
  }

  #locked<T>(work: () => Promise<T>): Promise<T> {
    return with_backup_repository(this.dir, this.lock_file, work);
  }
}

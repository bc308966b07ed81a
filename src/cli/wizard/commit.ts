import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PlannedFile } from "./plan.js";

type Staged = { readonly file: PlannedFile; readonly temp: string; readonly previous: Buffer | undefined };

/** Every folder from `folder` up that does not exist yet, outermost first: what to remove if the commit fails. */
function missing_folders(folder: string): string[] {
  const missing: string[] = [];
  for (let current = folder; !fs.existsSync(current); current = path.dirname(current)) missing.unshift(current);
  return missing;
}

function read_if_present(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The temp file is created with its final mode, so a key is never readable by others, not even for a moment. */
function stage(file: PlannedFile): Staged {
  const previous = read_if_present(file.path);
  const temp = path.join(path.dirname(file.path), `.${path.basename(file.path)}.${process.pid}.${crypto.randomUUID()}.tmp`);
  const fd = fs.openSync(temp, "wx", file.mode);
  try {
    // The umask may have taken bits away (or a 0600 file may be meant); fchmod says exactly what it is.
    fs.fchmodSync(fd, file.mode);
    fs.writeFileSync(fd, file.content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { file, temp, previous };
}

function undo(renamed: readonly Staged[], staged: readonly Staged[], created_folders: readonly string[]): void {
  for (const entry of staged) fs.rmSync(entry.temp, { force: true });
  for (const entry of renamed) {
    if (entry.previous === undefined) fs.rmSync(entry.file.path, { force: true });
    else fs.writeFileSync(entry.file.path, entry.previous);
  }
  // Innermost first; each is empty again once its files are gone.
  for (const folder of [...created_folders].reverse()) fs.rmdirSync(folder);
}

/**
 * Writes all the wizard's files or none: each is staged as a temp file beside its target, then all are
 * renamed into place; a failure anywhere puts back what was there before and removes the folders it made.
 * Files marked `only_if_absent` that exist already are left alone. Returns the files written.
 */
export function commit_files(files: readonly PlannedFile[]): string[] {
  const wanted = files.filter((file) => !(file.only_if_absent === true && fs.existsSync(file.path)));
  const created_folders: string[] = [];
  const staged: Staged[] = [];
  const renamed: Staged[] = [];
  try {
    for (const file of wanted) {
      const folders = missing_folders(path.dirname(file.path));
      for (const folder of folders) fs.mkdirSync(folder, { mode: 0o755 });
      created_folders.push(...folders);
      staged.push(stage(file));
    }
    for (const entry of staged) {
      fs.renameSync(entry.temp, entry.file.path);
      renamed.push(entry);
    }
  } catch (error) {
    undo(renamed, staged, created_folders);
    throw error;
  }
  return wanted.map((file) => file.path);
}

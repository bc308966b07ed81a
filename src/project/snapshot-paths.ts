import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { fold_segment, is_build_output_name } from "../permissions/paths.js";

/**
 * Files larger than this are left out of snapshots (and named in the manifest's `skipped`): hashing and
 * storing a disk image or a core dump before every edit would cost seconds and gigabytes. A restore of such
 * a file is refused rather than guessed.
 */
export const MAX_SNAPSHOT_FILE_BYTES = 32 * 1024 * 1024;

function is_git_segment(folded: string): boolean {
  return folded === ".git" || /^git~\d+$/.test(folded);
}

/**
 * Paths a snapshot never holds: air's own folder, anything git would take for its own (`.git`, `.GIT`,
 * `git~1` anywhere), and the top-level build output and dependency folders the permission engine treats as
 * build output (`build`, `node_modules`, `cmake-build-*` …).
 */
export function is_excluded(relative: string): boolean {
  const folded = relative.split("/").map(fold_segment);
  const first = folded[0] ?? "";
  return first === ".air" || is_build_output_name(first) || folded.some(is_git_segment);
}

/** Top-level folders of `root` that hold build output: written to the snapshot excludes, so a scan skips them. */
export function build_output_folders(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && is_build_output_name(fold_segment(entry.name)))
    .map((entry) => entry.name);
}

function refuse_path(input: string, root: string, why: string): never {
  throw air_failure({
    kind: "user_error",
    message: `${JSON.stringify(input)} ${why} (root ${root})`,
    retryability: "not_retryable",
    user_action: "Name a file inside the project, relative to its root or by its absolute path.",
    metadata: { path: input, root },
  });
}

/**
 * The `/`-separated path of `input` (relative to `root`, or absolute) inside the real root `root`, refused
 * when it leaves the root lexically or through a symlinked folder on the way: a restore must never write
 * outside the project.
 */
export function inside_root(root: string, input: string): string {
  if (input.includes("\0")) refuse_path(input, root, "holds a NUL byte");
  const absolute = path.resolve(root, input);
  const relative = path.relative(root, absolute);
  if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
    refuse_path(input, root, "is not a file inside the root");
  const parent = nearest_existing(path.dirname(absolute));
  const real_parent = fs.realpathSync.native(parent);
  if (real_parent !== root && !real_parent.startsWith(root + path.sep)) refuse_path(input, root, `goes through ${parent}, which leads outside the root`);
  return relative.split(path.sep).join("/");
}

function nearest_existing(folder: string): string {
  let current = folder;
  while (!fs.existsSync(current)) current = path.dirname(current);
  return current;
}

/** The entry at `file`, or undefined when there is none — also when a folder on the way is a file. */
export function lstat_entry(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

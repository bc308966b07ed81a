import fs from "node:fs";
import path from "node:path";

type EntryType = "file" | "directory" | "symlink" | "fifo" | "socket" | "char_device" | "block_device" | "other";

/** One entry of the tree, from `lstat` (and `readlink` for symlinks): never from opening the entry. */
export type ScanEntry = {
  /** Relative to the scanned folder, `/`-separated. */
  path: string;
  name: string;
  depth: number;
  type: EntryType;
  size_bytes?: number;
  mode?: string;
  modified_at?: string;
  link_target?: string;
  error?: { code: string; message: string };
};

export type ScanWarning = { kind: "mount" | "cycle" | "permission" | "depth_limit" | "entry_limit"; path: string; message: string };

export type WalkLimits = { max_entries: number; max_depth?: number };

export type WalkHooks = {
  signal: AbortSignal;
  on_entry(entry: ScanEntry): void;
  on_warning(warning: ScanWarning): void;
  /** Called between batches of entries, after the event loop had a turn (an abort can land there). */
  on_progress(counts: { entries: number; directories: number; current: string }): void;
};

export type WalkResult = { entries: number; directories: number; truncated: boolean; cancelled: boolean };

/** Entries between two event-loop turns: keeps an abort prompt without slowing small scans. */
const BATCH = 256;

function type_of(stat: fs.Stats): EntryType {
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isDirectory()) return "directory";
  if (stat.isFile()) return "file";
  if (stat.isFIFO()) return "fifo";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "char_device";
  if (stat.isBlockDevice()) return "block_device";
  return "other";
}

function error_of(error: unknown): { code: string; message: string } {
  const { code, message } = error as NodeJS.ErrnoException;
  return { code: code ?? "UNKNOWN", message: message ?? String(error) };
}

function entry_of(absolute: string, relative: string, depth: number): { entry: ScanEntry; stat?: fs.Stats } {
  const name = path.basename(absolute);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(absolute);
  } catch (error) {
    return { entry: { path: relative, name, depth, type: "other", error: error_of(error) } };
  }
  const entry: ScanEntry = {
    path: relative,
    name,
    depth,
    type: type_of(stat),
    mode: (stat.mode & 0o7777).toString(8).padStart(4, "0"),
    modified_at: stat.mtime.toISOString(),
  };
  if (entry.type === "file") entry.size_bytes = stat.size;
  if (entry.type === "symlink") {
    try {
      entry.link_target = fs.readlinkSync(absolute);
    } catch (error) {
      entry.error = error_of(error);
    }
  }
  return { entry, stat };
}

const yield_turn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Pending = { absolute: string; relative: string; depth: number; names: string[]; next: number };

/** A folder's entry names in order; its listing failure (EACCES …) is recorded on its entry, or thrown without one. */
function list_names(absolute: string): string[];
function list_names(absolute: string, entry: ScanEntry): string[] | undefined;
function list_names(absolute: string, entry?: ScanEntry): string[] | undefined {
  try {
    return fs.readdirSync(absolute).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if (entry === undefined) throw error;
    entry.error = error_of(error);
    return undefined;
  }
}

/**
 * Walks a folder tree depth-first in name order (seeds 003 §15 scanner rules): every entry, none
 * excluded; symlinks listed, never followed; an unreadable folder recorded as an entry with its error;
 * folders on another file system or already seen (a bind-mount cycle) recorded as warnings and not entered.
 */
export async function walk_tree(root: string, limits: WalkLimits, hooks: WalkHooks): Promise<WalkResult> {
  const root_stat = fs.statSync(root);
  const seen = new Set<string>([`${root_stat.dev}:${root_stat.ino}`]);
  const stack: Pending[] = [{ absolute: root, relative: "", depth: 0, names: list_names(root), next: 0 }];
  let entries = 0;
  let directories = 0;
  for (let folder = stack.at(-1); folder !== undefined; folder = stack.at(-1)) {
    const name = folder.names[folder.next];
    folder.next += 1;
    if (name === undefined) {
      stack.pop();
      continue;
    }
    if (entries >= limits.max_entries) {
      hooks.on_warning({ kind: "entry_limit", path: folder.relative, message: `stopped at max_entries ${limits.max_entries}` });
      return { entries, directories, truncated: true, cancelled: false };
    }
    const absolute = path.join(folder.absolute, name);
    const relative = folder.relative === "" ? name : `${folder.relative}/${name}`;
    const { entry, stat } = entry_of(absolute, relative, folder.depth + 1);
    let names: string[] | undefined;
    if (entry.type === "directory" && stat !== undefined) {
      directories += 1;
      if (enterable(entry, stat, root_stat, seen, limits, hooks)) names = list_names(absolute, entry);
      if (entry.error !== undefined) hooks.on_warning({ kind: "permission", path: relative, message: `cannot list: ${entry.error.code}` });
    }
    hooks.on_entry(entry);
    entries += 1;
    // Children go on top of the stack: depth-first, so the pending name lists stay few.
    if (names !== undefined) stack.push({ absolute, relative, depth: folder.depth + 1, names, next: 0 });
    if (entries % BATCH === 0) {
      await yield_turn();
      if (hooks.signal.aborted) return { entries, directories, truncated: true, cancelled: true };
      hooks.on_progress({ entries, directories, current: relative });
    }
  }
  return { entries, directories, truncated: false, cancelled: false };
}
/** Whether the walk goes into a folder: not past the depth limit, not onto another file system, not twice. */
function enterable(entry: ScanEntry, stat: fs.Stats, root_stat: fs.Stats, seen: Set<string>, limits: WalkLimits, hooks: WalkHooks): boolean {
  if (stat.dev !== root_stat.dev) {
    hooks.on_warning({ kind: "mount", path: entry.path, message: "a mount point of another file system: listed, not entered" });
    return false;
  }
  const key = `${stat.dev}:${stat.ino}`;
  if (seen.has(key)) {
    hooks.on_warning({
      kind: "cycle",
      path: entry.path,
      message: "this folder was already scanned under another path (a bind-mount cycle): not entered again",
    });
    return false;
  }
  seen.add(key);
  if (limits.max_depth !== undefined && entry.depth >= limits.max_depth) {
    hooks.on_warning({ kind: "depth_limit", path: entry.path, message: `deeper than max_depth ${limits.max_depth}: not entered` });
    return false;
  }
  return true;
}

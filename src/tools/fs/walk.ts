import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import { fold_segment, real_root_of } from "../../permissions/paths.js";
import type { ToolExecution } from "../define.js";
import { locate } from "./common.js";
import { IgnoreRules } from "./ignore.js";

/** A file the walk found: its path relative to the project root (posix) and its absolute real path. */
export type WalkEntry = { readonly relative: string; readonly absolute: string; readonly type: "file" | "symlink" };

export type WalkOptions = {
  readonly root_real: string;
  /** Where the walk starts: a folder or a file inside the project (relative, posix; "" for the root). */
  readonly start: string;
  readonly include_ignored: boolean;
  readonly signal: AbortSignal;
  /** Whether to go into a folder (relative to the root): lets a caller prune what cannot match. */
  readonly enter?: (relative: string) => boolean;
};

function by_name(a: fs.Dirent, b: fs.Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Where fs.glob / fs.grep search: a folder or file inside the project, relative to its real root. */
export type SearchRoot = { readonly root_real: string; readonly relative: string; readonly display: string; readonly real: string };

/**
 * The search root as the PermissionEngine judged it. The search stays inside the project, so a root
 * outside it (even one the user allowed) is refused.
 */
export function locate_search_root(execution: ToolExecution, input: string): SearchRoot {
  const located = locate(execution, input);
  if (located.relative === undefined || !fs.existsSync(located.real)) {
    throw air_failure({
      kind: "tool_error",
      message:
        located.relative === undefined
          ? `${located.display} is outside the project; ${execution.tool_name} searches inside it only`
          : `${located.display} does not exist`,
      retryability: "retryable_after_change",
      user_action: "Give a folder or file inside the project (fs.list shows what is there).",
      metadata: { path: located.display },
    });
  }
  return { root_real: real_root_of(execution.project_root), relative: located.relative, display: located.display, real: located.real };
}

/**
 * Files under a folder of the project, depth first in name order. Symlinks are reported, never followed;
 * `.git` is never entered; with `include_ignored` false, what git ignores is skipped — unless the start
 * itself is ignored, which means the caller named it on purpose. FIFOs, sockets and devices are skipped.
 */
export async function* walk_files(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const { root_real, start, signal } = options;
  const absolute_of = (relative: string) => (relative === "" ? root_real : path.join(root_real, ...relative.split("/")));
  const start_stat = await fs.promises.lstat(absolute_of(start));
  if (start_stat.isFile()) {
    yield { relative: start, absolute: absolute_of(start), type: "file" };
    return;
  }
  if (!start_stat.isDirectory()) return;
  const rules = IgnoreRules.down_to(root_real, start);
  const include_ignored = options.include_ignored || rules.ignores(start, true);
  // Depth first in name order: a stack of what is still to visit, next on top.
  const pending: { relative: string; type: WalkEntry["type"] | "folder" }[] = [{ relative: start, type: "folder" }];
  while (!signal.aborted) {
    const next = pending.pop();
    if (next === undefined) break;
    if (next.type !== "folder") {
      yield { relative: next.relative, absolute: absolute_of(next.relative), type: next.type };
      continue;
    }
    const absolute = absolute_of(next.relative);
    let children: fs.Dirent[];
    try {
      // The folder was a real folder when listed; if a symlink has been swapped in since, it is not followed.
      if ((await fs.promises.realpath(absolute)) !== absolute) continue;
      children = (await fs.promises.readdir(absolute, { withFileTypes: true })).sort(by_name);
    } catch {
      continue;
    }
    if (!include_ignored) rules.enter(next.relative);
    const visit: typeof pending = [];
    for (const child of children) {
      if (fold_segment(child.name) === ".git") continue;
      const relative = next.relative === "" ? child.name : `${next.relative}/${child.name}`;
      const type = child.isDirectory() ? "folder" : child.isFile() ? "file" : child.isSymbolicLink() ? "symlink" : undefined;
      if (type === undefined || (!include_ignored && rules.ignores(relative, type === "folder"))) continue;
      if (type !== "folder" || (options.enter?.(relative) ?? true)) visit.push({ relative, type });
    }
    pending.push(...visit.reverse());
  }
}

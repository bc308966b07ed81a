import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_home } from "../../project/layout.js";
import { classify_path, is_credential_path, resolve_real } from "../paths.js";
import type { ReadDepth } from "./grammar/matched.js";
import type { AnalyzerContext, CommandFinding } from "./types.js";

/** More entries than this below a folder read as a tree, and the command asks: too many files to check. */
export const MAX_TREE_ENTRIES = 2000;
/** At most this many findings about one tree: the first few name what the read reaches. */
const MAX_FINDINGS = 4;

type Folder = { readonly real: string; readonly shown: string };

/**
 * What a program reading the folder `real` (the operand `word`, resolved) as a whole tree reaches: every
 * entry below it, walked as the program walks it, judged by what the program will actually read.
 * - a credential file by name (`.env`, keys …) or air's own home: ask, naming it;
 * - a regular file with another name (a hard link): ask, since the other name may be `~/.ssh/id_rsa`;
 * - a symlink: not followed for `tree` and `visible_tree` (the program reads the link, not its target);
 *   for `linked_tree` resolved and judged by its target — credentials deny, outside the project asks,
 *   a folder inside is walked too;
 * - `visible_tree` skips dot entries, as rg and fd do.
 * More than `MAX_TREE_ENTRIES` entries asks. A `path` read, or an operand that is no folder, reaches nothing more.
 */
export function judge_tree(word: string, real: string, depth: ReadDepth, context: AnalyzerContext): CommandFinding[] {
  if (depth === "path" || !is_folder(real)) return [];
  const walk: Walk = {
    word,
    depth,
    context,
    home: context.home ?? os.homedir(),
    air: resolve_real(air_home()),
    seen: new Set([real]),
    pending: [{ real, shown: word.replace(/\/+$/, "") || "/" }],
    findings: [],
  };
  let entries = 0;
  for (let folder = walk.pending.pop(); folder !== undefined && walk.findings.length < MAX_FINDINGS; folder = walk.pending.pop()) {
    let listed: fs.Dirent[];
    try {
      listed = fs.readdirSync(folder.real, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += listed.length;
    if (entries > MAX_TREE_ENTRIES) {
      const reason = `${word} holds more than ${MAX_TREE_ENTRIES} entries: too many files to check what reading it as a tree reaches`;
      walk.findings.push({ action: "ask_user", category: "unknown_execution", reason });
      break;
    }
    for (const entry of listed) if (depth !== "visible_tree" || !entry.name.startsWith(".")) judge_entry(walk, folder, entry);
  }
  return walk.findings.slice(0, MAX_FINDINGS);
}

/** One tree walk: what it reads, where it has been, what is left, what it found. */
type Walk = {
  readonly word: string;
  readonly depth: ReadDepth;
  readonly context: AnalyzerContext;
  readonly home: string;
  /** air's own home, resolved: its keys and rules are credentials wherever a walk meets them. */
  readonly air: string;
  readonly seen: Set<string>;
  readonly pending: Folder[];
  readonly findings: CommandFinding[];
};

function judge_entry(walk: Walk, folder: Folder, entry: fs.Dirent): void {
  const file = path.join(folder.real, entry.name);
  const shown = `${folder.shown}/${entry.name}`;
  const found = (action: CommandFinding["action"], category: CommandFinding["category"], what: string): void => {
    walk.findings.push({ action, category, reason: `${walk.word} is read as a whole tree, and that reaches ${shown}, ${what}` });
  };
  const descend = (real: string): void => {
    if (walk.seen.has(real)) return;
    walk.seen.add(real);
    walk.pending.push({ real, shown });
  };
  if (entry.isSymbolicLink()) {
    if (walk.depth !== "linked_tree") return;
    const target = classify_path(file, folder.real, {
      real_root: walk.context.root_real,
      home: walk.home,
      ...(walk.context.memo === undefined ? {} : { memo: walk.context.memo }),
    });
    if (target.category === "credential_or_secret") found("deny", "credential_sensitive", `a symlink to ${target.real}, which holds credentials`);
    else if (!target.inside_project) found("ask_user", "outside_project", `a symlink to ${target.real}, outside the project`);
    else if (is_folder(target.real)) descend(target.real);
  } else if (entry.isDirectory()) {
    if (file === walk.air) found("ask_user", "credential_sensitive", "air's own home, with its keys and rules");
    else descend(file);
  } else if (entry.isFile()) {
    if (is_credential_path(file, walk.home)) found("ask_user", "credential_sensitive", "which holds credentials");
    else if (hard_linked(file)) found("ask_user", "outside_project", "a hard link: another name of the same file may be outside the project");
  }
}

function is_folder(real: string): boolean {
  try {
    return fs.statSync(real).isDirectory();
  } catch {
    return false;
  }
}

function hard_linked(file: string): boolean {
  try {
    return fs.lstatSync(file).nlink > 1;
  } catch {
    return false;
  }
}

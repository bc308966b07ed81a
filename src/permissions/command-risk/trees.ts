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
  const home = context.home ?? os.homedir();
  const air = resolve_real(air_home());
  const findings: CommandFinding[] = [];
  const seen = new Set<string>([real]);
  const pending: Folder[] = [{ real, shown: word.replace(/\/+$/, "") || "/" }];
  let entries = 0;
  const reaches = (shown: string, what: string): string => `${word} is read as a whole tree, and that reaches ${shown}, ${what}`;
  for (let folder = pending.pop(); folder !== undefined && findings.length < MAX_FINDINGS; folder = pending.pop()) {
    let listed: fs.Dirent[];
    try {
      listed = fs.readdirSync(folder.real, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += listed.length;
    if (entries > MAX_TREE_ENTRIES) {
      findings.push({
        action: "ask_user",
        category: "unknown_execution",
        reason: `${word} holds more than ${MAX_TREE_ENTRIES} entries: too many files to check what reading it as a tree reaches`,
      });
      break;
    }
    for (const entry of listed) {
      if (depth === "visible_tree" && entry.name.startsWith(".")) continue;
      const file = path.join(folder.real, entry.name);
      const shown = `${folder.shown}/${entry.name}`;
      if (entry.isSymbolicLink()) {
        if (depth !== "linked_tree") continue;
        const target = classify_path(file, folder.real, { real_root: context.root_real, home });
        if (target.category === "credential_or_secret")
          findings.push({ action: "deny", category: "credential_sensitive", reason: reaches(shown, `a symlink to ${target.real}, which holds credentials`) });
        else if (!target.inside_project)
          findings.push({ action: "ask_user", category: "outside_project", reason: reaches(shown, `a symlink to ${target.real}, outside the project`) });
        else if (is_folder(target.real) && !seen.has(target.real)) {
          seen.add(target.real);
          pending.push({ real: target.real, shown });
        }
        continue;
      }
      if (entry.isDirectory()) {
        if (file === air)
          findings.push({ action: "ask_user", category: "credential_sensitive", reason: reaches(shown, "air's own home, with its keys and rules") });
        else if (!seen.has(file)) {
          seen.add(file);
          pending.push({ real: file, shown });
        }
        continue;
      }
      if (!entry.isFile()) continue;
      if (is_credential_path(file, home))
        findings.push({ action: "ask_user", category: "credential_sensitive", reason: reaches(shown, "which holds credentials") });
      else if (hard_linked(file))
        findings.push({
          action: "ask_user",
          category: "outside_project",
          reason: reaches(shown, "a hard link: another name of the same file may be outside the project"),
        });
    }
  }
  return findings.slice(0, MAX_FINDINGS);
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

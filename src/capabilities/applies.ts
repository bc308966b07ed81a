import fs from "node:fs";
import path from "node:path";
import { fold_segment, is_build_output_name } from "../permissions/paths.js";
import type { CapabilityManifest, Trigger } from "./manifest.js";

/** Folders an extension trigger never looks into: version control, air's own, dependencies and build output. */
function skipped(name: string): boolean {
  const folded = fold_segment(name);
  return folded === ".git" || folded === ".air" || is_build_output_name(folded);
}

/** Whether a file with one of `extensions` lies within `depth` folders below `folder` (0: the folder itself). */
function has_extension(folder: string, extensions: ReadonlySet<string>, depth: number): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((entry) => entry.isFile() && extensions.has(path.extname(entry.name).toLowerCase()))) return true;
  if (depth === 0) return false;
  // Symlinked folders are not followed: a link to / must not make the scan walk the machine.
  return entries.some((entry) => entry.isDirectory() && !skipped(entry.name) && has_extension(path.join(folder, entry.name), extensions, depth - 1));
}

function file_exists(project_root: string, relative: string): boolean {
  const target = path.resolve(project_root, relative);
  // A trigger names a file of the project; a path out of it says nothing about the project.
  if (path.relative(project_root, target).startsWith("..")) return false;
  return fs.existsSync(target);
}

function fires(trigger: Trigger, project_root: string): boolean {
  switch (trigger.kind) {
    case "always":
      return true;
    case "file":
      return file_exists(project_root, trigger.path);
    case "extension":
      return has_extension(project_root, new Set(trigger.extensions.map((extension) => extension.toLowerCase())), trigger.max_depth);
  }
}

/** A capability applies to a project when any one of its triggers fires there. */
export function applies_to(manifest: CapabilityManifest, project_root: string): boolean {
  return manifest.triggers.some((trigger) => fires(trigger, project_root));
}

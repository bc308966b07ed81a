import { artifact_read } from "./artifact/read.js";
import type { AnyToolDefinition } from "./define.js";
import { fs_edit } from "./fs/edit.js";
import { fs_glob } from "./fs/glob.js";
import { fs_grep } from "./fs/grep.js";
import { fs_list } from "./fs/list.js";
import { fs_patch } from "./fs/patch.js";
import { fs_read } from "./fs/read.js";
import { fs_write } from "./fs/write.js";
import { git_commit } from "./git/commit.js";
import { git_diff } from "./git/diff.js";
import { git_log } from "./git/log.js";
import { git_show } from "./git/show.js";
import { git_status } from "./git/status.js";
import { project_scan } from "./project/scan.js";
import { ToolRegistry, type ToolRegistryOptions } from "./registry.js";
import { shell_run } from "./shell/run.js";

/** The built-in tools of this version, in the order the model sees them. */
export const BUILTIN_TOOLS: readonly AnyToolDefinition[] = [
  fs_read,
  fs_list,
  fs_glob,
  fs_grep,
  fs_write,
  fs_edit,
  fs_patch,
  shell_run,
  git_status,
  git_diff,
  git_log,
  git_show,
  git_commit,
  project_scan,
  artifact_read,
];

/** A registry with every built-in tool registered. */
export function create_tool_registry(options: ToolRegistryOptions = {}): ToolRegistry {
  const registry = new ToolRegistry(options);
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  return registry;
}

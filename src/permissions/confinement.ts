import path from "node:path";
import * as v from "valibot";
import { WorkspaceId } from "../contracts/ids.js";
import type { CommandAnalysis } from "./command-risk/index.js";
import type { PathClassification } from "./paths.js";

/**
 * A task dispatched into a workspace (a git worktree under `.air/local/workspaces/`): its calls are judged
 * from the workspace's root, and nothing outside that root is ever written, whatever the mode, rules or
 * grants say. The Scheduler sets it on the `ToolCaller` of every call the task's agent makes.
 */
export const WorkspaceConfinement = v.strictObject({
  workspace_id: WorkspaceId,
  /** The workspace's folder: the root the task's paths are judged from, and the only place it writes. */
  root: v.pipe(v.string(), v.minLength(1)),
  /** The main checkout the workspace was made from: readable, never written by the task. */
  project_root: v.pipe(v.string(), v.minLength(1)),
});
export type WorkspaceConfinement = v.InferOutput<typeof WorkspaceConfinement>;

/** A refusal of layer 3: the workspace is the task's scope, and no answer can widen it. */
export type Refusal = { readonly reason: string };

/** Variables that point git at another repository, work tree, index or object store: git reads dozens, all `GIT_*`. */
const GIT_LOCATION_VARIABLES = /^GIT_/;

function is_inside(real: string, folder: string): boolean {
  return real === folder || real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

function named(workspace: WorkspaceConfinement): string {
  return `the workspace ${workspace.workspace_id} (${workspace.root})`;
}

/**
 * The workspace must be a folder of its own: one holding the main checkout (the project root itself, or a
 * folder above it) would confine nothing, and a main checkout that cannot be found cannot be checked.
 */
export function workspace_refusal(workspace: WorkspaceConfinement, real_root: string, real_project: string | undefined): Refusal | undefined {
  if (real_project === undefined) return { reason: `the main checkout ${workspace.project_root} of ${named(workspace)} cannot be resolved` };
  if (is_inside(real_project, real_root))
    return { reason: `${named(workspace)} holds the main checkout ${real_project}: a workspace must be a folder of its own` };
  return undefined;
}

/** A write outside the workspace: refused, not asked and not backed up. */
export function write_refusal(workspace: WorkspaceConfinement, c: PathClassification, how: string): Refusal | undefined {
  if (c.inside_project) return undefined;
  const why = c.hard_linked ? " (a hard link: its other names may be anywhere)" : c.process_link ? " (through /proc)" : "";
  return { reason: `${how}${c.real}${why}, outside ${named(workspace)}: a task in a workspace writes only inside it` };
}

/** A command run in a folder outside the workspace (its working folder, a `cd`, `git -C`, `make -C` …). */
export function folder_refusal(workspace: WorkspaceConfinement, c: PathClassification, how: string): Refusal | undefined {
  if (c.inside_project) return undefined;
  return { reason: `${how}${c.real}, outside ${named(workspace)}: a task in a workspace runs its commands inside it` };
}

/**
 * What a confined command may not do whatever its paths: write git (air commits the workspace for its task,
 * from the parent), or set the variables that point git elsewhere (`GIT_DIR`, `GIT_WORK_TREE` …).
 */
export function command_refusals(workspace: WorkspaceConfinement, analysis: CommandAnalysis): Refusal[] {
  const refusals: Refusal[] = [];
  for (const run of analysis.commands) {
    if (run.categories.includes("git_write"))
      refusals.push({
        reason: `${run.argv.slice(0, 3).join(" ")} writes git: a task in ${named(workspace)} does not write git; air commits its work for it`,
      });
  }
  for (const name of analysis.assigned.filter((assigned) => GIT_LOCATION_VARIABLES.test(assigned))) {
    refusals.push({ reason: `the command sets ${name}, which can point git away from ${named(workspace)}` });
  }
  return refusals;
}

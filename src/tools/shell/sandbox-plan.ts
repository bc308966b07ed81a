import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import { write_area_folders } from "../../permissions/write-area.js";
import type { TaskScope } from "../../contracts/task.js";
import type { WorkspaceConfinement } from "../../permissions/confinement.js";
import { classify_path, normalise_scope_path, real_root_of } from "../../permissions/paths.js";
import { air_home } from "../../project/layout.js";
import { BWRAP_ISOLATION } from "./sandbox.js";

/**
 * What one sandboxed command may touch. Everything (the project `root` too) is read-only except
 * `writable`; `read_only` is bound again on top of it (git internals, air's folder, the task's denied
 * paths), and `hidden` is masked (credential folders of the home, the air home with its models.yaml).
 * All paths are real paths.
 */
export type SandboxPlan = {
  readonly root: string;
  /**
   * Folders shown read-only before the root: a workspace's main checkout, whose `.git` the worktree's git
   * reads (under /tmp it would otherwise be hidden by the sandbox's own /tmp).
   */
  readonly visible: readonly string[];
  readonly cwd: string;
  readonly writable: readonly string[];
  readonly read_only: readonly string[];
  readonly hidden: readonly { readonly path: string; readonly folder: boolean }[];
  /** Whether the command keeps the host's network (it was classified and allowed as network). */
  readonly network: boolean;
};

export type PlanOptions = {
  /** The folder the command works in: the project, or the workspace of a confined task. */
  readonly project_root: string;
  /** The command's working folder, a real path inside the project. */
  readonly cwd: string;
  readonly scope?: TaskScope;
  /** A confined task's workspace: writable (or its write area), its main checkout and siblings read-only. */
  readonly workspace?: WorkspaceConfinement;
  readonly network: boolean;
  /** Default `os.homedir()` and `air_home()`. */
  readonly home?: string;
  readonly air_home?: string;
};

/** Home-relative places that hold credentials: masked, because a command's output reaches the model. */
const HOME_SECRETS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config/gcloud",
  ".config/gh",
  ".npmrc",
  ".netrc",
  ".git-credentials",
  ".pypirc",
  ".pgpass",
];
/** Where name resolution looks when /run is masked and the network is allowed. */
const RESOLVER_DIRS = ["/run/systemd/resolve", "/run/resolvconf", "/run/NetworkManager"];

function inside(real: string, folder: string): boolean {
  return real === folder || real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

function real_if_exists(candidate: string): string | undefined {
  try {
    return fs.realpathSync.native(candidate);
  } catch {
    return undefined;
  }
}

/** The task's write area as real folders of the project (created when missing), or the whole project. */
function write_area(real_root: string, scope: TaskScope | undefined): string[] {
  if (scope?.write_area === undefined) return [real_root];
  return write_area_folders(real_root, scope.write_area).map((folder) => {
    const area = classify_path(folder, real_root, { real_root });
    if (!area.inside_project || (area.category !== "project_source" && area.category !== "project_build_output")) {
      throw air_failure({
        kind: "permission_error",
        message: `the task's write area ${scope.write_area?.join(", ")} is not a folder of the project a command may write (${area.category})`,
        retryability: "retryable_after_change",
        user_action: "Give the task a write area inside the project, outside .git and .air.",
        metadata: { write_area: scope.write_area ?? [], category: area.category },
      });
    }
    fs.mkdirSync(area.real, { recursive: true });
    return fs.realpathSync.native(area.real);
  });
}

/** Top-level build output folders (build, dist, cmake-build-debug …) that exist as real folders. */
function build_folders(real_root: string): string[] {
  return fs
    .readdirSync(real_root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(real_root, entry.name))
    .filter((folder) => classify_path(folder, real_root, { real_root }).category === "project_build_output");
}

export function plan_sandbox(options: PlanOptions): SandboxPlan {
  const real_root = real_root_of(options.workspace?.root ?? options.project_root);
  const visible = options.workspace === undefined ? [] : [real_root_of(options.workspace.project_root)];
  const areas = write_area(real_root, options.scope);
  const whole = areas.includes(real_root);
  const writable = whole ? [real_root] : [...areas, ...build_folders(real_root).filter((folder) => !areas.some((area) => inside(folder, area)))];
  const within_writable = (real: string) => writable.some((folder) => inside(real, folder));

  // A worktree has no .air of its own, and one made in it would be committed and merged with the task's work:
  // it exists, read-only, before the command starts.
  if (options.workspace !== undefined) fs.mkdirSync(path.join(real_root, ".air"), { recursive: true });
  const denied = (options.scope?.denied_paths ?? []).map(normalise_scope_path);
  const protected_paths = [".git", ".air", ...denied].map((relative) => real_if_exists(path.resolve(real_root, relative)));
  const read_only = protected_paths.filter((real): real is string => real !== undefined && within_writable(real));

  const home = options.home ?? os.homedir();
  const secrets = [options.air_home ?? air_home(), ...HOME_SECRETS.map((relative) => path.join(home, relative))];
  const hidden = secrets
    .map(real_if_exists)
    .filter((real): real is string => real !== undefined && !inside(real_root, real))
    .map((real) => ({ path: real, folder: fs.statSync(real).isDirectory() }));
  return { root: real_root, visible, cwd: options.cwd, writable, read_only, hidden, network: options.network };
}

/**
 * The bwrap arguments before `--`: the whole file system read-only, a private /dev, /proc and /tmp, /run
 * masked (it holds the sockets of docker, D-Bus and agents), then the writable folders, then the
 * read-only and hidden paths on top of them — bwrap applies them in order, so the last bind wins.
 */
export function bwrap_args(plan: SandboxPlan): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"];
  if (plan.network) for (const folder of RESOLVER_DIRS) args.push("--ro-bind-try", folder, folder);
  // The project again, read-only: under /tmp it would otherwise show only the writable folders.
  for (const folder of plan.visible) args.push("--ro-bind", folder, folder);
  args.push("--ro-bind", plan.root, plan.root);
  for (const folder of plan.writable) args.push("--bind", folder, folder);
  for (const real of plan.read_only) args.push("--ro-bind", real, real);
  for (const secret of plan.hidden) {
    if (secret.folder) args.push("--tmpfs", secret.path, "--remount-ro", secret.path);
    else args.push("--ro-bind", "/dev/null", secret.path);
  }
  if (!plan.network) args.push("--unshare-net");
  args.push(...BWRAP_ISOLATION, "--chdir", plan.cwd);
  return args;
}

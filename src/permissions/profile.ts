import type { PermissionAction } from "../contracts/events/permission.js";

/**
 * A permission profile (seeds 000 §9.2 layer 2, "permission_template"): the baseline action for each
 * kind of access, before task scope, path/command risk and credential overrides make it stricter.
 * Later layers can only tighten what a profile allows, never loosen it.
 */
export type PermissionProfile = {
  readonly name: string;
  /** Reading inside the project. */
  readonly read: PermissionAction;
  /** Writing inside the project. */
  readonly write: PermissionAction;
  /** Running a command plainly inside the project. */
  readonly execute: PermissionAction;
  /** A tool that declares network access. */
  readonly network: PermissionAction;
};

/** The default: read and write the project freely, announce commands, ask before the network. */
export const DEFAULT_PROFILE: PermissionProfile = {
  name: "default",
  read: "allow",
  write: "allow",
  execute: "announce_then_run",
  network: "ask_user",
};

/** Look, do not touch: for reviewers and planning. */
export const READ_ONLY_PROFILE: PermissionProfile = {
  name: "read_only",
  read: "allow",
  write: "deny",
  execute: "deny",
  network: "deny",
};

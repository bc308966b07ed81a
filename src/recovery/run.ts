import fs from "node:fs";
import * as v from "valibot";
import { SessionId } from "../contracts/ids.js";
import { log_summary } from "../logs/log.js";
import { session_db_path } from "../project/layout.js";
import type { Project } from "../project/project-store.js";
import { read_summary } from "../project/session-catalog.js";
import { open_session, type Session } from "../project/session-manager.js";
import { held_elsewhere, sweep_project_workspaces, sweep_session } from "../workspaces/sweep.js";
import { repair_invariants, type InvariantRepair } from "./invariant-repair.js";
import { scan_artifacts, type ArtifactScan } from "./orphan-artifacts.js";

/**
 * The recovery checks of seeds 000 §16.3 (steps 5–7): the orphan-artifact scan (orphan-artifacts.ts), the FK-off
 * invariant scan with repair (invariant-repair.ts) and the workspace GC by 003 §15's retention (workspaces/sweep.ts).
 * `air doctor --fix` runs them over every session of the project that no other air process holds; `air resume`
 * runs the first two on the session it resumes and the GC as `air run` does, says a line only when something
 * was found, and puts the summary into air.log.
 *
 * They change only air's own state — files under `.air/local`, rows and events of air's own databases, the
 * worktrees air made for its workspaces — never the user's project, so they do not go through the
 * PermissionEngine (the GC already runs unasked at every `air run`); `--dry-run` shows them beforehand.
 */
export type SessionRecovery = {
  readonly session_id: SessionId;
  readonly artifacts: ArtifactScan;
  readonly invariants: InvariantRepair;
  readonly workspaces: { readonly abandoned: readonly string[]; readonly cleaned: readonly string[] };
};

export type ProjectRecovery = {
  readonly dry_run: boolean;
  readonly sessions: readonly SessionRecovery[];
  /** Sessions open in another air process: not checked. */
  readonly busy: readonly SessionId[];
};

/** The sessions of the project that have a database. */
function session_ids(project: Project): SessionId[] {
  const { layout } = project;
  if (!fs.existsSync(layout.sessions)) return [];
  return fs
    .readdirSync(layout.sessions)
    .filter((name) => fs.existsSync(session_db_path(layout, name)) && v.is(SessionId, name))
    .map((name) => v.parse(SessionId, name))
    .sort();
}

type Findings = Pick<SessionRecovery, "artifacts" | "invariants" | "workspaces">;

/** Each count, with its words once done and before (a dry run). */
const COUNTS: readonly [(found: Findings) => number, string, string][] = [
  [(found) => found.artifacts.registered.length, "artifact file(s) registered", "artifact file(s) to register"],
  [(found) => found.artifacts.quarantined.length, "artifact file(s) quarantined", "artifact file(s) to quarantine"],
  [(found) => found.artifacts.missing.length, "recorded artifact(s) missing", "recorded artifact(s) missing"],
  [(found) => found.artifacts.changed.length, "recorded artifact(s) changed on disk", "recorded artifact(s) changed on disk"],
  [(found) => found.invariants.repaired.length, "dangling reference(s) repaired", "dangling reference(s) to repair"],
  [(found) => found.invariants.unrepaired.length, "dangling reference(s) left for you", "dangling reference(s) left for you"],
  [(found) => found.workspaces.abandoned.length, "workspace(s) abandoned", "workspace(s) to abandon"],
  [(found) => found.workspaces.cleaned.length, "workspace(s) cleaned", "workspace(s) to clean"],
];

/** The counts of a recovery, in words, leaving out what is zero; "" when nothing was found. */
export function recovery_summary(parts: readonly Findings[], dry_run = false): string {
  return COUNTS.map(([count, done, would]) => [parts.reduce((sum, part) => sum + count(part), 0), dry_run ? would : done] as const)
    .filter(([count]) => count > 0)
    .map(([count, label]) => `${count} ${label}`)
    .join(", ");
}

/** `air doctor --fix`: every session of the project, each opened (and so locked) in turn. */
export async function recover_project(project: Project, options: { readonly dry_run: boolean }): Promise<ProjectRecovery> {
  const now = new Date();
  const sessions: SessionRecovery[] = [];
  const busy: SessionId[] = [];
  for (const session_id of session_ids(project)) {
    // A deleted session's artifacts went on purpose and it is never reopened (D-054); an unreadable file is
    // open_session's to explain.
    if ((await read_summary(project.layout, session_id).catch(() => undefined))?.status === "deleted") continue;
    let session: Session;
    try {
      session = open_session(project, { session_id });
    } catch (error) {
      if (!held_elsewhere(error)) throw error;
      busy.push(session_id);
      continue;
    }
    try {
      const artifacts = scan_artifacts(session, { dry_run: options.dry_run, verify: "sha256" });
      const invariants = repair_invariants(session, { dry_run: options.dry_run });
      const workspaces = await sweep_session(session, now, { retire_ended: true, dry_run: options.dry_run });
      sessions.push({ session_id, artifacts, invariants, workspaces });
    } finally {
      session.close();
    }
  }
  const summary = recovery_summary(sessions);
  if (!options.dry_run && summary !== "") log_summary("recovery", `air doctor --fix: ${summary}`, { sessions, busy });
  return { dry_run: options.dry_run, sessions, busy };
}

/**
 * At `air resume`, on the session being resumed (artifact sizes only: hashing every artifact at each resume
 * costs too much) and the project's workspaces. The line to show, or undefined when nothing was found.
 */
export async function recover_at_resume(session: Session, now: Date = new Date()): Promise<string | undefined> {
  const artifacts = scan_artifacts(session, { dry_run: false, verify: "size" });
  const invariants = repair_invariants(session, { dry_run: false });
  const { abandoned, cleaned, busy } = await sweep_project_workspaces(session, now);
  const found = { session_id: session.id, artifacts, invariants, workspaces: { abandoned, cleaned } };
  const summary = recovery_summary([found]);
  if (summary === "") return undefined;
  log_summary("recovery", `air resume ${session.id}: ${summary}`, { ...found, busy });
  const leftover = artifacts.missing.length + artifacts.changed.length + invariants.unrepaired.length;
  return `Recovery: ${summary}${leftover > 0 ? " (`air doctor --fix --dry-run` shows what to do)" : ""}`;
}

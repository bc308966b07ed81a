import { locate_project_root, read_project } from "../../project/project-store.js";
import { recover_project, recovery_summary, type ProjectRecovery, type SessionRecovery } from "../../recovery/run.js";
import type { Io } from "../output.js";

/** The recovery checks of `air doctor --fix` in the project around `cwd`; null (as in its JSON) outside a project. */
export async function doctor_recovery(cwd: string, dry_run: boolean): Promise<ProjectRecovery | null> {
  const root = locate_project_root(cwd);
  return root === undefined ? null : recover_project(read_project(root), { dry_run });
}

const MISSING_ACTION = "its row stays (it is history); restore the file from a backup if you have one, or leave it: what cites it cannot be opened";
const CHANGED_ACTION = "something other than air changed it; restore it from a backup if you have one, or leave it: its evidence no longer matches";

/** Each finding of one session that the counts do not say, with what to do where the user has something to do. */
function session_lines(found: SessionRecovery, dry_run: boolean): string[] {
  const verb = (done: string, would: string) => (dry_run ? would : done);
  const { artifacts, invariants, workspaces } = found;
  return [
    ...artifacts.registered.map((file) => `${verb("registered", "would register")} ${file.path} as ${file.artifact_id}`),
    ...artifacts.quarantined.map((file) => `${verb("quarantined", "would quarantine")} ${file.path}: ${file.reason}`),
    ...artifacts.missing.map((file) => `missing: ${file.path} (${file.artifact_id}) — ${MISSING_ACTION}`),
    ...artifacts.changed.map((file) => `changed: ${file.path} (${file.artifact_id}), ${file.detail} — ${CHANGED_ACTION}`),
    ...invariants.repaired.map(({ orphan, action }) => `${orphan.table}.${orphan.column} of ${orphan.id}: ${dry_run ? `would be ${action}` : action}`),
    ...invariants.unrepaired.map(({ orphan, reason, user_action }) => `${orphan.table}.${orphan.column} of ${orphan.id}: ${reason} — ${user_action}`),
    ...workspaces.abandoned.map((id) => `workspace ${id}: ${verb("abandoned", "would be abandoned")} (its task ended without merging it)`),
    ...workspaces.cleaned.map((id) => `workspace ${id}: ${verb("cleaned", "would be cleaned")} (past its retention; the row stays)`),
  ];
}

/** The "Recovery" section of `air doctor --fix`: the counts, then each session's findings. */
export function render_recovery(io: Io, recovery: ProjectRecovery | null): void {
  if (recovery === null) {
    io.out("Recovery: no air project here, nothing to check.\n");
    return;
  }
  const summary = recovery_summary(recovery.sessions, recovery.dry_run);
  const checked = `${recovery.sessions.length} session(s) checked`;
  const heading = recovery.dry_run ? "Recovery (dry run, nothing is changed)" : "Recovery";
  io.out(`${heading}: ${checked}${summary === "" ? ", nothing to recover" : `: ${summary}`}\n`);
  for (const found of recovery.sessions) {
    const lines = session_lines(found, recovery.dry_run);
    if (lines.length === 0) continue;
    io.out(`  ${found.session_id}:\n`);
    for (const line of lines) io.out(`    ${line}\n`);
  }
  for (const id of recovery.busy) io.out(`  ${id}: open in another air process, not checked; run \`air doctor --fix\` again once it has ended\n`);
}

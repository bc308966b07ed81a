import { air_failure } from "../contracts/errors.js";
import { MAX_EVENT_PATHS } from "../contracts/events/snapshot.js";
import { make_event, type EventType, type PayloadInputOf } from "../contracts/events/registry.js";
import { is_allowed, type PermissionRequest } from "../permissions/engine.js";
import type { PromptAnswerer } from "../permissions/prompts.js";
import { permissions_for_project } from "../permissions/session-permissions.js";
import type { Project } from "../project/project-store.js";
import { open_session, type Session } from "../project/session-manager.js";
import { snapshot_taken_payload } from "../project/snapshot-manifest.js";
import { apply_restore, type AppliedRestore, type RestorePlan } from "../project/snapshot-restore.js";
import type { SnapshotStore } from "../project/snapshot-store.js";

/** The name a restore's writes are judged and recorded under, as a tool's would be. */
const RESTORE_TOOL = "air.restore";

/**
 * The answer to a prompt the engine raises for the restore: the user already saw the diff and said yes to it
 * (`y` on the terminal, or `--yes`), so that confirmation answers this one call — never a standing grant.
 */
const CONFIRMED: PromptAnswerer = {
  answer: async () => ({ answer: "allow", grant_scope: "once", resolved_by: "user", note: "the user confirmed the restore's diff" }),
};

function request_of(plan: RestorePlan, diff: string): PermissionRequest {
  return {
    tool_name: RESTORE_TOOL,
    category: "filesystem",
    declared: { reads: true, writes: true, executes: false, network: false },
    reads: [],
    writes: plan.files.map((file) => file.path),
    change: () => diff,
    project_root: plan.root,
  };
}

/** The PermissionEngine judges every file the restore writes; anything short of an allow stops it with nothing written. */
async function authorize(session: Session, plan: RestorePlan, diff: string): Promise<void> {
  const engine = permissions_for_project(session.project.layout, { answerer: CONFIRMED });
  const request = request_of(plan, diff);
  const recorder = { ingestor: session.ingestor, origin: session.origin };
  const decision = await engine.evaluate(request, recorder);
  engine.record(decision, request, recorder);
  if (is_allowed(decision.action)) return;
  throw air_failure({
    kind: "permission_error",
    message: `the restore was refused by the permissions (${decision.layer}): ${decision.reason}; nothing was written`,
    retryability: "not_retryable",
    user_action: "Restore only the files the permissions allow (`air restore file PATH`), or change the rule that refuses them.",
    metadata: { decision_id: decision.decision_id, session_id: session.id },
  });
}

function record_applied(session: Session, plan: RestorePlan, applied: AppliedRestore): void {
  const emit = <T extends EventType>(type: T, payload: PayloadInputOf<T>) => session.ingestor.ingest(make_event(type, payload, session.origin));
  emit("snapshot.taken", snapshot_taken_payload(applied.before));
  emit("snapshot.taken", snapshot_taken_payload(applied.after));
  emit("restore.applied", {
    target: plan.target,
    files: applied.files.slice(0, MAX_EVENT_PATHS).map((file) => ({ path: file.path, action: file.restored.kind === "absent" ? "deleted" : "written" })),
    files_total: applied.files.length,
    before_snapshot_id: applied.before.snapshot_id,
    after_snapshot_id: applied.after.snapshot_id,
    commit: applied.after.commit,
  });
}

/**
 * Applies a confirmed restore as air's own permissioned, snapshotted action: in a session of its own (so
 * `air restore session ID` undoes exactly it), judged by the PermissionEngine, snapshotted before and after
 * by `apply_restore`, and recorded as `snapshot.taken` and `restore.applied` events.
 */
export async function apply_confirmed(
  project: Project,
  store: SnapshotStore,
  plan: RestorePlan,
  diff: string,
  title: string,
): Promise<{ applied: AppliedRestore; session_id: string }> {
  const session = open_session(project, { title });
  try {
    await authorize(session, plan, diff);
    const applied = await apply_restore(store, plan, { session_id: session.id });
    record_applied(session, plan, applied);
    return { applied, session_id: session.id };
  } finally {
    session.close();
  }
}

import { inArray } from "drizzle-orm";
import { detect_triggers } from "../../architecture/triggers.js";
import { load_architecture_paths } from "../../architecture/declared-paths.js";
import type { TaskChange } from "../../architecture/change.js";
import { read_change, reported_change } from "../../architecture/read-change.js";
import type { ArchitectureDesigner, ImpactTrigger } from "../../contracts/architecture.js";
import { to_air_error, type AirError } from "../../contracts/errors.js";
import type { BlockerReport, ReviewFinding, WorkerResult } from "../../contracts/worker-result.js";
import { tasks } from "../../db/schema.js";
import type { Finished, GateOutcome } from "../../machines/scheduler.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { WorkspaceRef } from "../../workspaces/manager.js";
import { settle_impact } from "./architecture-outcome.js";
import { emitter } from "./emit.js";
import { read_task } from "./task-graph.js";

const emit = emitter("architecture_designer");

export type ArchitectureGateOptions = {
  readonly session: Session;
  readonly registry: ToolRegistry;
  readonly designer: ArchitectureDesigner;
  /** The task's worktree, when it works in one (its change is read against the worktree's base). */
  readonly worktree: (task_id: string) => WorkspaceRef | undefined;
  /** The findings the review gate recorded for the task's latest attempt (none when no review ran). */
  readonly review_findings?: (task_id: string) => readonly ReviewFinding[];
};

/**
 * The task's change against its base: its worktree's whole change; in the main checkout, the files the worker
 * changed against HEAD (the user's own uncommitted edits are not the task's); no git, the files reported.
 */
async function change_of(options: ArchitectureGateOptions, task_id: string, result: WorkerResult): Promise<TaskChange> {
  const ref = options.worktree(task_id);
  try {
    if (ref?.base_commit !== undefined) return await read_change(ref.path, ref.base_commit);
    return await read_change(options.session.project.layout.root, "HEAD", result.changed_files);
  } catch {
    return reported_change(result.changed_files);
  }
}

/** A worker's architecture blocker rides on a debugger's result (an executor's blocked result never gets here). */
const blockers_of = (result: WorkerResult): BlockerReport[] =>
  result.agent_type === "debugger" && result.result.blocker !== undefined ? [result.result.blocker] : [];

/** The tasks of the session not yet finished: those the designer may name as impacted. */
function unfinished_tasks(session: Session): string[] {
  return session.connection.db
    .select({ id: tasks.id })
    .from(tasks)
    .where(inArray(tasks.status, ["pending", "running", "interrupted", "blocked", "failed"]))
    .all()
    .map((row) => row.id);
}

function blocked(session: Session, task_id: string, result: WorkerResult, error: AirError): GateOutcome {
  emit(session, "task.blocked", { task_id, reason: error.message, error, worker_result: result });
  return { passed: false };
}

/**
 * The Architecture Designer's gate (seeds 000 §19.4, 003 §10.7) on one task's completed work: nothing that
 * sets it off, it passes without a model call; else the designer assesses the change, its verdict is recorded
 * as `architecture.impact.completed`, and the result class decides (see `settle_impact`). A broken
 * `architecture.yaml` or a designer that cannot answer blocks the task with that error.
 */
export async function assess_architecture(options: ArchitectureGateOptions, finished: Finished, signal?: AbortSignal): Promise<GateOutcome> {
  const { session } = options;
  const { task_id, run } = finished;
  if (run.status !== "completed") return { passed: true };
  const result = run.result;
  let triggers: ImpactTrigger[];
  let change: TaskChange;
  try {
    const declared = load_architecture_paths(session.project.layout);
    change = await change_of(options, task_id, result);
    triggers = detect_triggers({ change, declared, findings: options.review_findings?.(task_id) ?? [], blockers: blockers_of(result) });
  } catch (error) {
    return blocked(session, task_id, result, to_air_error(error, "architecture_error"));
  }
  if (triggers.length === 0) return { passed: true };
  const title = read_task(session.connection, task_id).title;
  let impact: Awaited<ReturnType<ArchitectureDesigner["assess"]>>;
  try {
    impact = await options.designer.assess(
      {
        summary: `task ${task_id} "${title}": ${result.summary}`,
        triggers,
        change: change.diff,
        task_ids: unfinished_tasks(session),
        evidence_refs: result.evidence_refs,
      },
      signal,
    );
  } catch (error) {
    return blocked(session, task_id, result, to_air_error(error, "architecture_error"));
  }
  const impacted = impact.impacted_task_ids.filter((id) => id !== task_id);
  emit(session, "architecture.impact.completed", {
    impact:
      impact.result_class === "silent_continue"
        ? "none"
        : impact.result_class === "requires_user_confirmation" && impact.plan_update === undefined
          ? "execution_only"
          : "design",
    result_class: impact.result_class,
    triggers,
    impacted_task_ids: impacted,
    summary: impact.summary,
  });
  return settle_impact({ ...options, emit }, { task_id, title, result, triggers, impact: { ...impact, impacted_task_ids: impacted } }, signal);
}

import * as v from "valibot";
import { make_air_error } from "../../contracts/errors.js";
import { new_id, TaskId } from "../../contracts/ids.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { ReviewFinding, WorkerResult } from "../../contracts/worker-result.js";
import type { Finished, GateOutcome } from "../../machines/scheduler.js";
import type { TaskChange } from "../../orchestration/review/change.js";
import { false_success_of, review_need } from "../../orchestration/review/gate-checks.js";
import { review_instructions } from "../../orchestration/review/review-brief.js";
import type { ReviewSettings } from "../../orchestration/review/settings.js";
import { findings_text, gate_verdict } from "../../orchestration/review/verdict.js";
import type { Session } from "../../project/session-manager.js";
import { emitter } from "./emit.js";
import type { RunReviewer } from "./review-run.js";
import { task_change } from "./task-change.js";
import { read_task_spec } from "./task-graph.js";
import type { TaskWorkspaces } from "./task-workspaces.js";

const emit = emitter("scheduler");

/** The review gate's settings (`review:` of the config) and who runs a reviewer; none runs without one. */
export type ReviewGateOptions = { readonly settings: ReviewSettings; readonly run_reviewer?: RunReviewer };

/** What the task's blocked reason or failure says of the findings: enough to read, within an event's reason. */
const MAX_FINDINGS_CHARS = 3_000;

function clip(text: string): string {
  return text.length <= MAX_FINDINGS_CHARS ? text : `${text.slice(0, MAX_FINDINGS_CHARS - 1)}…`;
}

/** The task's change against its base: its worktree's whole diff, or in the main checkout the files its worker changed. */
async function change_of(session: Session, workspaces: TaskWorkspaces, task_id: string, result: WorkerResult): Promise<TaskChange> {
  const ref = workspaces.ref_of(task_id);
  const measured =
    ref?.base_commit === undefined
      ? await task_change(session.project.layout.root, "HEAD", result.changed_files)
      : await task_change(ref.path, ref.base_commit);
  // Outside git, the worker's account is all there is: its files, with no line counts.
  return measured ?? { files: result.changed_files.map((path) => ({ path, added: 0, deleted: 0 })), diff: "" };
}

function review_failure(findings: readonly ReviewFinding[]) {
  return make_air_error({
    kind: "agent_error",
    message: `the review requested changes: ${findings.length} finding(s)`,
    retryability: "retryable_after_change",
    user_action: "air retries the task with the reviewer's findings in its brief.",
    metadata: { review_findings: true, detail: clip(findings_text(findings)) },
  });
}

/** A review that gave no verdict holds the work for the user: the executor's work may be fine, nobody checked it. */
function unreviewed(session: Session, task_id: string, result: WorkerResult, why: string): GateOutcome {
  emit(session, "task.blocked", { task_id, worker_result: result, reason: clip(`the review gave no verdict: ${why}`) });
  return { passed: false };
}

/**
 * The review gate (seeds 000 §20.2 REVIEWING_WAVE) on a completed code-changing run. First, with no model, a
 * false success never passes (nothing changed, or nothing the task expected): the task fails for a retry that
 * sees why. Then the policy decides whether a reviewer reads the change; its verdict is recorded, findings under
 * the confidence threshold only advise, `changes_requested` fails the task for a repair with the findings, and
 * `rejected` blocks it with them.
 */
export async function review_gate(
  session: Session,
  workspaces: TaskWorkspaces,
  options: ReviewGateOptions,
  finished: Finished,
  signal: AbortSignal,
): Promise<GateOutcome> {
  const { task_id, run } = finished;
  if (run.status !== "completed") throw new Error(`no completed run of ${task_id} to review`);
  const result = run.result;
  const task = read_task_spec(session.connection, task_id);
  const change = await change_of(session, workspaces, task_id, result);
  const false_success = false_success_of(change, task.scope);
  if (false_success !== undefined) {
    emit(session, "task.failed", { task_id, worker_result: result, error: false_success });
    return { passed: false };
  }
  const need = review_need(options.settings, change);
  const { run_reviewer } = options;
  if (!need.review || run_reviewer === undefined) return { passed: true };
  return reviewed(session, workspaces, { task, result, change, why: need.reason, run_reviewer, threshold: options.settings.confidence_threshold }, signal);
}

type Reviewing = {
  readonly task: TaskSpec;
  readonly result: WorkerResult;
  readonly change: TaskChange;
  readonly why: string;
  readonly run_reviewer: RunReviewer;
  readonly threshold: number;
};

async function reviewed(
  session: Session,
  workspaces: TaskWorkspaces,
  { task, result, change, why, run_reviewer, threshold }: Reviewing,
  signal: AbortSignal,
): Promise<GateOutcome> {
  const task_id = v.parse(TaskId, task.id);
  const agent_id = new_id("agent");
  const ref = workspaces.ref_of(task_id);
  const workspace = ref === undefined ? undefined : { workspace_id: ref.workspace_id, root: ref.path, project_root: session.project.layout.root };
  const outcome = await run_reviewer(
    { task, agent_id, instructions: review_instructions(task, result, change, why), ...(workspace === undefined ? {} : { workspace }) },
    signal,
  );
  if (signal.aborted) return { passed: false };
  if (outcome.status !== "completed") return unreviewed(session, task_id, result, outcome.error.message);
  if (outcome.result.agent_type !== "reviewer" || outcome.result.status !== "completed") return unreviewed(session, task_id, result, outcome.result.summary);
  const verdict = gate_verdict(outcome.result.result, threshold);
  emit(session, "review.completed", {
    task_id,
    agent_id,
    verdict: verdict.verdict,
    findings: [...verdict.gating, ...verdict.advisory],
    gating: !verdict.passed,
    advisory: verdict.advisory.length,
  });
  if (verdict.passed) return { passed: true };
  if (verdict.verdict === "rejected") {
    emit(session, "task.blocked", { task_id, worker_result: result, reason: clip(`the reviewer rejected the work:\n${findings_text(verdict.gating)}`) });
    return { passed: false };
  }
  emit(session, "task.failed", { task_id, worker_result: result, error: review_failure(verdict.gating) });
  return { passed: false };
}

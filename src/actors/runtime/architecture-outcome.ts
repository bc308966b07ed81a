import * as v from "valibot";
import { PLAN_WRITE_TOOL } from "../../architecture/plan-write-tool.js";
import type { ArchitectureImpact, ImpactTrigger } from "../../contracts/architecture.js";
import { make_air_error, type AirError } from "../../contracts/errors.js";
import type { EventType, PayloadInputOf } from "../../contracts/events/registry.js";
import { ArtifactId, TaskId } from "../../contracts/ids.js";
import type { WorkerResult } from "../../contracts/worker-result.js";
import type { GateOutcome } from "../../machines/scheduler.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { read_task } from "./task-graph.js";

type Emit = <T extends EventType>(session: Session, type: T, payload: PayloadInputOf<T>) => void;

type OutcomeDependencies = { readonly session: Session; readonly registry: ToolRegistry; readonly emit: Emit };

export type AssessedTask = {
  readonly task_id: string;
  readonly title: string;
  readonly result: WorkerResult;
  readonly triggers: readonly ImpactTrigger[];
  readonly impact: ArchitectureImpact;
};

/** What `plan.write` returns that the plan's event records. */
const PlanWritten = v.object({ path: v.string(), changed: v.boolean(), diff_artifact_id: v.optional(ArtifactId) });

function block(deps: OutcomeDependencies, task: AssessedTask, error: AirError): GateOutcome {
  deps.emit(deps.session, "task.blocked", { task_id: task.task_id, reason: error.message, error, worker_result: task.result });
  return { passed: false };
}

function architecture_block(message: string, user_action: string): AirError {
  return make_air_error({ kind: "architecture_error", message, retryability: "not_retryable", user_action });
}

/** The how-manieth version of a plan document this is: one more than the updates recorded for it so far. */
function next_plan_version(session: Session, plan_ref: string): number {
  const earlier = session.store.query({ types: ["architecture.plan.updated"] });
  return earlier.filter(({ event }) => event.type === "architecture.plan.updated" && event.payload.plan_ref === plan_ref).length + 1;
}

/**
 * A confirmed plan update, through the tools (ToolRegistry → PermissionEngine → `plan.write`), recorded as
 * `architecture.plan.updated`; the write's refusal or failure is returned, and nothing is recorded then.
 */
async function write_plan(deps: OutcomeDependencies, task: AssessedTask, signal?: AbortSignal): Promise<AirError | undefined> {
  const update = task.impact.plan_update;
  if (update === undefined) return undefined;
  const { session, registry } = deps;
  const caller = { session, task_id: v.parse(TaskId, task.task_id), ...(signal === undefined ? {} : { signal }) };
  const outcome = await registry.call({ tool_name: PLAN_WRITE_TOOL, input: { path: update.path, content: update.content } }, caller);
  if (!outcome.ok) return outcome.error;
  const written = v.parse(PlanWritten, outcome.output);
  if (!written.changed) return undefined;
  deps.emit(session, "architecture.plan.updated", {
    plan_ref: written.path,
    plan_version: next_plan_version(session, written.path),
    summary: update.summary,
    ...(written.diff_artifact_id === undefined ? {} : { artifact_id: written.diff_artifact_id }),
  });
  return undefined;
}

/** Asks the user through the permission prompt path whether the change (and its plan update) may land. */
async function confirmed(deps: OutcomeDependencies, task: AssessedTask, signal?: AbortSignal): Promise<boolean> {
  const { impact } = task;
  const update =
    impact.plan_update === undefined ? "" : ` The plan document .air/shared/plan/${impact.plan_update.path} is updated: ${impact.plan_update.summary}.`;
  const answer = await deps.registry.permissions.confirm(
    {
      subject: "architecture.gate",
      question: `Let the work of task "${task.title}" land? ${impact.summary}${update}`,
      reason: task.triggers.map((trigger) => trigger.detail).join("; "),
      risk_level: "medium",
      task_id: v.parse(TaskId, task.task_id),
    },
    deps.session,
    signal,
  );
  return answer.answer === "allow";
}

/** Interrupted for a replan: the task in hand (its work stays in its workspace) and the impacted ones not started. */
function interrupt_for_replan(deps: OutcomeDependencies, task: AssessedTask): GateOutcome {
  const { session, emit } = deps;
  const reason = `the Architecture Designer asks for a replan: ${task.impact.summary}`;
  emit(session, "task.interrupted", { task_id: task.task_id, reason });
  for (const task_id of task.impact.impacted_task_ids) {
    if (read_task(session.connection, task_id).status === "pending") emit(session, "task.interrupted", { task_id, reason });
  }
  return { passed: false, replan: { task_ids: [task.task_id, ...task.impact.impacted_task_ids], reason: task.impact.summary } };
}

/**
 * What each result class does (seeds 000 §19.4): `silent_continue` passes; `requires_user_confirmation` asks
 * the user, passes once allowed (after writing the plan update) and blocks the task when denied;
 * `requires_replan` interrupts the task and the impacted ones and sends them back to be planned again;
 * `reject_or_escalate` blocks the task with the designer's summary.
 */
export async function settle_impact(deps: OutcomeDependencies, task: AssessedTask, signal?: AbortSignal): Promise<GateOutcome> {
  const { impact } = task;
  switch (impact.result_class) {
    case "silent_continue":
      return { passed: true };
    case "requires_user_confirmation": {
      if (!(await confirmed(deps, task, signal))) {
        const error = architecture_block(
          `the architecture change was not confirmed: ${impact.summary}`,
          "Unblock the task once you agree to the change, or cancel it.",
        );
        return block(deps, task, error);
      }
      const refused = await write_plan(deps, task, signal);
      return refused === undefined ? { passed: true } : block(deps, task, refused);
    }
    case "requires_replan":
      return interrupt_for_replan(deps, task);
    case "reject_or_escalate":
      return block(
        deps,
        task,
        architecture_block(`the Architecture Designer rejected the change: ${impact.summary}`, "Decide on the design, then unblock or cancel the task."),
      );
  }
}

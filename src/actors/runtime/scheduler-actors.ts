import { fromPromise } from "xstate";
import { make_air_error } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import {
  scheduler_machine,
  type Collected,
  type Finished,
  type GateOutcome,
  type MergeOutcome,
  type RunWorkerLogic,
  type WaveDecision,
} from "../../machines/scheduler.js";
import { plan_wave } from "../../orchestration/waves/plan-wave.js";
import type { RunBudget } from "../../contracts/budget.js";
import { writes_code } from "../../contracts/task.js";
import { run_budget_left } from "../../orchestration/budget/enforce.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { MergeResult } from "../../workspaces/merge-result.js";
import type { ArchitectureDesigner } from "../../contracts/architecture.js";
import { assess_architecture } from "./architecture-gate.js";
import type { DebugKnowledgeStore } from "../../debug/knowledge-store.js";
import { reconcile_debug_records, record_landed_debug_fix } from "./debug-outbox.js";
import { DEFAULT_REVIEW_SETTINGS } from "../../orchestration/review/settings.js";
import { emitter } from "./emit.js";
import { review_gate, type ReviewGateOptions } from "./review-gate.js";
import { finished_unsettled } from "./finished-runs.js";
import { completed_task_ids, read_task, read_task_graph, read_task_spec } from "./task-graph.js";
import { retry_step } from "./retry-step.js";
import { settle_task } from "./settle-task.js";
import { type LoneTask, TaskWorkspaces } from "./task-workspaces.js";
import { task_titles, wave_announcer } from "./wave-announcement.js";
import { read_wave_input, record_serializations } from "./wave-rows.js";

const emit = emitter("scheduler");

/** How many agents run at once unless `--max-parallel` or the config says otherwise. */
export const DEFAULT_MAX_PARALLEL = 4;

export type SchedulerOptions = {
  readonly registry: ToolRegistry;
  readonly max_parallel: number;
  /** The run's limits: once one is reached, nothing more is dispatched (`model.complete` refuses the calls). */
  readonly run_budget?: RunBudget;
  /** Where a lone code task works (default: the main checkout). */
  readonly lone_task?: LoneTask;
  /** Called after each step that ends a finished run's handling (the ExperienceMiner's triggers); must not block. */
  readonly after_step?: () => void;
  /** The Architecture Designer behind the architecture gate; without one the gate passes everything. */
  readonly architecture_designer?: ArchitectureDesigner;
  /** The project's debug knowledge: a debug attempt whose work lands writes its record here (the outbox). */
  readonly debug_records?: DebugKnowledgeStore;
  /** The review gate's policy and reviewer (default: the default policy, with no reviewer: only the false-success checks). */
  readonly review?: ReviewGateOptions;
};

/** Called once a task's work has landed (merged, or completed in the main checkout). */
type OnLanded = (task_id: string) => void;

/** The run's budget, when one is spent: the reason the Scheduler starts nothing more. */
function held_back(session: Session, budget: RunBudget | undefined) {
  if (budget === undefined) return undefined;
  const left = run_budget_left(session.connection, budget);
  if (left.kind === "ok") return undefined;
  return make_air_error({
    kind: "policy_error",
    message: `the run's budget is spent: ${left.reason}; no further task was started`,
    retryability: "not_retryable",
    user_action: "Raise --max-budget-usd or --max-tokens (or the budget in ~/.air/config.yaml) and run air resume.",
    metadata: { ...left.refusal },
  });
}

/** A merge that did not land, as the task's failure: what the retry of the task (or the user) has to resolve. */
function merge_failure(result: Exclude<MergeResult, { kind: "merged" }>) {
  if (result.kind === "conflicted") {
    return make_air_error({
      kind: "merge_error",
      message: `the task's work conflicts with the checkout in ${result.files.join(", ")}`,
      retryability: "retryable_after_change",
      user_action: "air retries the task on the merged checkout; if it stays blocked, resolve the overlap by hand.",
      metadata: { conflicts: result.conflicts.map((conflict) => ({ path: conflict.path, messages: conflict.messages, hunks: conflict.hunks })) },
    });
  }
  return make_air_error({
    kind: "test_error",
    message: `the task's verification failed on the merged checkout: ${result.outcome.reason}`,
    retryability: "retryable_after_change",
    user_action: "air retries the task on the merged checkout; the checkout was restored as it was before the merge.",
    metadata: { detail: result.outcome.detail ?? "" },
  });
}

/** The merge queue's step for one task: its verdict is the merge's, since work that did not land is not done. */
async function merge_task(session: Session, workspaces: TaskWorkspaces, finished: Finished, on_landed: OnLanded): Promise<MergeOutcome> {
  const ref = workspaces.ref_of(finished.task_id);
  if (ref === undefined || finished.run.status !== "completed") throw new Error(`no completed worktree run of ${finished.task_id} to merge`);
  const result = await workspaces.merge(ref, read_task_spec(session.connection, finished.task_id));
  if (result.kind === "merged") {
    emit(session, "task.completed", { task_id: finished.task_id, worker_result: finished.run.result });
    on_landed(finished.task_id);
    await workspaces.cleanup(ref);
  } else emit(session, "task.failed", { task_id: finished.task_id, worker_result: finished.run.result, error: merge_failure(result) });
  return { kind: result.kind };
}

/** After a failed attempt: the RetryPlanner's step; a retry starts from the merged checkout in a fresh workspace. */
async function repair_task(session: Session, workspaces: TaskWorkspaces, task_id: string, merge: MergeOutcome | undefined): Promise<void> {
  const decision = retry_step(session, task_id);
  const stale = workspaces.ref_of(task_id, ["active", "conflicted"]);
  if (stale !== undefined && decision !== undefined && merge !== undefined && merge.kind !== "merged") {
    await workspaces.abandon(stale, `attempt failed to merge (${merge.kind}); ${decision.action}`);
  }
}

/** The gates on one finished run (the review, then the architecture). */
type Gate = (finished: Finished) => Promise<GateOutcome>;

/**
 * A run the dead runtime finished but did not settle, as the Scheduler would have gone on: its work waits in
 * its worktree (a merge cut off and rolled back included) and goes through the merge queue; a merge that
 * recovery completed only needs its task settled; any other run is settled from its result.
 */
async function settle_after_crash(session: Session, workspaces: TaskWorkspaces, finished: Finished, gate: Gate, on_landed: OnLanded): Promise<void> {
  const { task_id, run } = finished;
  const landed = workspaces.ref_of(task_id, ["merged"]);
  if (run.status === "completed" && run.result.status === "completed" && landed !== undefined) {
    emit(session, "task.completed", { task_id, worker_result: run.result });
    on_landed(task_id);
    return workspaces.cleanup(landed);
  }
  // Work that has not landed passes the review gate first, as it would have without the crash.
  const gated = run.status === "completed" && run.result.status === "completed" && writes_code(read_task_spec(session.connection, task_id).type);
  if (gated && !(await gate(finished)).passed) return repair_task(session, workspaces, task_id, undefined);
  if (run.status === "completed" && run.result.status === "completed" && workspaces.ref_of(task_id) !== undefined) {
    const merge = await merge_task(session, workspaces, finished, on_landed);
    if (merge.kind !== "merged") await repair_task(session, workspaces, task_id, merge);
    return;
  }
  settle_task(session, task_id, run);
  on_landed(task_id);
  await repair_task(session, workspaces, task_id, undefined);
}

/**
 * The I/O of the Scheduler machine: reads rows, plans waves, makes workspaces, writes events, runs one worker
 * per task through the given `run_worker` logic (the worker-run machine with its bridge) and merges the work.
 */
export function provide_scheduler(session: Session, run_worker: RunWorkerLogic, options: SchedulerOptions) {
  const workspaces = new TaskWorkspaces(session, options.registry, options.lone_task);
  const announce = wave_announcer((task_ids) => task_titles(session.connection, task_ids));
  const { debug_records } = options;
  const on_landed: OnLanded = (task_id) => {
    if (debug_records !== undefined) record_landed_debug_fix(session, debug_records, task_id);
  };
  const review = options.review ?? { settings: DEFAULT_REVIEW_SETTINGS };
  const architecture = (finished: Finished, signal: AbortSignal): Promise<GateOutcome> => {
    const designer = options.architecture_designer;
    if (designer === undefined) return Promise.resolve({ passed: true });
    const gate = { session, registry: options.registry, designer, worktree: (task_id: string) => workspaces.ref_of(task_id) };
    return assess_architecture(gate, finished, signal);
  };
  return scheduler_machine.provide({
    actors: {
      recover: fromPromise(async ({ signal }) => {
        await workspaces.recover();
        // Work that had not landed passes both gates first, as it would have without the crash.
        const gate = async (finished: Finished): Promise<GateOutcome> => {
          const reviewed = await review_gate(session, workspaces, review, finished, signal);
          return reviewed.passed ? architecture(finished, signal) : reviewed;
        };
        for (const finished of finished_unsettled(session)) await settle_after_crash(session, workspaces, finished, gate, on_landed);
        if (debug_records !== undefined) reconcile_debug_records(session, debug_records, completed_task_ids(session.connection));
      }),
      load_graph: fromPromise(async () => read_task_graph(session.connection)),
      plan_wave: fromPromise(async ({ input }): Promise<WaveDecision> => {
        const spent = held_back(session, options.run_budget);
        if (spent !== undefined) return { dispatch: [], held_back: spent };
        const serial_reason = await workspaces.serial_reason();
        const plan = plan_wave(read_wave_input(session, serial_reason === undefined ? options.max_parallel : 1));
        record_serializations(session, plan);
        const dispatch = plan.dispatch.filter((task_id) => !input.running.includes(task_id));
        const wave = announce(plan, dispatch, serial_reason);
        if (wave !== undefined) emit(session, "wave.planned", wave);
        return { dispatch };
      }),
      dispatch: fromPromise(async ({ input }) => {
        const agents = input.task_ids.map((task_id) => ({ task_id, agent_id: new_id("agent") }));
        const made = await workspaces.for_dispatch(agents);
        for (const { task_id, agent_id } of agents) {
          const workspace_id = made.get(task_id)?.workspace_id;
          emit(session, "task.started", { task_id, attempt_id: new_id("attempt"), agent_id, ...(workspace_id === undefined ? {} : { workspace_id }) });
        }
        return agents;
      }),
      run_worker,
      collect: fromPromise(async ({ input }): Promise<Collected> => {
        const merge = workspaces.ref_of(input.task_id) !== undefined;
        if (input.run.status === "completed" && input.run.result.status === "completed") {
          const gate = writes_code(read_task_spec(session.connection, input.task_id).type);
          if (gate || merge) return { gate, merge };
        }
        settle_task(session, input.task_id, input.run);
        on_landed(input.task_id);
        return { gate: false, merge: false };
      }),
      review: fromPromise(async ({ input, signal }) => review_gate(session, workspaces, review, input, signal)),
      assess_architecture: fromPromise(async ({ input, signal }) => architecture(input, signal)),
      settle: fromPromise(async ({ input }) => {
        settle_task(session, input.task_id, input.run);
        on_landed(input.task_id);
      }),
      merge: fromPromise(async ({ input }) => merge_task(session, workspaces, input, on_landed)),
      repair: fromPromise(async ({ input }) => {
        await repair_task(session, workspaces, input.task_id, input.merge);
        options.after_step?.();
      }),
      cancel_tasks: fromPromise(async ({ input }) => {
        for (const task_id of input.task_ids) {
          const { status } = read_task(session.connection, task_id);
          if (status === "pending" || status === "running" || status === "blocked" || status === "interrupted") {
            emit(session, "task.cancelled", { task_id, reason: input.reason });
          }
        }
      }),
    },
  });
}

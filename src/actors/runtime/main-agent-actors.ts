import { fromPromise } from "xstate";
import type { SessionPrompts } from "../../context/session-prompts.js";
import { new_id } from "../../contracts/ids.js";
import type { ModelRequest, ModelResponse } from "../../contracts/provider.js";
import { main_agent_machine, type RequestOutcome } from "../../machines/main-agent.js";
import type { RunWorkerLogic } from "../../machines/scheduler.js";
import type { Session } from "../../project/session-manager.js";
import { direct_mode_actors, type DirectModeTools } from "./direct-mode.js";
import type { TaskDefaults } from "../../orchestration/plan/task-spec.js";
import { classify } from "./classification.js";
import { batch_emitter, emitter } from "./emit.js";
import { provide_scheduler, type SchedulerOptions } from "./scheduler-actors.js";
import { task_summary } from "./final-summary.js";
import type { ArchitectureDesigner } from "../../contracts/architecture.js";
import { classify_change, triage } from "./mid-run.js";
import { apply_revision, design_plan, revise_architecture, revise_tasks } from "./revision.js";
import { conversation_until } from "../../context/main-history.js";

type CompleteModel = (request: ModelRequest, requester: string) => Promise<ModelResponse>;

export type MainAgentDependencies = {
  readonly complete: CompleteModel;
  /** Runs one task's worker: the worker-run machine with its bridge. */
  readonly run_worker: RunWorkerLogic;
  /** The Scheduler's tools (for the merge queue's verification) and how many agents it runs at once. */
  readonly scheduler: SchedulerOptions;
  readonly task_defaults: TaskDefaults;
  /** Assembles the Main Agent's requests from its prompt layers. */
  readonly prompts: Pick<SessionPrompts, "assemble_main">;
  /** Direct mode (`/direct` … `/done`): the tools the Main Agent runs itself, and its cancellable model calls. */
  readonly direct: DirectModeTools;
  /** ARCHITECTURE_DESIGNING and ARCHITECTURE_REVISING ask it; without one they pass through (silent_continue). */
  readonly architecture_designer?: ArchitectureDesigner;
};

const emit = emitter("main");
const emit_all = batch_emitter("main");

/** What the user is told when a request ends: per task, the worker's own summary with the facts under it. */
export function summary_of(session: Session, outcome: RequestOutcome): string {
  switch (outcome.kind) {
    case "answered":
      return outcome.answer;
    case "failed":
      return `The request failed: ${outcome.error.message}${outcome.error.user_action ? ` (${outcome.error.user_action})` : ""}`;
    case "rejected":
      return `The plan of ${outcome.task_count} tasks was rejected (${outcome.reason}); nothing was recorded or changed.`;
    case "executed":
      return outcome.task_ids.map((task_id) => task_summary(session, task_id)).join("\n\n");
  }
}

/** The I/O of the Main Agent machine: model calls, messages and task creation as durable events. */
export function provide_main_agent(session: Session, dependencies: MainAgentDependencies) {
  const mid_run = {
    complete: (request: ModelRequest) => dependencies.complete(request, "main"),
    prompts: dependencies.prompts,
    task_defaults: dependencies.task_defaults,
  };
  const designer = dependencies.architecture_designer;
  return main_agent_machine.provide({
    actors: {
      classify: fromPromise(async ({ input }) =>
        classify(input, {
          complete: (request) => dependencies.complete(request, "main"),
          prompts: dependencies.prompts,
          task_defaults: dependencies.task_defaults,
          history: (message) => conversation_until(session.connection, message),
        }),
      ),
      answer: fromPromise(async ({ input }) => {
        emit(session, "assistant.message.created", { message_id: new_id("message"), content: input.answer });
      }),
      present_plan: fromPromise(async ({ input }) => {
        emit(session, "plan.proposed", { tasks: [...input.tasks], awaiting_confirmation: input.awaiting_confirmation });
      }),
      // One transaction for the whole plan: a task whose dependency rows could not be written is not half there.
      create_tasks: fromPromise(async ({ input }) => {
        emit_all(
          session,
          "task.created",
          input.tasks.map((task) => ({ task })),
        );
      }),
      design_architecture: fromPromise(async ({ input, signal }) => design_plan(session, designer, input.request, input.tasks, signal)),
      execute: provide_scheduler(session, dependencies.run_worker, dependencies.scheduler),
      triage: fromPromise(async ({ input }) => triage(session, input, mid_run)),
      classify_change: fromPromise(async ({ input }) => classify_change(session, input, mid_run)),
      revise_tasks: fromPromise(async ({ input }) => revise_tasks(session, input.change, input.revision)),
      revise_architecture: fromPromise(async ({ input, signal }) => revise_architecture(session, { designer, signal }, mid_run, input.change, input.revision)),
      apply_revision: fromPromise(async ({ input }) => apply_revision(session, input.change, input.revision)),
      summarize: fromPromise(async ({ input }) => {
        emit(session, "assistant.message.created", { message_id: new_id("message"), content: summary_of(session, input.outcome) });
      }),
      ...direct_mode_actors({ ...dependencies.direct, session, prompts: dependencies.prompts }),
    },
  });
}

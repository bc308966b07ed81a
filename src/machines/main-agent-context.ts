/**
 * The Main Agent machine's data (seeds 000 §20.1): what a user message became, how a request ended, the
 * context the states share, and the small readers and action params the machine's transitions use.
 */
import type { DoneActorEvent, ErrorActorEvent } from "xstate";
import type { ArchitectureImpact } from "../contracts/architecture.js";
import { make_air_error, to_air_error, type AirError } from "../contracts/errors.js";
import type { TaskSpec } from "../contracts/task.js";
import type { ChangeClassification, DesignRevision, MidRunTriage, RequirementChange } from "./requirement-change.js";
import { held } from "./state-data.js";
import type { SchedulerRunResult } from "./scheduler.js";

/**
 * What the model made of a user message: a question to answer, or work to delegate as a validated plan of
 * one or more tasks (a single task is a plan of one), dependencies already resolved to TaskIds.
 */
export type Classification =
  | { readonly intent: "chat"; readonly answer: string }
  /** `touches_architecture`: the model says the work changes the project's design; it goes to the Architecture Designer. */
  | { readonly intent: "plan"; readonly tasks: readonly TaskSpec[]; readonly touches_architecture?: boolean };

/**
 * How the runtime starts the Main Agent. `confirm_plans`: a plan of more than one task waits for the user —
 * an interactive session in a mode that asks; headless runs and `accept-edits`/`bypass` proceed.
 */
export type MainAgentInput = { readonly confirm_plans: boolean };

export type UserRequest = { readonly message_id: string; readonly text: string };

/** How the last request ended; the runtime reports it and `air run -p` turns it into an exit code. */
export type RequestOutcome =
  | { readonly kind: "answered"; readonly answer: string }
  | { readonly kind: "executed"; readonly task_ids: readonly string[]; readonly run: SchedulerRunResult }
  /** The user turned the plan down while it waited for confirmation: no task was recorded. */
  | { readonly kind: "rejected"; readonly reason: string; readonly task_count: number }
  | { readonly kind: "failed"; readonly error: AirError };

/** A message the user sent while the plan ran, and how it ended (an answer, a change applied or refused). */
export type MidRunMessage = { readonly request: UserRequest; readonly outcome: RequestOutcome | undefined };

export type MainAgentContext = {
  /** Plans of more than one task wait in `confirming` for `plan.approve` / `plan.reject`. */
  confirm_plans: boolean;
  request: UserRequest | undefined;
  classification: Classification | undefined;
  outcome: RequestOutcome | undefined;
  /** The Architecture Designer's verdict on the plan (ARCHITECTURE_DESIGNING) or on a revision of it. */
  impact: ArchitectureImpact | undefined;
  /** The Scheduler child runs from `scheduling` until it ends, through INTERRUPTING and ARCHITECTURE_REVISING. */
  scheduler_live: boolean;
  /** How the Scheduler ended; the request ends once no mid-run message is in hand. */
  run: SchedulerRunResult | undefined;
  /** The gate's replan of `run` was taken up: a revision refused or rejected ends the request with the run as it stopped. */
  replan_taken: boolean;
  mid_run: MidRunMessage | undefined;
  triage: MidRunTriage | undefined;
  change: RequirementChange | undefined;
  change_class: ChangeClassification | undefined;
  revision: DesignRevision | undefined;
  /** Tasks a revision added to the request's plan, reported with it. */
  added: readonly string[];
};

export type MainAgentEvent =
  | ({ type: "user.message" } & UserRequest)
  | { type: "user.cancel"; reason: string }
  /** The plan waiting in `confirming` may run: it is recorded, then scheduled. */
  | { type: "plan.approve" }
  /** The plan waiting in `confirming` is dropped unrecorded; the Main Agent says so and is idle again. */
  | { type: "plan.reject"; reason: string }
  /** `/direct`: the user works with the Main Agent's tools directly until `/done` (seeds 003 §10.5). */
  | { type: "direct.enter" }
  /** `/done`: the direct session's evidence is collected and summarised, then back to idle. */
  | { type: "direct.done" }
  /** The Scheduler child, spawned (not invoked) so that it outlives `executing`, reports its end as these. */
  | DoneActorEvent<SchedulerRunResult, "scheduler">
  | ErrorActorEvent<unknown, "scheduler">;

/** What the user is told when a mid-run message ends in an answer of the Main Agent's own. */
export const told = (answer: string): RequestOutcome => ({ kind: "answered", answer });

/** Actors reject with `AirFailure`s (or, on a bug, anything): the outcome always holds an AirError. */
export const failed = (error: unknown): RequestOutcome => ({ kind: "failed", error: to_air_error(error, "system_error") });

/** A direct turn or summary the user interrupted: leaving its state stops the actor, which aborts its calls. */
export function interrupted(reason: string): RequestOutcome {
  return {
    kind: "failed",
    error: make_air_error({
      kind: "user_error",
      severity: "warning",
      message: `interrupted: ${reason}`,
      retryability: "retryable",
      metadata: { cancelled: true },
    }),
  };
}

// Action params, read from the event each transition is typed with.
export const request_in = ({ event }: { event: UserRequest }): UserRequest => ({ message_id: event.message_id, text: event.text });
export const answer_in = ({ event }: { event: DoneActorEvent<string> }) => ({ answer: event.output });
export const reason_of = ({ event }: { event: { reason: string } }) => ({ reason: event.reason });

// What the states after `user.message` work on (see `held`).
export const request_of = (context: MainAgentContext) => held(context.request, "main-agent", "request");
export const chat_answer = (context: MainAgentContext) =>
  held(context.classification?.intent === "chat" ? context.classification.answer : undefined, "main-agent", "answer");
export const plan_tasks = (context: MainAgentContext) =>
  held(context.classification?.intent === "plan" ? context.classification.tasks : undefined, "main-agent", "plan");
export const plan_input = ({ context }: { context: MainAgentContext }) => ({ request: request_of(context), tasks: plan_tasks(context) });
export const awaits_confirmation = (context: MainAgentContext) => context.confirm_plans && plan_tasks(context).length > 1;
export const change_of = (context: MainAgentContext) => held(context.change, "main-agent", "requirement change");
export const mid_run_request = (context: MainAgentContext) => held(context.mid_run?.request, "main-agent", "mid-run message");
export const executed = (context: MainAgentContext, run: SchedulerRunResult): RequestOutcome => ({
  kind: "executed",
  task_ids: [...plan_tasks(context).map((task) => task.id), ...context.added],
  run,
});
export const revision_of = (context: MainAgentContext) => held(context.revision, "main-agent", "revision");
export const mid_run_answer = (context: MainAgentContext) =>
  held(context.triage?.kind === "question" ? context.triage.answer : undefined, "main-agent", "mid-run answer");
export const user_change = (context: MainAgentContext, triage: MidRunTriage): RequirementChange => ({
  source: "user",
  text: mid_run_request(context).text,
  summary: triage.kind === "requirement_change" ? triage.summary : mid_run_request(context).text,
  task_ids: [],
});
export const revision_rejected = (context: MainAgentContext, reason: string): RequestOutcome => {
  const revision = revision_of(context);
  return { kind: "rejected", reason, task_count: revision.cancel.length + revision.revise.length + revision.add.length };
};
export const FRESH_REQUEST = {
  classification: undefined,
  outcome: undefined,
  impact: undefined,
  scheduler_live: false,
  run: undefined,
  replan_taken: false,
  mid_run: undefined,
  triage: undefined,
  change: undefined,
  change_class: undefined,
  revision: undefined,
  added: [],
} as const;

export const failed_in = ({ event }: { event: { error: unknown } }) => failed(event.error);
export const told_in = ({ event }: { event: DoneActorEvent<string> }) => told(event.output);
export const design_revision = (change: ChangeClassification | undefined) => (change?.level === "design" ? change : undefined);

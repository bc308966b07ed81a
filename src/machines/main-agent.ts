import { assign, sendTo, setup, type DoneActorEvent } from "xstate";
import { make_air_error, to_air_error, type AirError } from "../contracts/errors.js";
import type { TaskSpec } from "../contracts/task.js";
import { error_of, held } from "./state-data.js";
import { scheduler_machine, type SchedulerRunResult } from "./scheduler.js";
import { unprovided } from "./unprovided.js";

/**
 * What the model made of a user message: a question to answer, or work to delegate as a validated plan of
 * one or more tasks (a single task is a plan of one), dependencies already resolved to TaskIds.
 */
export type Classification = { readonly intent: "chat"; readonly answer: string } | { readonly intent: "plan"; readonly tasks: readonly TaskSpec[] };

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

type MainAgentContext = {
  /** Plans of more than one task wait in `confirming` for `plan.approve` / `plan.reject`. */
  confirm_plans: boolean;
  request: UserRequest | undefined;
  classification: Classification | undefined;
  outcome: RequestOutcome | undefined;
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
  | { type: "direct.done" };

/** Actors reject with `AirFailure`s (or, on a bug, anything): the outcome always holds an AirError. */
const failed = (error: unknown): RequestOutcome => ({ kind: "failed", error: to_air_error(error, "system_error") });

/** A direct turn or summary the user interrupted: leaving its state stops the actor, which aborts its calls. */
function interrupted(reason: string): RequestOutcome {
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
const request_in = ({ event }: { event: UserRequest }): UserRequest => ({ message_id: event.message_id, text: event.text });
const answer_in = ({ event }: { event: DoneActorEvent<string> }) => ({ answer: event.output });
const reason_of = ({ event }: { event: { reason: string } }) => ({ reason: event.reason });

// What the states after `user.message` work on (see `held`).
const request_of = (context: MainAgentContext) => held(context.request, "main-agent", "request");
const chat_answer = (context: MainAgentContext) =>
  held(context.classification?.intent === "chat" ? context.classification.answer : undefined, "main-agent", "answer");
const plan_tasks = (context: MainAgentContext) =>
  held(context.classification?.intent === "plan" ? context.classification.tasks : undefined, "main-agent", "plan");
const plan_input = ({ context }: { context: MainAgentContext }) => ({ request: request_of(context), tasks: plan_tasks(context) });
const awaits_confirmation = (context: MainAgentContext) => context.confirm_plans && plan_tasks(context).length > 1;

/**
 * The Main Agent of seeds 000 §20.1: it classifies, answers or delegates a plan — shown first, confirmed by
 * the user when the runtime asks for it — and summarises; execution belongs to the Scheduler, invoked as a
 * child so cancelling reaches it.
 */
export const main_agent_machine = setup({
  types: {
    context: {} as MainAgentContext,
    events: {} as MainAgentEvent,
    input: {} as MainAgentInput,
  },
  actors: {
    classify: unprovided<Classification, UserRequest>("classify"),
    answer: unprovided<void, { request: UserRequest; answer: string }>("answer"),
    // Shows the plan before anything is recorded or confirmed.
    present_plan: unprovided<void, { request: UserRequest; tasks: readonly TaskSpec[]; awaiting_confirmation: boolean }>("present_plan"),
    // Records the whole plan at once: every task or none.
    create_tasks: unprovided<void, { request: UserRequest; tasks: readonly TaskSpec[] }>("create_tasks"),
    // The Scheduler runs as a child machine so that a cancel reaches it; its own actors are provided by the runtime.
    execute: scheduler_machine,
    summarize: unprovided<void, { request: UserRequest; outcome: RequestOutcome }>("summarize"),
    // Direct mode: the Main Agent runs the model ↔ tools loop itself and answers with the model's last text.
    direct_turn: unprovided<string, UserRequest>("direct_turn"),
    // Evidence of the direct session (tool runs, diffs, commands) and its summary, told to the user.
    direct_summary: unprovided<string, void>("direct_summary"),
  },
  guards: {
    is_plan: ({ context }) => context.classification?.intent === "plan",
    needs_confirmation: ({ context }) => awaits_confirmation(context),
  },
  actions: {
    fail: assign({ outcome: (_, params: { error: unknown }) => failed(params.error) }),
    take_request: assign((_, request: UserRequest) => ({ request, classification: undefined, outcome: undefined })),
    answer_with: assign({ outcome: (_, params: { answer: string }): RequestOutcome => ({ kind: "answered", answer: params.answer }) }),
    interrupt: assign({ outcome: (_, params: { reason: string }) => interrupted(params.reason) }),
    reject_plan: assign({
      outcome: ({ context }, params: { reason: string }): RequestOutcome => ({
        kind: "rejected",
        reason: params.reason,
        task_count: plan_tasks(context).length,
      }),
    }),
    forget_request: assign({ request: undefined, classification: undefined, outcome: undefined }),
  },
}).createMachine({
  id: "main-agent",
  initial: "idle",
  context: ({ input }) => ({ confirm_plans: input.confirm_plans, request: undefined, classification: undefined, outcome: undefined }),
  states: {
    idle: {
      on: {
        "user.message": { target: "classifying", actions: { type: "take_request", params: request_in } },
        "direct.enter": { target: "direct_mode", actions: "forget_request" },
      },
    },
    // Seeds 003 §10.5: no classification, no tasks; every message is a turn of the Main Agent's own tool loop.
    direct_mode: {
      initial: "awaiting_message",
      states: {
        awaiting_message: {
          on: {
            "user.message": { target: "direct_turn", actions: { type: "take_request", params: request_in } },
            "direct.done": "direct_summary",
          },
        },
        direct_turn: {
          invoke: {
            id: "direct_turn",
            src: "direct_turn",
            input: ({ context }) => request_of(context),
            onDone: { target: "awaiting_message", actions: { type: "answer_with", params: answer_in } },
            onError: { target: "awaiting_message", actions: { type: "fail", params: error_of } },
          },
          on: { "user.cancel": { target: "awaiting_message", actions: { type: "interrupt", params: reason_of } } },
        },
        direct_summary: {
          invoke: {
            id: "direct_summary",
            src: "direct_summary",
            onDone: { target: "#main-agent.idle", actions: { type: "answer_with", params: answer_in } },
            onError: { target: "#main-agent.idle", actions: { type: "fail", params: error_of } },
          },
          on: { "user.cancel": { target: "#main-agent.idle", actions: { type: "interrupt", params: reason_of } } },
        },
      },
    },
    classifying: {
      invoke: {
        id: "classify",
        src: "classify",
        input: ({ context }) => request_of(context),
        onDone: { target: "routing", actions: assign({ classification: ({ event }) => event.output }) },
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    routing: {
      always: [{ guard: "is_plan", target: "delegating" }, { target: "answering" }],
    },
    answering: {
      invoke: {
        id: "answer",
        src: "answer",
        input: ({ context }) => ({ request: request_of(context), answer: chat_answer(context) }),
        onDone: { target: "idle", actions: { type: "answer_with", params: ({ context }) => ({ answer: chat_answer(context) }) } },
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    // Architecture review slots in here, before the plan is shown.
    delegating: {
      invoke: {
        id: "present_plan",
        src: "present_plan",
        input: ({ context }) => ({ ...plan_input({ context }), awaiting_confirmation: awaits_confirmation(context) }),
        onDone: [{ guard: "needs_confirmation", target: "confirming" }, { target: "scheduling" }],
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    // Nothing is recorded yet: a rejected plan leaves no task row, and an unconfirmed one cannot run on `air resume`.
    // A rejection is summarised like any other end of a request, so the conversation says what became of the plan.
    confirming: {
      on: {
        "plan.approve": "scheduling",
        "plan.reject": { target: "summarizing", actions: { type: "reject_plan", params: reason_of } },
        "user.cancel": { target: "summarizing", actions: { type: "reject_plan", params: reason_of } },
      },
    },
    scheduling: {
      invoke: {
        id: "create_tasks",
        src: "create_tasks",
        input: plan_input,
        onDone: "executing",
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    executing: {
      invoke: {
        id: "scheduler",
        src: "execute",
        input: { autostart: true },
        onDone: {
          target: "summarizing",
          actions: assign({
            outcome: ({ context, event }) => ({ kind: "executed", task_ids: plan_tasks(context).map((task) => task.id), run: event.output }),
          }),
        },
        onError: { target: "summarizing", actions: { type: "fail", params: error_of } },
      },
      on: {
        "user.cancel": {
          actions: sendTo("scheduler", ({ event }) => ({ type: "scheduler.cancel", reason: event.reason })),
        },
      },
    },
    summarizing: {
      invoke: {
        id: "summarize",
        src: "summarize",
        input: ({ context }) => ({ request: request_of(context), outcome: held(context.outcome, "main-agent", "outcome") }),
        onDone: "idle",
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
  },
});

import { assign, sendTo, setup } from "xstate";
import { make_air_error, to_air_error, type AirError } from "../contracts/errors.js";
import type { TaskSpec } from "../contracts/task.js";
import { scheduler_machine, type SchedulerRunResult } from "./scheduler.js";
import { unprovided } from "./unprovided.js";

/** What the model made of a user message: a question to answer, or work to delegate as one task. */
export type Classification =
  | { readonly intent: "chat"; readonly answer: string }
  | { readonly intent: "task"; readonly spec: TaskSpec };

export type UserRequest = { readonly message_id: string; readonly text: string };

/** How the last request ended; the runtime reports it and `air run -p` turns it into an exit code. */
export type RequestOutcome =
  | { readonly kind: "answered"; readonly answer: string }
  | { readonly kind: "executed"; readonly task_id: string; readonly run: SchedulerRunResult }
  | { readonly kind: "failed"; readonly error: AirError };

type MainAgentContext = {
  request: UserRequest | undefined;
  classification: Classification | undefined;
  outcome: RequestOutcome | undefined;
};

export type MainAgentEvent =
  | ({ type: "user.message" } & UserRequest)
  | { type: "user.cancel"; reason: string }
  /** `/direct`: the user works with the Main Agent's tools directly until `/done` (seeds 003 §10.5). */
  | { type: "direct.enter" }
  /** `/done`: the direct session's evidence is collected and summarised, then back to IDLE. */
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


/**
 * The Main Agent of seeds 000 §20.1 (the single-task path): it classifies, answers or delegates, and
 * summarises; execution belongs to the Scheduler, invoked as a child so cancelling reaches it.
 */
export const main_agent_machine = setup({
  types: {
    context: {} as MainAgentContext,
    events: {} as MainAgentEvent,
  },
  actors: {
    classify: unprovided<Classification, UserRequest>("classify"),
    answer: unprovided<void, { request: UserRequest; answer: string }>("answer"),
    create_tasks: unprovided<void, { request: UserRequest; spec: TaskSpec }>("create_tasks"),
    // The Scheduler runs as a child machine so that a cancel reaches it; its own actors are provided by the runtime.
    execute: scheduler_machine,
    summarize: unprovided<void, { request: UserRequest; outcome: RequestOutcome }>("summarize"),
    // Direct mode: the Main Agent runs the model ↔ tools loop itself and answers with the model's last text.
    direct_turn: unprovided<string, UserRequest>("direct_turn"),
    // Evidence of the direct session (tool runs, diffs, commands) and its summary, told to the user.
    direct_summary: unprovided<string, void>("direct_summary"),
  },
  guards: {
    is_task: ({ context }) => context.classification?.intent === "task",
  },
  actions: {
    // Runs only on `xstate.error.actor.*` events, which carry the actor's error.
    fail: assign({ outcome: ({ event }) => failed((event as unknown as { error: unknown }).error) }),
    take_request: assign({
      request: ({ event }) => {
        const message = event as Extract<MainAgentEvent, { type: "user.message" }>;
        return { message_id: message.message_id, text: message.text };
      },
      classification: undefined,
      outcome: undefined,
    }),
    // Runs only on `xstate.done.actor.direct_*` events, whose output is the text the user is told.
    answer_with_output: assign({ outcome: ({ event }) => ({ kind: "answered", answer: (event as unknown as { output: string }).output }) }),
    interrupt: assign({ outcome: ({ event }) => interrupted((event as Extract<MainAgentEvent, { type: "user.cancel" }>).reason) }),
    forget_request: assign({ request: undefined, classification: undefined, outcome: undefined }),
  },
}).createMachine({
  id: "main-agent",
  initial: "IDLE",
  context: { request: undefined, classification: undefined, outcome: undefined },
  states: {
    IDLE: {
      on: {
        "user.message": { target: "CLASSIFYING", actions: "take_request" },
        "direct.enter": { target: "DIRECT_MODE", actions: "forget_request" },
      },
    },
    // Seeds 003 §10.5: no classification, no tasks; every message is a turn of the Main Agent's own tool loop.
    DIRECT_MODE: {
      initial: "AWAITING_MESSAGE",
      states: {
        AWAITING_MESSAGE: {
          on: {
            "user.message": { target: "DIRECT_TURN", actions: "take_request" },
            "direct.done": "DIRECT_SUMMARY",
          },
        },
        DIRECT_TURN: {
          invoke: {
            id: "direct_turn",
            src: "direct_turn",
            input: ({ context }) => context.request!,
            onDone: { target: "AWAITING_MESSAGE", actions: "answer_with_output" },
            onError: { target: "AWAITING_MESSAGE", actions: "fail" },
          },
          on: { "user.cancel": { target: "AWAITING_MESSAGE", actions: "interrupt" } },
        },
        DIRECT_SUMMARY: {
          invoke: {
            id: "direct_summary",
            src: "direct_summary",
            onDone: { target: "#main-agent.IDLE", actions: "answer_with_output" },
            onError: { target: "#main-agent.IDLE", actions: "fail" },
          },
          on: { "user.cancel": { target: "#main-agent.IDLE", actions: "interrupt" } },
        },
      },
    },
    CLASSIFYING: {
      invoke: {
        id: "classify",
        src: "classify",
        input: ({ context }) => context.request!,
        onDone: { target: "ROUTING", actions: assign({ classification: ({ event }) => event.output }) },
        onError: { target: "IDLE", actions: "fail" },
      },
    },
    ROUTING: {
      always: [{ guard: "is_task", target: "DELEGATING" }, { target: "ANSWERING" }],
    },
    ANSWERING: {
      invoke: {
        id: "answer",
        src: "answer",
        input: ({ context }) => {
          const classification = context.classification as Extract<Classification, { intent: "chat" }>;
          return { request: context.request!, answer: classification.answer };
        },
        onDone: {
          target: "IDLE",
          actions: assign({
            outcome: ({ context }) => ({
              kind: "answered",
              answer: (context.classification as Extract<Classification, { intent: "chat" }>).answer,
            }),
          }),
        },
        onError: { target: "IDLE", actions: "fail" },
      },
    },
    // Architecture review and user confirmation slot in here; a single task goes straight to scheduling.
    DELEGATING: { always: "SCHEDULING" },
    SCHEDULING: {
      invoke: {
        id: "create_tasks",
        src: "create_tasks",
        input: ({ context }) => ({
          request: context.request!,
          spec: (context.classification as Extract<Classification, { intent: "task" }>).spec,
        }),
        onDone: "EXECUTING",
        onError: { target: "IDLE", actions: "fail" },
      },
    },
    EXECUTING: {
      invoke: {
        id: "scheduler",
        src: "execute",
        input: { autostart: true },
        onDone: {
          target: "SUMMARIZING",
          actions: assign({
            outcome: ({ context, event }) => ({
              kind: "executed",
              task_id: (context.classification as Extract<Classification, { intent: "task" }>).spec.id,
              run: event.output,
            }),
          }),
        },
        onError: { target: "SUMMARIZING", actions: "fail" },
      },
      on: {
        "user.cancel": {
          actions: sendTo("scheduler", ({ event }) => ({ type: "scheduler.cancel", reason: event.reason })),
        },
      },
    },
    SUMMARIZING: {
      invoke: {
        id: "summarize",
        src: "summarize",
        input: ({ context }) => ({ request: context.request!, outcome: context.outcome! }),
        onDone: "IDLE",
        onError: { target: "IDLE", actions: "fail" },
      },
    },
  },
});

import { assign, sendTo, setup } from "xstate";
import { to_air_error, type AirError } from "../contracts/errors.js";
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
  | { type: "user.cancel"; reason: string };

/** Actors reject with `AirFailure`s (or, on a bug, anything): the outcome always holds an AirError. */
const failed = (error: unknown): RequestOutcome => ({ kind: "failed", error: to_air_error(error, "system_error") });


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
  },
  guards: {
    is_task: ({ context }) => context.classification?.intent === "task",
  },
  actions: {
    // Runs only on `xstate.error.actor.*` events, which carry the actor's error.
    fail: assign({ outcome: ({ event }) => failed((event as unknown as { error: unknown }).error) }),
  },
}).createMachine({
  id: "main-agent",
  initial: "IDLE",
  context: { request: undefined, classification: undefined, outcome: undefined },
  states: {
    IDLE: {
      on: {
        "user.message": {
          target: "CLASSIFYING",
          actions: assign({
            request: ({ event }) => ({ message_id: event.message_id, text: event.text }),
            classification: undefined,
            outcome: undefined,
          }),
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

import { assign, enqueueActions, setup } from "xstate";
import type { ArchitectureImpact } from "../contracts/architecture.js";
import type { TaskSpec } from "../contracts/task.js";
import {
  stops_plan,
  type ChangeClassification,
  type DesignRevision,
  type MidRunTriage,
  type RequirementChange,
  type RevisionAssessment,
} from "./requirement-change.js";
import { error_of, held } from "./state-data.js";
import { scheduler_machine, type SchedulerEvent } from "./scheduler.js";
import { unprovided } from "./unprovided.js";
import {
  told,
  failed,
  interrupted,
  request_in,
  answer_in,
  reason_of,
  request_of,
  chat_answer,
  plan_tasks,
  plan_input,
  awaits_confirmation,
  change_of,
  mid_run_request,
  executed,
  revision_of,
  mid_run_answer,
  user_change,
  revision_rejected,
  FRESH_REQUEST,
  failed_in,
  told_in,
  design_revision,
  type Classification,
  type MainAgentInput,
  type UserRequest,
  type RequestOutcome,
  type MidRunMessage,
  type MainAgentContext,
  type MainAgentEvent,
} from "./main-agent-context.js";

export type { Classification, MainAgentInput, UserRequest, RequestOutcome, MidRunMessage, MainAgentEvent } from "./main-agent-context.js";

/**
 * The Main Agent of seeds 000 §20.1: it classifies, answers or delegates a plan — through the Architecture
 * Designer when the plan needs design, shown first, confirmed by the user when the runtime asks for it — and
 * summarises. Execution belongs to the Scheduler, a child spawned for the request so that it keeps running
 * while the Main Agent answers a question, weighs a requirement change (INTERRUPTING, the Scheduler paused) or
 * revises the plan (ARCHITECTURE_REVISING, CONFIRMING); a cancel reaches it.
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
    // The Architecture Designer's assessment of a plan that needs design; silent_continue when the runtime has none.
    design_architecture: unprovided<ArchitectureImpact, { request: UserRequest; tasks: readonly TaskSpec[] }>("design_architecture"),
    // Records the whole plan at once: every task or none.
    create_tasks: unprovided<void, { request: UserRequest; tasks: readonly TaskSpec[] }>("create_tasks"),
    // The Scheduler runs as a child machine so that a cancel reaches it; its own actors are provided by the runtime.
    execute: scheduler_machine,
    // A message while the plan runs: a question (answered from the rows) or a requirement change (recorded).
    triage: unprovided<MidRunTriage, UserRequest>("triage"),
    classify_change: unprovided<ChangeClassification, RequirementChange>("classify_change"),
    // An implementation-level change: the pending tasks it names get their new text; what was done is told.
    revise_tasks: unprovided<string, { change: RequirementChange; revision: ChangeClassification }>("revise_tasks"),
    // Drafts the revision when a gate asked for it, then has the Architecture Designer assess it.
    revise_architecture: unprovided<RevisionAssessment, { change: RequirementChange; revision: DesignRevision | undefined }>("revise_architecture"),
    // Cancels, revises and adds the revision's tasks (the Scheduler has stopped the cancelled ones' agents).
    apply_revision: unprovided<string, { change: RequirementChange; revision: DesignRevision }>("apply_revision"),
    summarize: unprovided<void, { request: UserRequest; outcome: RequestOutcome }>("summarize"),
    // Direct mode: the Main Agent runs the model ↔ tools loop itself and answers with the model's last text.
    direct_turn: unprovided<string, UserRequest>("direct_turn"),
    // Evidence of the direct session (tool runs, diffs, commands) and its summary, told to the user.
    direct_summary: unprovided<string, void>("direct_summary"),
  },
  guards: {
    is_plan: ({ context }) => context.classification?.intent === "plan",
    needs_confirmation: ({ context }) => awaits_confirmation(context),
    needs_design: ({ context }) => context.classification?.intent === "plan" && context.classification.touches_architecture === true,
    design_stops: ({ context }) => stops_plan(context.impact),
    design_confirms: ({ context }) => awaits_confirmation(context) || (context.confirm_plans && context.impact?.result_class === "requires_user_confirmation"),
    confirms_revision: ({ context }) => context.confirm_plans,
    revising: ({ context }) => context.revision !== undefined,
    replan_requested: ({ context }) => !context.scheduler_live && context.run?.replan !== undefined && !context.replan_taken,
    scheduler_ended: ({ context }) => !context.scheduler_live && (context.run !== undefined || context.outcome !== undefined),
  },
  actions: {
    fail: assign({ outcome: (_, params: { error: unknown }) => failed(params.error) }),
    take_request: assign((_, request: UserRequest) => ({ request, ...FRESH_REQUEST })),
    answer_with: assign({ outcome: (_, params: { answer: string }): RequestOutcome => ({ kind: "answered", answer: params.answer }) }),
    interrupt: assign({ outcome: (_, params: { reason: string }) => interrupted(params.reason) }),
    reject_plan: assign({
      outcome: ({ context }, params: { reason: string }): RequestOutcome => ({
        kind: "rejected",
        reason: params.reason,
        task_count: plan_tasks(context).length,
      }),
    }),
    forget_request: assign({ request: undefined, ...FRESH_REQUEST }),
    start_scheduler: enqueueActions(({ enqueue }) => {
      enqueue.spawnChild("execute", { id: "scheduler", input: { autostart: true } });
      enqueue.assign({ scheduler_live: true, run: undefined, replan_taken: false });
    }),
    // The Scheduler may have ended meanwhile (all its tasks done): then there is no one to tell.
    to_scheduler: enqueueActions(({ enqueue, context }, event: SchedulerEvent) => {
      if (context.scheduler_live) enqueue.sendTo("scheduler", event);
    }),
    // After a change: the paused Scheduler plans again; one that ended while the plan changed starts anew.
    continue_run: enqueueActions(({ enqueue, context }) => {
      if (context.scheduler_live) {
        enqueue.sendTo("scheduler", { type: "scheduler.resume" });
        return;
      }
      if (context.revision === undefined) return;
      enqueue.spawnChild("execute", { id: "scheduler", input: { autostart: true } });
      enqueue.assign({ scheduler_live: true, run: undefined, replan_taken: false, outcome: undefined });
    }),
    take_mid_run: assign({ mid_run: (_, request: UserRequest): MidRunMessage => ({ request, outcome: undefined }) }),
    end_mid_run: assign(({ context }, outcome: RequestOutcome) => ({
      mid_run: context.mid_run === undefined ? undefined : { request: context.mid_run.request, outcome },
      triage: undefined,
      change: undefined,
      change_class: undefined,
      revision: undefined,
    })),
    take_gate_replan: assign(({ context }) => {
      const run = held(context.run, "main-agent", "scheduler run");
      const replan = held(run.replan, "main-agent", "replan request");
      const change: RequirementChange = { source: "gate", text: replan.reason, summary: replan.reason, task_ids: replan.task_ids };
      return { change, revision: undefined, replan_taken: true };
    }),
    settle_run: assign({ outcome: ({ context }) => context.outcome ?? executed(context, held(context.run, "main-agent", "scheduler run")) }),
  },
}).createMachine({
  id: "main-agent",
  initial: "idle",
  context: ({ input }) => ({ confirm_plans: input.confirm_plans, request: undefined, ...FRESH_REQUEST }),
  on: {
    "xstate.done.actor.scheduler": {
      actions: [assign({ run: ({ event }) => event.output, scheduler_live: false }), enqueueActions(({ enqueue }) => enqueue.stopChild("scheduler"))],
    },
    "xstate.error.actor.scheduler": {
      actions: [
        assign({ outcome: ({ event }) => failed(event.error), scheduler_live: false }),
        enqueueActions(({ enqueue }) => enqueue.stopChild("scheduler")),
      ],
    },
  },
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
    delegating: {
      invoke: {
        id: "present_plan",
        src: "present_plan",
        input: ({ context }) => ({ ...plan_input({ context }), awaiting_confirmation: awaits_confirmation(context) }),
        onDone: [{ guard: "needs_design", target: "architecture_designing" }, { guard: "needs_confirmation", target: "confirming" }, { target: "scheduling" }],
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    // A plan of several tasks, or one that touches the design, is assessed before it is confirmed or recorded.
    architecture_designing: {
      invoke: {
        id: "design_architecture",
        src: "design_architecture",
        input: plan_input,
        onDone: [
          {
            guard: ({ event }) => stops_plan(event.output),
            target: "summarizing",
            actions: [assign({ impact: ({ event }) => event.output }), { type: "reject_plan", params: ({ event }) => ({ reason: event.output.summary }) }],
          },
          {
            guard: ({ context, event }) => context.confirm_plans && event.output.result_class === "requires_user_confirmation",
            target: "confirming",
            actions: assign({ impact: ({ event }) => event.output }),
          },
          { guard: "needs_confirmation", target: "confirming", actions: assign({ impact: ({ event }) => event.output }) },
          { target: "scheduling", actions: assign({ impact: ({ event }) => event.output }) },
        ],
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    // Nothing is recorded yet: a rejected plan leaves no task row, and an unconfirmed one cannot run on `air resume`.
    // A rejection is summarised like any other end of a request, so the conversation says what became of the plan.
    // A revision waits here too, the Scheduler paused (or ended): rejected, the plan runs on as it was.
    confirming: {
      on: {
        "plan.approve": [{ guard: "revising", target: "replanning" }, { target: "scheduling" }],
        "plan.reject": [
          {
            guard: "revising",
            target: "executing",
            actions: ["continue_run", { type: "end_mid_run", params: ({ context, event }) => revision_rejected(context, event.reason) }],
          },
          { target: "summarizing", actions: { type: "reject_plan", params: reason_of } },
        ],
        "user.cancel": [
          {
            guard: "revising",
            target: "executing",
            actions: ["continue_run", { type: "end_mid_run", params: ({ context, event }) => revision_rejected(context, event.reason) }],
          },
          { target: "summarizing", actions: { type: "reject_plan", params: reason_of } },
        ],
      },
    },
    scheduling: {
      invoke: {
        id: "create_tasks",
        src: "create_tasks",
        input: plan_input,
        onDone: { target: "executing", actions: "start_scheduler" },
        onError: { target: "idle", actions: { type: "fail", params: error_of } },
      },
    },
    // The Scheduler works while the Main Agent listens: a message is triaged and answered beside it.
    executing: {
      initial: "listening",
      on: { "user.cancel": { actions: { type: "to_scheduler", params: ({ event }) => ({ type: "scheduler.cancel", reason: event.reason }) } } },
      states: {
        listening: {
          always: [
            { guard: "replan_requested", target: "#main-agent.architecture_revising", actions: "take_gate_replan" },
            { guard: "scheduler_ended", target: "#main-agent.summarizing", actions: "settle_run" },
          ],
          on: { "user.message": { target: "triaging", actions: { type: "take_mid_run", params: request_in } } },
        },
        triaging: {
          invoke: {
            id: "triage",
            src: "triage",
            input: ({ context }) => mid_run_request(context),
            onDone: [
              {
                guard: ({ event }) => event.output.kind === "question",
                target: "answering_question",
                actions: assign({ triage: ({ event }) => event.output }),
              },
              { target: "#main-agent.interrupting", actions: assign({ change: ({ context, event }) => user_change(context, event.output) }) },
            ],
            onError: { target: "listening", actions: { type: "end_mid_run", params: failed_in } },
          },
        },
        answering_question: {
          invoke: {
            id: "answer_question",
            src: "answer",
            input: ({ context }) => ({ request: mid_run_request(context), answer: mid_run_answer(context) }),
            onDone: { target: "listening", actions: { type: "end_mid_run", params: ({ context }) => told(mid_run_answer(context)) } },
            onError: { target: "listening", actions: { type: "end_mid_run", params: failed_in } },
          },
        },
      },
    },
    // A requirement change: dispatch pauses (running agents go on) while the change is classified.
    interrupting: {
      entry: { type: "to_scheduler", params: { type: "scheduler.pause" } },
      on: { "user.cancel": { actions: { type: "to_scheduler", params: ({ event }) => ({ type: "scheduler.cancel", reason: event.reason }) } } },
      initial: "classifying_change",
      states: {
        classifying_change: {
          invoke: {
            id: "classify_change",
            src: "classify_change",
            input: ({ context }) => change_of(context),
            onDone: [
              {
                guard: ({ event }) => event.output.level === "implementation",
                target: "updating_tasks",
                actions: assign({ change_class: ({ event }) => event.output }),
              },
              { target: "#main-agent.architecture_revising", actions: assign({ revision: ({ event }) => design_revision(event.output) }) },
            ],
            onError: { target: "#main-agent.executing", actions: ["continue_run", { type: "end_mid_run", params: failed_in }] },
          },
        },
        updating_tasks: {
          invoke: {
            id: "revise_tasks",
            src: "revise_tasks",
            input: ({ context }) => ({ change: change_of(context), revision: held(context.change_class, "main-agent", "change classification") }),
            onDone: { target: "#main-agent.executing", actions: ["continue_run", { type: "end_mid_run", params: told_in }] },
            onError: { target: "#main-agent.executing", actions: ["continue_run", { type: "end_mid_run", params: failed_in }] },
          },
        },
      },
    },
    // A design-level change (or a gate's replan): the revision is drafted if need be and assessed before it is confirmed.
    architecture_revising: {
      on: { "user.cancel": { actions: { type: "to_scheduler", params: ({ event }) => ({ type: "scheduler.cancel", reason: event.reason }) } } },
      invoke: {
        id: "revise_architecture",
        src: "revise_architecture",
        input: ({ context }) => ({ change: change_of(context), revision: context.revision }),
        onDone: [
          {
            guard: ({ event }) => stops_plan(event.output.impact),
            target: "executing",
            actions: [
              assign({ impact: ({ event }) => event.output.impact }),
              "continue_run",
              { type: "end_mid_run", params: ({ event }) => told(`The change was not applied: ${event.output.impact.summary}`) },
            ],
          },
          {
            guard: "confirms_revision",
            target: "confirming",
            actions: assign({ revision: ({ event }) => event.output.revision, impact: ({ event }) => event.output.impact }),
          },
          { target: "replanning", actions: assign({ revision: ({ event }) => event.output.revision, impact: ({ event }) => event.output.impact }) },
        ],
        onError: { target: "executing", actions: ["continue_run", { type: "end_mid_run", params: failed_in }] },
      },
    },
    // The revision lands: the Scheduler stops the cancelled tasks' agents, the rest is recorded, dispatch goes on.
    replanning: {
      entry: {
        type: "to_scheduler",
        params: ({ context }) => ({ type: "scheduler.stop_tasks", task_ids: revision_of(context).cancel, reason: change_of(context).summary }),
      },
      invoke: {
        id: "apply_revision",
        src: "apply_revision",
        input: ({ context }) => ({ change: change_of(context), revision: revision_of(context) }),
        onDone: {
          target: "executing",
          actions: [
            assign({ added: ({ context }) => [...context.added, ...revision_of(context).add.map((task) => task.id)] }),
            "continue_run",
            { type: "end_mid_run", params: told_in },
          ],
        },
        onError: { target: "executing", actions: ["continue_run", { type: "end_mid_run", params: failed_in }] },
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

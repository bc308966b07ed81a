import * as v from "valibot";
import { createActor, fromPromise, waitFor } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import type { ArchitectureImpact } from "../../src/contracts/architecture.js";
import { air_failure } from "../../src/contracts/errors.js";
import { TaskSpec } from "../../src/contracts/task.js";
import type { DesignRevision } from "../../src/machines/requirement-change.js";
import { main_agent_machine, type Classification, type MainAgentInput, type RequestOutcome } from "../../src/machines/main-agent.js";
import { scheduler_machine, type SchedulerRunResult, type WaveDecision } from "../../src/machines/scheduler.js";
import { minimal_task_spec } from "../fixtures/events.js";

const spec = v.parse(TaskSpec, minimal_task_spec());
const [lib_a, lib_b, app] = ["lib a", "lib b", "app"].map((title) => v.parse(TaskSpec, minimal_task_spec({ title })));
const three: Classification = { intent: "plan", tasks: [lib_a, lib_b, app].filter((task) => task !== undefined) };
const ids_of = (classification: Classification) => (classification.intent === "plan" ? classification.tasks.map((task) => task.id) : []);
const NO_TASKS = { pending: 0, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 };
const completed: SchedulerRunResult = { status: "completed", counts: NO_TASKS, error: undefined };
const SILENT: ArchitectureImpact = { result_class: "silent_continue", summary: "no design change", impacted_task_ids: [] };

/** How the provided direct-mode actors behave: a turn answers its text in upper case unless told otherwise. */
type DirectBehaviour = { turn?: (text: string, signal: AbortSignal) => Promise<string>; summary?: () => Promise<string> };

function agent(
  classify: () => Promise<Classification>,
  execute: () => Promise<SchedulerRunResult> = async () => completed,
  direct: DirectBehaviour = {},
  input: MainAgentInput = { confirm_plans: false },
) {
  const calls: string[] = [];
  const machine = main_agent_machine.provide({
    actors: {
      classify: fromPromise(async ({ input }) => {
        calls.push(`classify ${input.text}`);
        return classify();
      }),
      answer: fromPromise(async ({ input }) => void calls.push(`answer ${input.answer}`)),
      present_plan: fromPromise(
        async ({ input }) => void calls.push(`present ${input.tasks.length}${input.awaiting_confirmation ? " awaiting confirmation" : ""}`),
      ),
      design_architecture: fromPromise(async ({ input }) => {
        calls.push(`design ${input.tasks.length}`);
        return SILENT;
      }),
      create_tasks: fromPromise(async ({ input }) => void calls.push(`create ${input.tasks.map((task) => task.id).join(" ")}`)),
      execute: scheduler_machine.provide({
        actors: {
          load_graph: fromPromise(async () => {
            calls.push("execute");
            return execute().then(() => ({ runnable: [], counts: NO_TASKS }));
          }),
          plan_wave: fromPromise(async (): Promise<WaveDecision> => ({ dispatch: [] })),
        },
      }),
      summarize: fromPromise(async ({ input }) => void calls.push(`summarize ${input.outcome.kind}`)),
      direct_turn: fromPromise(async ({ input, signal }) => {
        calls.push(`direct ${input.text}`);
        return (direct.turn ?? (async (text) => text.toUpperCase()))(input.text, signal);
      }),
      direct_summary: fromPromise(async () => {
        calls.push("direct summary");
        return (direct.summary ?? (async () => "summary of the direct session"))();
      }),
    },
  });
  return { actor: createActor(machine, { input }).start(), calls };
}

async function handled(actor: ReturnType<typeof agent>["actor"], text: string): Promise<RequestOutcome | undefined> {
  actor.send({ type: "user.message", message_id: "msg_1", text });
  await waitFor(actor, (snapshot) => snapshot.matches("idle") && snapshot.context.outcome !== undefined);
  return actor.getSnapshot().context.outcome;
}

describe("main agent machine", () => {
  it("answers a question without scheduling anything", async () => {
    const { actor, calls } = agent(async () => ({ intent: "chat", answer: "42" }));
    expect(await handled(actor, "what is the answer?")).toEqual({ kind: "answered", answer: "42" });
    expect(calls).toEqual(["classify what is the answer?", "answer 42"]);
  });

  it("delegates a task request: shows and records its plan of one, executes, summarises, returns to idle", async () => {
    const { actor, calls } = agent(async () => ({ intent: "plan", tasks: [spec] }));
    expect(await handled(actor, "fix the test")).toEqual({ kind: "executed", task_ids: [spec.id], run: completed });
    expect(calls).toEqual(["classify fix the test", "present 1", `create ${spec.id}`, "execute", "summarize executed"]);
  });

  it("records a plan of several tasks at once and reports every one of them as executed", async () => {
    const { actor, calls } = agent(async () => three);
    expect(await handled(actor, "fix the libraries")).toEqual({ kind: "executed", task_ids: ids_of(three), run: completed });
    expect(calls).toEqual(["classify fix the libraries", "present 3", `create ${ids_of(three).join(" ")}`, "execute", "summarize executed"]);
  });

  it("sends a plan the classifier marks as touching the architecture to the Architecture Designer before it is recorded", async () => {
    const { actor, calls } = agent(async () => ({ ...three, touches_architecture: true }));
    expect(await handled(actor, "fix the libraries")).toEqual({ kind: "executed", task_ids: ids_of(three), run: completed });
    expect(calls).toEqual(["classify fix the libraries", "present 3", "design 3", `create ${ids_of(three).join(" ")}`, "execute", "summarize executed"]);
  });

  describe("confirming a plan", () => {
    const confirming = { confirm_plans: true };
    const waiting = async (actor: ReturnType<typeof agent>["actor"]) => {
      actor.send({ type: "user.message", message_id: "msg_1", text: "fix the libraries" });
      await waitFor(actor, (snapshot) => snapshot.matches("confirming"));
    };

    it("waits for plan.approve before recording a plan of more than one task, then runs it", async () => {
      const { actor, calls } = agent(async () => three, undefined, undefined, confirming);
      await waiting(actor);
      expect(calls).toEqual(["classify fix the libraries", "present 3 awaiting confirmation"]);
      actor.send({ type: "plan.approve" });
      await waitFor(actor, (snapshot) => snapshot.matches("idle"));
      expect(actor.getSnapshot().context.outcome).toEqual({ kind: "executed", task_ids: ids_of(three), run: completed });
      expect(calls.slice(2)).toEqual([`create ${ids_of(three).join(" ")}`, "execute", "summarize executed"]);
    });

    it("drops a rejected plan unrecorded, says so and is idle with an outcome that says so", async () => {
      const { actor, calls } = agent(async () => three, undefined, undefined, confirming);
      await waiting(actor);
      actor.send({ type: "plan.reject", reason: "the user rejected the plan" });
      await waitFor(actor, (snapshot) => snapshot.matches("idle"));
      expect(actor.getSnapshot().context.outcome).toEqual({ kind: "rejected", reason: "the user rejected the plan", task_count: 3 });
      expect(calls).toEqual(["classify fix the libraries", "present 3 awaiting confirmation", "summarize rejected"]);
    });

    it("reads an interrupt while the plan waits as its rejection", async () => {
      const { actor, calls } = agent(async () => three, undefined, undefined, confirming);
      await waiting(actor);
      actor.send({ type: "user.cancel", reason: "Esc" });
      await waitFor(actor, (snapshot) => snapshot.matches("idle"));
      expect(actor.getSnapshot().context.outcome).toEqual({ kind: "rejected", reason: "Esc", task_count: 3 });
      expect(calls.some((call) => call.startsWith("create"))).toBe(false);
    });

    it("does not ask about a plan of one task", async () => {
      const { actor, calls } = agent(async () => ({ intent: "plan", tasks: [spec] }), undefined, undefined, confirming);
      expect(await handled(actor, "fix the test")).toMatchObject({ kind: "executed", task_ids: [spec.id] });
      expect(calls).toContain("present 1");
    });

    it("ignores plan.approve and plan.reject when no plan waits", async () => {
      const { actor, calls } = agent(async () => three, undefined, undefined, confirming);
      actor.send({ type: "plan.approve" });
      actor.send({ type: "plan.reject", reason: "no" });
      expect(actor.getSnapshot().value).toBe("idle");
      expect(actor.getSnapshot().context.outcome).toBeUndefined();
      expect(calls).toEqual([]);
    });
  });

  it("returns to idle with the AirError when classification fails", async () => {
    const { actor } = agent(async () => {
      throw air_failure({ kind: "provider_error", message: "overloaded", retryability: "retryable" });
    });
    const outcome = await handled(actor, "hello");
    expect(outcome).toMatchObject({ kind: "failed", error: { kind: "provider_error", message: "overloaded", retryability: "retryable" } });
  });

  it("summarises an execution the Scheduler could not finish, with its error", async () => {
    const { actor, calls } = agent(
      async () => ({ intent: "plan", tasks: [spec] }),
      async () => {
        throw new Error("graph unreadable");
      },
    );
    const outcome = await handled(actor, "fix it");
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked", error: { message: "graph unreadable" } } });
    expect(calls.at(-1)).toBe("summarize executed");
  });

  describe("direct mode", () => {
    const chat = async (): Promise<Classification> => ({ intent: "chat", answer: "unused" });
    const in_state = (actor: ReturnType<typeof agent>["actor"], state: Parameters<ReturnType<typeof actor.getSnapshot>["matches"]>[0]) =>
      waitFor(actor, (snapshot) => snapshot.matches(state));

    it("runs every message as a direct turn, never classifying, until direct.done summarises and returns to idle", async () => {
      const { actor, calls } = agent(chat);
      actor.send({ type: "direct.enter" });
      expect(actor.getSnapshot().value).toEqual({ direct_mode: "awaiting_message" });
      actor.send({ type: "user.message", message_id: "msg_1", text: "write the file" });
      expect(actor.getSnapshot().value).toEqual({ direct_mode: "direct_turn" });
      await in_state(actor, { direct_mode: "awaiting_message" });
      expect(actor.getSnapshot().context.outcome).toEqual({ kind: "answered", answer: "WRITE THE FILE" });
      actor.send({ type: "user.message", message_id: "msg_2", text: "and test it" });
      await in_state(actor, { direct_mode: "awaiting_message" });
      actor.send({ type: "direct.done" });
      await in_state(actor, "idle");
      expect(actor.getSnapshot().context.outcome).toEqual({ kind: "answered", answer: "summary of the direct session" });
      expect(calls).toEqual(["direct write the file", "direct and test it", "direct summary"]);
    });

    it("ignores direct.done outside direct mode, and direct.enter or direct.done while a turn runs", async () => {
      let finish: (answer: string) => void = () => undefined;
      const { actor, calls } = agent(chat, undefined, { turn: () => new Promise((resolve) => (finish = resolve)) });
      actor.send({ type: "direct.done" });
      expect(actor.getSnapshot().value).toBe("idle");
      actor.send({ type: "direct.enter" });
      actor.send({ type: "direct.enter" });
      actor.send({ type: "user.message", message_id: "msg_1", text: "slow work" });
      actor.send({ type: "direct.done" });
      actor.send({ type: "user.message", message_id: "msg_2", text: "too soon" });
      expect(actor.getSnapshot().value).toEqual({ direct_mode: "direct_turn" });
      expect(actor.getSnapshot().context.request?.message_id).toBe("msg_1");
      finish("done");
      await in_state(actor, { direct_mode: "awaiting_message" });
      expect(calls).toEqual(["direct slow work"]);
    });

    it("does not enter direct mode while a normal turn runs", async () => {
      const { actor } = agent(() => new Promise(() => undefined));
      actor.send({ type: "user.message", message_id: "msg_1", text: "hello" });
      actor.send({ type: "direct.enter" });
      expect(actor.getSnapshot().value).toBe("classifying");
    });

    it("interrupts a direct turn: its actor's signal aborts and direct mode waits for the next message", async () => {
      let aborted = false;
      const { actor } = agent(chat, undefined, {
        turn: (_text, signal) => new Promise(() => signal.addEventListener("abort", () => (aborted = true))),
      });
      actor.send({ type: "direct.enter" });
      actor.send({ type: "user.message", message_id: "msg_1", text: "endless" });
      actor.send({ type: "user.cancel", reason: "Esc" });
      expect(actor.getSnapshot().value).toEqual({ direct_mode: "awaiting_message" });
      expect(aborted).toBe(true);
      expect(actor.getSnapshot().context.outcome).toMatchObject({ kind: "failed", error: { message: "interrupted: Esc", metadata: { cancelled: true } } });
    });

    it("keeps direct mode after a failed turn, with its AirError as the outcome", async () => {
      const { actor } = agent(chat, undefined, {
        turn: async () => {
          throw air_failure({ kind: "provider_error", message: "overloaded", retryability: "retryable" });
        },
      });
      actor.send({ type: "direct.enter" });
      actor.send({ type: "user.message", message_id: "msg_1", text: "work" });
      await in_state(actor, { direct_mode: "awaiting_message" });
      expect(actor.getSnapshot().context.outcome).toMatchObject({ kind: "failed", error: { kind: "provider_error", message: "overloaded" } });
    });

    it("returns to idle with the error when the summary fails", async () => {
      const { actor } = agent(chat, undefined, {
        summary: async () => {
          throw new Error("store closed");
        },
      });
      actor.send({ type: "direct.enter" });
      actor.send({ type: "direct.done" });
      await in_state(actor, "idle");
      expect(actor.getSnapshot().context.outcome).toMatchObject({ kind: "failed", error: { kind: "system_error", message: "store closed" } });
    });
  });

  it("reaches every state of seeds 000 §20.1, and CONFIRMING from ARCHITECTURE_REVISING (model-based)", () => {
    const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output, actorId: id }) as never;
    const failed = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(id), actorId: id }) as never;
    const design: DesignRevision = { level: "design", summary: "drop lib b", cancel: [lib_b?.id ?? ""], revise: [], add: [] };
    const events = [
      { type: "user.message", message_id: "msg_1", text: "hi" } as const,
      done("classify", { intent: "chat", answer: "hello" }),
      done("classify", { intent: "plan", tasks: [spec] }),
      done("classify", three),
      done("classify", { ...three, touches_architecture: true }),
      failed("classify"),
      done("present_plan"),
      failed("present_plan"),
      done("design_architecture", SILENT),
      done("design_architecture", { ...SILENT, result_class: "reject_or_escalate" }),
      { type: "plan.approve" } as const,
      { type: "plan.reject", reason: "no" } as const,
      done("answer"),
      done("create_tasks"),
      done("scheduler", completed),
      done("scheduler", { ...completed, status: "blocked", replan: { task_ids: [spec.id], reason: "the interface changed" } }),
      failed("scheduler"),
      done("triage", { kind: "question", answer: "half done" }),
      done("triage", { kind: "requirement_change", summary: "drop lib b" }),
      done("answer_question"),
      done("classify_change", { level: "implementation", summary: "say hello", revise: [] }),
      done("classify_change", design),
      done("revise_tasks", "updated"),
      done("revise_architecture", { revision: design, impact: SILENT }),
      done("apply_revision", "applied"),
      done("summarize"),
      { type: "direct.enter" } as const,
      { type: "direct.done" } as const,
      { type: "user.cancel", reason: "Esc" } as const,
      done("direct_turn", "answer"),
      failed("direct_turn"),
      done("direct_summary", "summary"),
      failed("direct_summary"),
    ];
    const paths = getShortestPaths(main_agent_machine, {
      events,
      input: { confirm_plans: true },
      serializeState: (state) =>
        JSON.stringify([
          state.value,
          state.context.classification?.intent === "plan" ? state.context.classification.tasks.length : 0,
          state.context.classification?.intent === "plan" && state.context.classification.touches_architecture === true,
          state.context.scheduler_live,
          state.context.run?.status,
          state.context.run?.replan !== undefined,
          state.context.revision !== undefined,
          state.context.mid_run !== undefined,
          state.context.outcome?.kind,
        ]),
    });
    const name = (value: unknown): string =>
      typeof value === "string"
        ? value
        : Object.entries(value as Record<string, unknown>)
            .map(([state, child]) => `${state}.${name(child)}`)
            .join();
    const reached = new Set(paths.map((path) => name(path.state.value)));
    expect([...reached].sort()).toEqual(
      [
        "idle",
        "classifying",
        "routing",
        "answering",
        "delegating",
        "architecture_designing",
        "confirming",
        "scheduling",
        "executing.listening",
        "executing.triaging",
        "executing.answering_question",
        "interrupting.classifying_change",
        "interrupting.updating_tasks",
        "architecture_revising",
        "replanning",
        "summarizing",
        "direct_mode.awaiting_message",
        "direct_mode.direct_turn",
        "direct_mode.direct_summary",
      ]
        .filter((state) => state !== "routing")
        .sort(),
    );
    const revision_confirmed = paths.find((path) => path.state.matches("confirming") && path.state.context.revision !== undefined);
    expect(revision_confirmed?.steps.at(-1)?.event.type).toBe("xstate.done.actor.revise_architecture");
    const gate_replan = paths.find((path) => path.state.matches("architecture_revising") && path.state.context.change?.source === "gate");
    expect(gate_replan?.steps.map((step) => step.event.type)).toContain("xstate.done.actor.scheduler");
  });
});

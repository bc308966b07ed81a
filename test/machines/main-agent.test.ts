import * as v from "valibot";
import { createActor, fromPromise, waitFor } from "xstate";
import { getShortestPaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { air_failure } from "../../src/contracts/errors.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { main_agent_machine, type Classification, type RequestOutcome } from "../../src/machines/main-agent.js";
import { scheduler_machine, type SchedulerRunResult } from "../../src/machines/scheduler.js";
import { minimal_task_spec } from "../fixtures/events.js";

const spec = v.parse(TaskSpec, minimal_task_spec());
const NO_TASKS = { pending: 0, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 };
const completed: SchedulerRunResult = { status: "completed", counts: NO_TASKS, error: undefined };

function agent(classify: () => Promise<Classification>, execute: () => Promise<SchedulerRunResult> = async () => completed) {
  const calls: string[] = [];
  const machine = main_agent_machine.provide({
    actors: {
      classify: fromPromise(async ({ input }) => {
        calls.push(`classify ${input.text}`);
        return classify();
      }),
      answer: fromPromise(async ({ input }) => void calls.push(`answer ${input.answer}`)),
      create_tasks: fromPromise(async ({ input }) => void calls.push(`create ${input.spec.id}`)),
      execute: scheduler_machine.provide({
        actors: {
          load_graph: fromPromise(async () => {
            calls.push("execute");
            return execute().then(() => ({ runnable: [], counts: NO_TASKS }));
          }),
        },
      }),
      summarize: fromPromise(async ({ input }) => void calls.push(`summarize ${input.outcome.kind}`)),
    },
  });
  return { actor: createActor(machine).start(), calls };
}

async function handled(actor: ReturnType<typeof agent>["actor"], text: string): Promise<RequestOutcome | undefined> {
  actor.send({ type: "user.message", message_id: "msg_1", text });
  await waitFor(actor, (snapshot) => snapshot.matches("IDLE") && snapshot.context.outcome !== undefined);
  return actor.getSnapshot().context.outcome;
}

describe("main agent machine", () => {
  it("answers a question without scheduling anything", async () => {
    const { actor, calls } = agent(async () => ({ intent: "chat", answer: "42" }));
    expect(await handled(actor, "what is the answer?")).toEqual({ kind: "answered", answer: "42" });
    expect(calls).toEqual(["classify what is the answer?", "answer 42"]);
  });

  it("delegates a task request: schedules one task, executes, summarises, returns to IDLE", async () => {
    const { actor, calls } = agent(async () => ({ intent: "task", spec }));
    expect(await handled(actor, "fix the test")).toEqual({ kind: "executed", task_id: spec.id, run: completed });
    expect(calls).toEqual(["classify fix the test", `create ${spec.id}`, "execute", "summarize executed"]);
  });

  it("returns to IDLE with the AirError when classification fails", async () => {
    const { actor } = agent(async () => {
      throw air_failure({ kind: "provider_error", message: "overloaded", retryability: "retryable" });
    });
    const outcome = await handled(actor, "hello");
    expect(outcome).toMatchObject({ kind: "failed", error: { kind: "provider_error", message: "overloaded", retryability: "retryable" } });
  });

  it("summarises an execution the Scheduler could not finish, with its error", async () => {
    const { actor, calls } = agent(async () => ({ intent: "task", spec }), async () => {
      throw new Error("graph unreadable");
    });
    const outcome = await handled(actor, "fix it");
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked", error: { message: "graph unreadable" } } });
    expect(calls.at(-1)).toBe("summarize executed");
  });

  it("reaches every state (model-based)", () => {
    const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as never;
    const failed = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(id) }) as never;
    const events = [
      { type: "user.message", message_id: "msg_1", text: "hi" } as const,
      done("classify", { intent: "chat", answer: "hello" }),
      done("classify", { intent: "task", spec }),
      failed("classify"),
      done("answer"),
      done("create_tasks"),
      done("scheduler", completed),
      failed("scheduler"),
      done("summarize"),
    ];
    const paths = getShortestPaths(main_agent_machine, { events, serializeState: (state) => JSON.stringify(state.value) });
    const reached = new Set(paths.map((path) => String(path.state.value)));
    expect([...reached].sort()).toEqual(["ANSWERING", "CLASSIFYING", "EXECUTING", "IDLE", "SCHEDULING", "SUMMARIZING"].sort());
  });
});

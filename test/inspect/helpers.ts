/**
 * The real machines of src/machines running as air runs them — a Main Agent that delegated a task to its
 * Scheduler, which is monitoring a worker run — plus a task lifecycle as a second root actor. Only the
 * actors that do I/O are stubbed, and only here: the classification and graph resolve at once, the
 * worker run never ends.
 */
import { createActor, fromPromise, type InspectionEvent, type Observer } from "xstate";
import WebSocket from "ws";
import type { TaskGraphSnapshot } from "../../src/machines/scheduler.js";
import { main_agent_machine, type Classification } from "../../src/machines/main-agent.js";
import { scheduler_machine } from "../../src/machines/scheduler.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { task_machine } from "../../src/machines/task.js";

const never_ending = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(() => new Promise(() => undefined));

const task_spec = { id: "task_1", title: "fix the failing test" } as unknown as Extract<Classification, { intent: "plan" }>["tasks"][number];

const graph: TaskGraphSnapshot = {
  runnable: ["task_1"],
  counts: { pending: 1, running: 0, completed: 0, failed: 0, blocked: 0, cancelled: 0, interrupted: 0 } as TaskGraphSnapshot["counts"],
};

const machine_under_test = main_agent_machine.provide({
  actors: {
    classify: fromPromise(async () => ({ intent: "plan", tasks: [task_spec] }) as Classification),
    present_plan: fromPromise(async ({ input }) => void input),
    create_tasks: fromPromise(async ({ input }) => void input),
    execute: scheduler_machine.provide({
      actors: {
        load_graph: fromPromise(async () => graph),
        plan_wave: fromPromise(async () => ({ dispatch: graph.runnable })),
        dispatch: fromPromise(async ({ input }) => input.task_ids.map((task_id) => ({ task_id, agent_id: "agent_1" }))),
        run_worker: never_ending,
      },
    }),
  },
});

export type RunningSystem = {
  readonly main_agent: ReturnType<typeof createActor<typeof machine_under_test>>;
  readonly task: ReturnType<typeof createActor<typeof task_machine>>;
  /** Moves the task lifecycle round failed → pending → running `rounds` times (three events each). */
  churn(rounds: number): void;
  stop(): void;
};

/** Starts both roots with `inspect` and waits until the Scheduler is monitoring the worker run. */
export async function start_system(inspect: Observer<InspectionEvent>): Promise<RunningSystem> {
  const main_agent = createActor(machine_under_test, { systemId: "main-agent", inspect, input: { confirm_plans: false } });
  main_agent.start();
  main_agent.send({ type: "user.message", message_id: "message_1", text: "make the tests pass" });
  const task = createActor(task_machine, { inspect });
  task.start();
  task.send({ type: "task.started" });
  for (let tries = 0; tries < 100; tries++) {
    const scheduler = main_agent.getSnapshot().children.scheduler;
    if ((scheduler?.getSnapshot() as { value?: unknown } | undefined)?.value === "monitoring") break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    main_agent,
    task,
    churn(rounds) {
      for (let round = 0; round < rounds; round++) {
        task.send({ type: "task.failed" });
        task.send({ type: "task.retried" });
        task.send({ type: "task.started" });
      }
    },
    stop() {
      main_agent.stop();
      task.stop();
    },
  };
}

/** An inspection message as the inspector receives it; tests read a snapshot's value and status and an event's type. */
export type Message = {
  type: string;
  sessionId: string;
  name?: string;
  definition?: string;
  snapshot?: { readonly value?: unknown; readonly status?: string; readonly [key: string]: unknown };
  event?: { readonly type: string; readonly [key: string]: unknown };
  parentId?: string;
};

/** A WebSocket client that keeps every message it receives. */
export class InspectorClient {
  readonly messages: Message[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => this.messages.push(JSON.parse(String(data)) as Message));
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<InspectorClient> {
    const socket = new WebSocket(url.replace(/^http/, "ws"), { headers });
    const client = new InspectorClient(socket);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(client));
      socket.once("error", reject);
      socket.once("unexpected-response", (_request, response) => reject(new Error(`refused: HTTP ${response.statusCode}`)));
    });
  }

  /** Resolves once `done` holds for the messages received so far. */
  async until(done: (messages: Message[]) => boolean, timeout_ms = 5_000): Promise<Message[]> {
    const deadline = Date.now() + timeout_ms;
    while (!done(this.messages)) {
      if (Date.now() > deadline) throw new Error(`timed out; received: ${this.messages.map((m) => `${m.type} ${m.sessionId}`).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.messages;
  }

  close(): void {
    this.socket.terminate();
  }
}

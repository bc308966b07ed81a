import * as v from "valibot";
import { createActor, fromPromise, toPromise, waitFor, type Actor, type InspectionEvent, type Observer } from "xstate";
import { load_compaction_rules } from "../../context/compaction/rules.js";
import { SessionContext } from "../../context/session-context.js";
import { make_event } from "../../contracts/events/registry.js";
import { new_id, type AgentId } from "../../contracts/ids.js";
import { AGENT_TYPE_OF_TASK, type AgentBrief } from "../../contracts/ipc.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { ToolSchema } from "../../contracts/tool.js";
import { air_failure, AirFailure } from "../../contracts/errors.js";
import { ModelResponse, type ModelRequest } from "../../contracts/provider.js";
import type { RequestOutcome } from "../../machines/main-agent.js";
import type { SchedulerRunResult } from "../../machines/scheduler.js";
import type { WorkerRunOutcome } from "../../machines/worker-run.js";
import type { PermissionEngine } from "../../permissions/engine.js";
import { air_home } from "../../project/layout.js";
import type { Session } from "../../project/session-manager.js";
import type { ProviderSession } from "../../providers/manager.js";
import { create_tool_registry } from "../../tools/builtin.js";
import { context_compact_tool } from "../../tools/context/compact.js";
import { model_complete_tool } from "../../tools/model/complete.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { worker_run_logic } from "../worker-run.js";
import type { WorkerEntry, WorkerLogEntry } from "../worker-bridge/index.js";
import type { TaskDefaults } from "./classification.js";
import { provide_main_agent } from "./main-agent-actors.js";
import { provide_scheduler } from "./scheduler-actors.js";
import { read_task_spec } from "./task-graph.js";

export type RuntimeOptions = {
  readonly provider: ProviderSession;
  /** The session's permission engine: its mode, rules, grants and whoever answers its prompts. */
  readonly permissions: PermissionEngine;
  readonly task_defaults: TaskDefaults;
  /** Test seam for the worker command (default: this installation's worker entry). */
  readonly worker_entry?: WorkerEntry;
  readonly on_worker_log?: (entry: WorkerLogEntry) => void;
  /** Live statecharts (`--inspect`, `--inspect-file`): every root actor reports to it. */
  readonly inspect?: Observer<InspectionEvent>;
};

/** The tools a model may be offered: internal ones (model.complete) stay between worker and parent. */
function model_visible(registry: ToolRegistry): ToolSchema[] {
  const internal = new Set(internal_tools(registry));
  return registry.schemas().filter((schema) => !internal.has(schema.name));
}

function internal_tools(registry: ToolRegistry): string[] {
  return registry.list().filter((tool) => tool.category === "internal").map((tool) => tool.name);
}

/**
 * What a worker starts with besides its task: the tools, its stable prompt layers L0–L6 built here (the
 * worker reads no project file), the budget of the session's model and the compaction settings in force.
 */
function agent_brief(session: Session, registry: ToolRegistry, context: SessionContext, options: RuntimeOptions, task: TaskSpec): AgentBrief {
  const { settings } = load_compaction_rules(session.project.layout, air_home());
  return {
    project_root: session.project.layout.root,
    model_id: options.provider.model_id,
    max_turns: task.constraints.max_turns,
    tools: model_visible(registry),
    layers: context.agent_layers(task, AGENT_TYPE_OF_TASK[task.type]),
    context_window: context.context_window,
    token_budget: context.token_budget,
    internal_tools: internal_tools(registry).filter((name) => name !== "model.complete"),
    compaction: { threshold_ratio: settings.threshold_ratio, circuit_breaker: settings.circuit_breaker },
  };
}

/** The Main Agent's model calls go through `model.complete` too, so every call is a recorded tool run. */
async function complete_through_registry(session: Session, registry: ToolRegistry, request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
  const outcome = await registry.call({ tool_name: "model.complete", input: request }, { session, ...(signal === undefined ? {} : { signal }) });
  if (!outcome.ok) throw new AirFailure(outcome.error);
  return v.parse(ModelResponse, outcome.output);
}

/** One task's worker run, as the Scheduler's `run_worker` actor: the worker-run machine with the real bridge. */
function run_worker_logic(session: Session, registry: ToolRegistry, context: SessionContext, options: RuntimeOptions) {
  const worker_run = worker_run_logic({
    session,
    call_tool: (call, context, on_stream) =>
      registry.call(call, { session, task_id: context.task_id, agent_id: context.agent_id, scope: context.scope, signal: context.signal }, on_stream),
    ...(options.worker_entry === undefined ? {} : { entry: options.worker_entry }),
    ...(options.on_worker_log === undefined ? {} : { on_log: options.on_worker_log }),
  });
  return fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input, signal }) => {
    const task = read_task_spec(session.connection, input.task_id);
    const run = createActor(worker_run, {
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
      input: { agent_id: input.agent_id as AgentId, task, brief: agent_brief(session, registry, context, options, task) },
    });
    signal.addEventListener("abort", () => run.send({ type: "run.cancel", reason: "the scheduler stopped the run" }));
    run.start();
    return toPromise(run);
  });
}

export type Runtime = {
  readonly registry: ToolRegistry;
  /** Runs the Scheduler over the session's pending tasks (after recovery, `air resume`). */
  resume(): Promise<SchedulerRunResult>;
  readonly main_agent: Actor<ReturnType<typeof provide_main_agent>>;
  /**
   * Records the user's message, hands it to the Main Agent and resolves when it is back to IDLE. One turn at
   * a time: while one runs, another is refused before anything is recorded.
   */
  submit(text: string): Promise<RequestOutcome>;
  /** A turn is running (the Main Agent is neither IDLE nor waiting for a message in direct mode). */
  busy(): boolean;
  /** `/direct`: the following messages are direct turns (seeds 003 §10.5); refused while a turn runs. */
  enter_direct(): void;
  /** `/done`: collects the direct session's evidence, records its summary, resolves back in IDLE with it. */
  leave_direct(): Promise<RequestOutcome>;
  /** Direct mode is on (from `enter_direct` until `leave_direct` has begun). */
  in_direct_mode(): boolean;
  /** Interrupts the running turn (or resumed run): its model call is aborted, its tasks are cancelled; a no-op when idle. */
  cancel(reason: string): void;
  stop(): void;
};

/** `/done` or a direct message outside direct mode. */
export function not_in_direct_mode_failure() {
  return air_failure({
    kind: "user_error",
    message: "not in direct mode",
    retryability: "not_retryable",
    user_action: "Enter direct mode with /direct first.",
  });
}

function busy_failure() {
  return air_failure({
    kind: "user_error",
    message: "a turn is still running; the message was not sent",
    retryability: "retryable",
    user_action: "Wait for the running turn to finish, or interrupt it (Esc), then send the message again.",
  });
}

/** The runtime of one open session: tool registry, permission engine, Main Agent with its Scheduler. */
export function start_runtime(session: Session, options: RuntimeOptions): Runtime {
  const registry = create_tool_registry({ permissions: options.permissions });
  registry.register(model_complete_tool(options.provider));
  registry.register(context_compact_tool(options.provider));
  const context = new SessionContext({ session, mode: options.permissions.mode, context_window: options.provider.capabilities.context_window });
  const run_worker = run_worker_logic(session, registry, context, options);
  // The running turn's abort: an interrupt stops the Main Agent's own model call, which `user.cancel` cannot reach.
  let turn: AbortController | undefined;
  // A resumed session's Scheduler run (`resume()`): an interrupt cancels it too.
  let resumed: ReturnType<typeof createActor<ReturnType<typeof provide_scheduler>>> | undefined;
  const machine = provide_main_agent(session, {
    complete: (request) => complete_through_registry(session, registry, request, turn?.signal),
    run_worker,
    task_defaults: options.task_defaults,
    context,
    direct: {
      registry,
      tools: model_visible(registry),
      complete: (request, signal) => complete_through_registry(session, registry, request, signal),
    },
  });
  // Where the Main Agent takes a new message: IDLE, or between turns in direct mode.
  const ready = () => {
    const snapshot = main_agent.getSnapshot();
    return snapshot.matches("IDLE") || snapshot.matches({ DIRECT_MODE: "AWAITING_MESSAGE" });
  };
  const busy = () => turn !== undefined || !ready();
  const main_agent = createActor(machine, { systemId: "main-agent", ...(options.inspect === undefined ? {} : { inspect: options.inspect }) });
  // An actor error with no observer would crash the process (xstate-inspect.md §6); `submit` reports it.
  main_agent.subscribe({ error: () => undefined });
  main_agent.start();
  return {
    registry,
    main_agent,
    resume() {
      const scheduler = createActor(provide_scheduler(session, run_worker), {
        input: { autostart: true },
        ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
      });
      resumed = scheduler;
      scheduler.start();
      return toPromise(scheduler).finally(() => {
        if (resumed === scheduler) resumed = undefined;
      });
    },
    async submit(text) {
      if (busy()) throw busy_failure();
      const message_id = new_id("message");
      const current = new AbortController();
      turn = current;
      try {
        session.ingestor.ingest(
          make_event("user.message.created", { message_id, content: text }, { ...session.origin, source: { kind: "user" }, route: ["user"] }),
        );
        main_agent.send({ type: "user.message", message_id, text });
        const answered = await waitFor(main_agent, (snapshot) => ready() && snapshot.context.request?.message_id === message_id, { timeout: Infinity });
        return answered.context.outcome!;
      } finally {
        turn = undefined;
      }
    },
    busy,
    enter_direct() {
      if (busy()) throw busy_failure();
      main_agent.send({ type: "direct.enter" });
    },
    async leave_direct() {
      if (busy()) throw busy_failure();
      if (!main_agent.getSnapshot().matches("DIRECT_MODE")) throw not_in_direct_mode_failure();
      const current = new AbortController();
      turn = current;
      try {
        main_agent.send({ type: "direct.done" });
        return (await waitFor(main_agent, (snapshot) => snapshot.matches("IDLE"), { timeout: Infinity })).context.outcome!;
      } finally {
        turn = undefined;
      }
    },
    in_direct_mode() {
      const snapshot = main_agent.getSnapshot();
      return snapshot.matches("DIRECT_MODE") && !snapshot.matches({ DIRECT_MODE: "DIRECT_SUMMARY" });
    },
    cancel(reason) {
      turn?.abort(reason);
      resumed?.send({ type: "scheduler.cancel", reason });
      main_agent.send({ type: "user.cancel", reason });
    },
    stop() {
      main_agent.stop();
    },
  };
}

import * as v from "valibot";
import { createActor, fromPromise, toPromise, waitFor, type Actor, type InspectionEvent, type Observer, type SnapshotFrom } from "xstate";
import { CapabilityRegistry } from "../../capabilities/registry.js";
import { McpServers, type McpServersOptions } from "../../mcp/servers.js";
import { load_compaction_rules } from "../../context/compaction/rules.js";
import { SessionPrompts } from "../../context/session-prompts.js";
import { make_event } from "../../contracts/events/registry.js";
import { AgentId, new_id } from "../../contracts/ids.js";
import { AGENT_TYPE_OF_TASK, type AgentBrief } from "../../contracts/ipc.js";
import type { RunBudget } from "../../contracts/budget.js";
import type { TaskSpec } from "../../contracts/task.js";
import { MODEL_COMPLETE_TOOL, type ToolSchema } from "../../contracts/tool.js";
import { air_failure, AirFailure } from "../../contracts/errors.js";
import { ModelResponse, type ModelRequest } from "../../contracts/provider.js";
import type { RequestOutcome } from "../../machines/main-agent.js";
import { held } from "../../machines/state-data.js";
import type { RunWorkerLogic, SchedulerRunResult } from "../../machines/scheduler.js";
import type { WorkerRunOutcome } from "../../machines/worker-run-settlement.js";
import type { PermissionMode } from "../../contracts/events/permission.js";
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
import type { TaskDefaults } from "../../orchestration/plan/task-spec.js";
import { provide_main_agent } from "./main-agent-actors.js";
import { DEFAULT_MAX_PARALLEL, provide_scheduler, type SchedulerOptions } from "./scheduler-actors.js";
import { confinement_of, type LoneTask } from "./task-workspaces.js";
import type { WorkspaceConfinement } from "../../permissions/confinement.js";
import { read_task_spec } from "./task-graph.js";
import { current_retry } from "./attempt-history.js";
import { ExperienceMiner, type MinerSettings } from "../../memory/experience-miner.js";
import type { ArchitectureDesigner } from "../../contracts/architecture.js";
import { make_architecture_designer } from "../../architecture/designer.js";
import { plan_write_tool } from "../../architecture/plan-write-tool.js";
import { attempt_brief } from "./debug-brief.js";
import { DebugKnowledgeStore } from "../../debug/knowledge-store.js";
import { reviewer_runner, type RunReviewer } from "./review-run.js";
import { DEFAULT_REVIEW_SETTINGS, type ReviewSettings } from "../../orchestration/review/settings.js";
import type { AgentType } from "../../contracts/worker-result.js";

export type RuntimeOptions = {
  readonly provider: ProviderSession;
  /** The session's permission engine: its mode, rules, grants and whoever answers its prompts. */
  readonly permissions: PermissionEngine;
  readonly task_defaults: TaskDefaults;
  /** How many agents the Scheduler runs at once (`--max-parallel`; default DEFAULT_MAX_PARALLEL). */
  readonly max_parallel?: number;
  /** The run's limits (`--max-budget-usd`, `--max-tokens`, config), held by `model.complete`. */
  readonly run_budget?: RunBudget;
  /** Where a lone code task works (config `lone_task`; default the main checkout). */
  readonly lone_task?: LoneTask;
  /** Test seam for the worker command (default: this installation's worker entry). */
  readonly worker_entry?: WorkerEntry;
  readonly on_worker_log?: (entry: WorkerLogEntry) => void;
  /** Live statecharts (`--inspect`, `--inspect-file`): every root actor reports to it. */
  readonly inspect?: Observer<InspectionEvent>;
  /** A person is there to approve plans (the TUI); headless runs (`air run -p`, `air resume`) are not. */
  readonly interactive?: boolean;
  /** The ExperienceMiner's settings (config `experience_miner`); absent, the session mines nothing. */
  readonly experience_miner?: MinerSettings;
  /** The Architecture Designer of the architecture gate (and the Main Agent); default: the session model's. */
  readonly architecture_designer?: ArchitectureDesigner;
  /** The review gate's policy (config `review`; default: `significant`, 20 lines, confidence 0.8). */
  readonly review?: ReviewSettings;
  /** Limits for the session's MCP servers (call and start timeouts, message size); default: McpConnection's. */
  readonly mcp?: Omit<McpServersOptions, "air_home">;
};

/** Plans of more than one task wait for the user only where someone answers, in a mode that asks before acting. */
export function confirms_plans(interactive: boolean, mode: PermissionMode): boolean {
  return interactive && mode !== "accept-edits" && mode !== "bypass";
}

/** The tools a model may be offered: internal ones (model.complete) stay between worker and parent. */
function model_visible(registry: ToolRegistry): ToolSchema[] {
  const internal = new Set(internal_tools(registry));
  return registry.schemas().filter((schema) => !internal.has(schema.name));
}

function internal_tools(registry: ToolRegistry): string[] {
  return registry
    .list()
    .filter((tool) => tool.category === "internal")
    .map((tool) => tool.name);
}

/**
 * What a worker starts with besides its task: the tools, its stable prompt layers L0–L6 built here (the
 * worker reads no project file), the budget of the session's model and the compaction settings in force.
 */
function agent_brief(
  session: Session,
  registry: ToolRegistry,
  prompts: SessionPrompts,
  options: RuntimeOptions,
  task: TaskSpec,
  agent_type: AgentType = AGENT_TYPE_OF_TASK[task.type],
): AgentBrief {
  const { settings } = load_compaction_rules(session.project.layout, air_home());
  return {
    project_root: session.project.layout.root,
    model_id: options.provider.model_id,
    max_turns: task.constraints.max_turns,
    tools: model_visible(registry),
    layers: prompts.agent_layers(task, agent_type),
    context_window: prompts.context_window,
    token_budget: prompts.token_budget,
    internal_tools: internal_tools(registry).filter((name) => name !== MODEL_COMPLETE_TOOL),
    compaction: { threshold_ratio: settings.threshold_ratio, circuit_breaker: settings.circuit_breaker },
  };
}

/** The Main Agent's model calls go through `model.complete` too, so every call is a recorded tool run. */
async function complete_through_registry(session: Session, registry: ToolRegistry, request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
  const outcome = await registry.call({ tool_name: MODEL_COMPLETE_TOOL, input: request }, { session, ...(signal === undefined ? {} : { signal }) });
  if (!outcome.ok) throw new AirFailure(outcome.error);
  return v.parse(ModelResponse, outcome.output);
}

/** One task's worker run, as the Scheduler's `run_worker` actor: the worker-run machine with the real bridge. */
function run_worker_logic(
  session: Session,
  registry: ToolRegistry,
  prompts: SessionPrompts,
  options: RuntimeOptions,
  debug_records: DebugKnowledgeStore,
): RunWorkerLogic {
  // The workspace each running agent is confined to, looked up once per run rather than once per call.
  const confinements = new Map<string, WorkspaceConfinement>();
  const worker_run = worker_run_logic({
    session,
    call_tool: (call, caller, on_stream) => {
      const workspace = confinements.get(caller.agent_id);
      return registry.call(
        call,
        {
          session,
          task_id: caller.task_id,
          agent_id: caller.agent_id,
          scope: caller.scope,
          signal: caller.signal,
          ...(workspace === undefined ? {} : { workspace }),
        },
        on_stream,
      );
    },
    ...(options.worker_entry === undefined ? {} : { entry: options.worker_entry }),
    ...(options.on_worker_log === undefined ? {} : { on_log: options.on_worker_log }),
  });
  return fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input, signal }) => {
    const spec = read_task_spec(session.connection, input.task_id);
    const workspace = confinement_of(session, input.task_id);
    if (workspace !== undefined) confinements.set(input.agent_id, workspace);
    const retry = current_retry(session, input.task_id);
    // A debug attempt runs the Debugger on the executor's task, in the same workspace and with the same tools.
    const agent_type: AgentType = retry?.change === "debug" ? "debugger" : AGENT_TYPE_OF_TASK[spec.type];
    const { task, brief } = attempt_brief(debug_records, spec, agent_brief(session, registry, prompts, options, spec, agent_type), retry);
    const run = createActor(worker_run, {
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
      // Work in a worktree of its own survives its worker: a hard timeout there interrupts the task instead of failing it.
      input: {
        agent_id: v.parse(AgentId, input.agent_id),
        task,
        brief: workspace === undefined ? brief : { ...brief, project_root: workspace.root },
        resumable: workspace !== undefined,
        agent_type,
      },
    });
    signal.addEventListener("abort", () => run.send({ type: "run.cancel", reason: "the scheduler stopped the run" }));
    run.start();
    return toPromise(run).finally(() => confinements.delete(input.agent_id));
  });
}

/** The review gate's reviewer workers: briefs in the `reviewer` role, the worker entry and logs of every run. */
function review_runner(session: Session, registry: ToolRegistry, prompts: SessionPrompts, options: RuntimeOptions): RunReviewer {
  return reviewer_runner({
    session,
    registry,
    brief_of: (task) => agent_brief(session, registry, prompts, options, task, "reviewer"),
    ...(options.worker_entry === undefined ? {} : { entry: options.worker_entry }),
    ...(options.on_worker_log === undefined ? {} : { on_log: options.on_worker_log }),
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
}

export type Runtime = {
  readonly registry: ToolRegistry;
  /** Runs the Scheduler over the session's pending tasks (after recovery, `air resume`). */
  resume(): Promise<SchedulerRunResult>;
  readonly main_agent: Actor<ReturnType<typeof provide_main_agent>>;
  /**
   * Records the user's message, hands it to the Main Agent and resolves when it is back to idle. One turn at
   * a time: while one runs, another is refused before anything is recorded — except while its plan executes,
   * where the message is the Main Agent's mid-run message (a question answered, a requirement change weighed)
   * and resolves with how that ended, the Scheduler working meanwhile.
   */
  submit(text: string): Promise<RequestOutcome>;
  /** The Main Agent takes a message now: idle, between direct turns, or listening while its plan executes. */
  accepts_message(): boolean;
  /** A turn is running (the Main Agent is neither idle nor waiting for a message in direct mode). */
  busy(): boolean;
  /** `/direct`: the following messages are direct turns (seeds 003 §10.5); refused while a turn runs. */
  enter_direct(): void;
  /** `/done`: collects the direct session's evidence, records its summary, resolves back in idle with it. */
  leave_direct(): Promise<RequestOutcome>;
  /** Direct mode is on (from `enter_direct` until `leave_direct` has begun). */
  in_direct_mode(): boolean;
  /** A plan of more than one task waits for `approve_plan` or `reject_plan` (interactive sessions only). */
  awaiting_plan(): boolean;
  /** Records the waiting plan and runs it; refused when no plan waits. */
  approve_plan(): void;
  /** Drops the waiting plan unrecorded: the turn ends with a `rejected` outcome. Refused when no plan waits. */
  reject_plan(reason: string): void;
  /** Interrupts the running turn (or resumed run): its model call is aborted, its tasks are cancelled; a no-op when idle. */
  cancel(reason: string): void;
  /** Stops the Main Agent and closes the capabilities' tools (their processes end); before the session closes. */
  stop(): Promise<void>;
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

/** `/approve` or `/reject` with no plan waiting for them. */
function no_plan_waiting_failure() {
  return air_failure({
    kind: "user_error",
    message: "no plan is waiting for approval",
    retryability: "not_retryable",
    user_action: "Plans of more than one task wait for /approve or /reject after they are shown; send a request first.",
  });
}

/** A message (or `/direct`, `/done`) while a turn runs: the Main Agent takes one request at a time. */
export function busy_failure() {
  return air_failure({
    kind: "user_error",
    message: "a turn is still running; the message was not sent",
    retryability: "retryable",
    user_action: "Wait for the turn to finish, or press Esc to interrupt it, then send the message again.",
  });
}

type MainAgentLogic = ReturnType<typeof provide_main_agent>;
type MainAgentSnapshot = SnapshotFrom<MainAgentLogic>;

/** Where the Main Agent takes a new message: idle, or between turns in direct mode. */
function takes_messages(snapshot: MainAgentSnapshot): boolean {
  return snapshot.matches("idle") || snapshot.matches({ direct_mode: "awaiting_message" });
}

/** How the request ended, once the Main Agent is back where it takes messages: every way back records it. */
const outcome_of = (snapshot: MainAgentSnapshot): RequestOutcome => held(snapshot.context.outcome, "main-agent", "outcome");

/**
 * One open session's Main Agent and what its turns share: the abort of the turn in flight (an interrupt stops
 * the Main Agent's own model call, which `user.cancel` cannot reach) and a resumed Scheduler run.
 */
class SessionRuntime implements Runtime {
  readonly registry: ToolRegistry;
  readonly main_agent: Actor<MainAgentLogic>;
  readonly #session: Session;
  readonly #run_worker: RunWorkerLogic;
  readonly #scheduler: SchedulerOptions;
  readonly #inspect: Observer<InspectionEvent> | undefined;
  readonly #capabilities: CapabilityRegistry;
  readonly #mcp: McpServers;
  readonly #miner: ExperienceMiner | undefined;
  readonly #debug_records: DebugKnowledgeStore;
  #turn: AbortController | undefined;
  #resumed: Actor<ReturnType<typeof provide_scheduler>> | undefined;

  constructor(session: Session, options: RuntimeOptions, prompts: SessionPrompts, tools: SessionTools) {
    const { registry, capabilities, mcp } = tools;
    this.#session = session;
    this.#capabilities = capabilities;
    this.#mcp = mcp;
    this.registry = registry;
    this.#inspect = options.inspect;
    // The project's one writer of debug-records.db (INV-2), for the whole runtime.
    this.#debug_records = DebugKnowledgeStore.open(session.project.layout.debug_records_db);
    this.#run_worker = run_worker_logic(session, registry, prompts, options, this.#debug_records);
    this.#miner = experience_miner_of(session, registry, prompts, options);
    const miner = this.#miner;
    // One designer for the Scheduler's gate and the Main Agent's design and revision steps.
    const designer =
      options.architecture_designer ??
      make_architecture_designer({ session, registry, mode: options.permissions.mode, context_window: options.provider.capabilities.context_window });
    this.#scheduler = {
      registry,
      debug_records: this.#debug_records,
      max_parallel: options.max_parallel ?? DEFAULT_MAX_PARALLEL,
      ...(options.run_budget === undefined ? {} : { run_budget: options.run_budget }),
      ...(options.lone_task === undefined ? {} : { lone_task: options.lone_task }),
      ...(miner === undefined ? {} : { after_step: () => miner.after_step() }),
      architecture_designer: designer,
      review: { settings: options.review ?? DEFAULT_REVIEW_SETTINGS, run_reviewer: review_runner(session, registry, prompts, options) },
    };
    const machine = provide_main_agent(session, {
      complete: (request) => complete_through_registry(session, registry, request, this.#turn?.signal),
      run_worker: this.#run_worker,
      scheduler: this.#scheduler,
      task_defaults: options.task_defaults,
      prompts,
      architecture_designer: designer,
      direct: {
        registry,
        tools: model_visible(registry),
        complete: (request, signal) => complete_through_registry(session, registry, request, signal),
      },
    });
    this.main_agent = createActor(machine, {
      systemId: "main-agent",
      input: { confirm_plans: confirms_plans(options.interactive ?? false, options.permissions.mode) },
      ...this.#inspection(),
    });
    // An actor error with no observer would crash the process (xstate-inspect.md §6); `submit` reports it.
    this.main_agent.subscribe({ error: () => undefined });
    this.main_agent.start();
  }

  resume(): Promise<SchedulerRunResult> {
    const scheduler = createActor(provide_scheduler(this.#session, this.#run_worker, this.#scheduler), {
      input: { autostart: true, recovering: true },
      ...this.#inspection(),
    });
    this.#resumed = scheduler;
    scheduler.start();
    return toPromise(scheduler).finally(() => {
      if (this.#resumed === scheduler) this.#resumed = undefined;
    });
  }

  async submit(text: string): Promise<RequestOutcome> {
    if (this.main_agent.getSnapshot().matches({ executing: "listening" })) return this.#mid_run(text);
    if (this.busy()) throw busy_failure();
    const message_id = new_id("message");
    return this.#turn_of(async () => {
      this.#record_message(message_id, text);
      this.main_agent.send({ type: "user.message", message_id, text });
      return outcome_of(await this.#settled((snapshot) => takes_messages(snapshot) && snapshot.context.request?.message_id === message_id));
    });
  }

  accepts_message(): boolean {
    const snapshot = this.main_agent.getSnapshot();
    return (this.#turn === undefined && takes_messages(snapshot)) || snapshot.matches({ executing: "listening" });
  }

  /** A message while the plan runs: the turn in flight stays the request's; this one ends with its own outcome. */
  async #mid_run(text: string): Promise<RequestOutcome> {
    const message_id = new_id("message");
    this.#record_message(message_id, text);
    this.main_agent.send({ type: "user.message", message_id, text });
    const snapshot = await this.#settled(
      (candidate) => candidate.context.mid_run?.request.message_id === message_id && candidate.context.mid_run.outcome !== undefined,
    );
    return held(snapshot.context.mid_run?.outcome, "main-agent", "mid-run outcome");
  }

  #record_message(message_id: string, text: string): void {
    this.#session.ingestor.ingest(
      make_event("user.message.created", { message_id, content: text }, { ...this.#session.origin, source: { kind: "user" }, route: ["user"] }),
    );
  }

  busy(): boolean {
    return this.#turn !== undefined || !takes_messages(this.main_agent.getSnapshot());
  }

  enter_direct(): void {
    if (this.busy()) throw busy_failure();
    this.main_agent.send({ type: "direct.enter" });
  }

  async leave_direct(): Promise<RequestOutcome> {
    if (this.busy()) throw busy_failure();
    if (!this.main_agent.getSnapshot().matches("direct_mode")) throw not_in_direct_mode_failure();
    return this.#turn_of(async () => {
      this.main_agent.send({ type: "direct.done" });
      return outcome_of(await this.#settled((snapshot) => snapshot.matches("idle")));
    });
  }

  in_direct_mode(): boolean {
    const snapshot = this.main_agent.getSnapshot();
    return snapshot.matches("direct_mode") && !snapshot.matches({ direct_mode: "direct_summary" });
  }

  awaiting_plan(): boolean {
    return this.main_agent.getSnapshot().matches("confirming");
  }

  approve_plan(): void {
    if (!this.awaiting_plan()) throw no_plan_waiting_failure();
    this.main_agent.send({ type: "plan.approve" });
  }

  reject_plan(reason: string): void {
    if (!this.awaiting_plan()) throw no_plan_waiting_failure();
    this.main_agent.send({ type: "plan.reject", reason });
  }

  cancel(reason: string): void {
    this.#turn?.abort(reason);
    this.#resumed?.send({ type: "scheduler.cancel", reason });
    this.main_agent.send({ type: "user.cancel", reason });
  }

  async stop(): Promise<void> {
    this.main_agent.stop();
    // Session end is a trigger of its own; the miner still needs the tools, so it runs before they close.
    await this.#miner?.session_end();
    await Promise.all([this.#capabilities.close(), this.#mcp.close()]);
    this.#debug_records.close();
  }

  /** Runs one turn with its own abort, so that `busy()` holds and `cancel` reaches its model call until it ends. */
  async #turn_of<T>(run: () => Promise<T>): Promise<T> {
    this.#turn = new AbortController();
    try {
      return await run();
    } finally {
      this.#turn = undefined;
    }
  }

  #settled(predicate: (snapshot: MainAgentSnapshot) => boolean): Promise<MainAgentSnapshot> {
    return waitFor(this.main_agent, predicate, { timeout: Infinity });
  }

  #inspection(): { inspect?: Observer<InspectionEvent> } {
    return this.#inspect === undefined ? {} : { inspect: this.#inspect };
  }
}

type SessionTools = { readonly registry: ToolRegistry; readonly capabilities: CapabilityRegistry; readonly mcp: McpServers };

/**
 * The session's tools: the built-in ones, judged by its permission engine, its model's, those of every enabled
 * capability that applies to the project, and those of its MCP servers (their lifecycles recorded in the session).
 * A server's tools must be listed before they can be offered, so the servers start here, in parallel.
 */
async function session_tools(session: Session, options: RuntimeOptions): Promise<SessionTools> {
  const registry = create_tool_registry({ permissions: options.permissions });
  registry.register(model_complete_tool(options.provider, options.run_budget === undefined ? {} : { run_budget: options.run_budget }));
  registry.register(context_compact_tool(options.provider));
  registry.register(plan_write_tool);
  const capabilities = new CapabilityRegistry({
    project_root: session.project.layout.root,
    air_home: air_home(),
  });
  const mcp = new McpServers(session, { ...options.mcp, air_home: air_home() });
  try {
    capabilities.activate(session, registry);
    await mcp.activate(registry, options.permissions);
  } catch (error) {
    // A runtime that does not start must not leave a capability's or a server's processes behind.
    await Promise.allSettled([capabilities.close(), mcp.close()]);
    throw error;
  }
  return { registry, capabilities, mcp };
}

/** The session's ExperienceMiner, when its settings switch it on. */
function experience_miner_of(session: Session, registry: ToolRegistry, prompts: SessionPrompts, options: RuntimeOptions): ExperienceMiner | undefined {
  const settings = options.experience_miner;
  if (settings === undefined || !settings.enabled) return undefined;
  return new ExperienceMiner({
    session,
    registry,
    prompts,
    model_id: options.provider.model_id,
    settings,
    ...(options.worker_entry === undefined ? {} : { entry: options.worker_entry }),
    ...(options.on_worker_log === undefined ? {} : { on_log: options.on_worker_log }),
  });
}

/** The runtime of one open session: tool registry, permission engine, Main Agent with its Scheduler. */
export async function start_runtime(session: Session, options: RuntimeOptions): Promise<Runtime> {
  const prompts = new SessionPrompts({ session, mode: options.permissions.mode, context_window: options.provider.capabilities.context_window });
  return new SessionRuntime(session, options, prompts, await session_tools(session, options));
}

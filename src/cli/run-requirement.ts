import { start_runtime, type Runtime } from "../actors/runtime/runtime.js";
import { summary_of } from "../actors/runtime/main-agent-actors.js";
import type { TaskDefaults } from "../orchestration/plan/task-spec.js";
import type { RequestOutcome } from "../machines/main-agent.js";
import type { InspectionEvent, Observer } from "xstate";
import { project_layout } from "../project/layout.js";
import { init_project, locate_project_root, read_project, type Project } from "../project/project-store.js";
import { open_session, type Session } from "../project/session-manager.js";
import { session_title } from "../project/session-title.js";
import type { ProviderDescription, ProviderManager } from "../providers/manager.js";
import type { SessionId } from "../contracts/ids.js";
import type { WorkerEntry } from "../actors/worker-bridge/index.js";
import type { Io } from "./output.js";
import { follow, type OutputFormat } from "./progress.js";
import { follow_plan, type PlanView } from "./plan-view.js";
import { follow_replies } from "./replies.js";
import { task_results, type RunResultJson } from "./run-result.js";
import type { PermissionEngine } from "../permissions/engine.js";
import { permissions_for_project, prompts_of } from "../permissions/session-permissions.js";
import { prompt_answerer, type PermissionOptions } from "./permission-options.js";
import { note_project_opened } from "./note-project.js";
import type { RunBudget } from "../contracts/budget.js";
import { air_home } from "../project/layout.js";
import { sweep_project_workspaces } from "../workspaces/sweep.js";
import { read_air_config, type AirConfigFile } from "./wizard/air-config.js";
import type { ReviewSettings } from "../orchestration/review/settings.js";
import { DEFAULT_MINER_SETTINGS, type MinerSettings } from "../memory/experience-miner.js";
import { AIR_VERSION } from "../version.js";
import type { InitFacts } from "./stream-json-messages.js";
import { follow_stream_json, type RunEnd, type StreamJson } from "./stream-json.js";

export { note_project_opened };

export const DEFAULT_TASK_DEFAULTS: TaskDefaults = {
  max_turns: 30,
  soft_timeout_ms: 10 * 60_000,
  hard_timeout_ms: 30 * 60_000,
  // A failure's path through the RetryPlanner: a retry with the failure in context, then the Debugger's attempt.
  retry_budget: 2,
};

export type RunRequest = {
  readonly requirement: string;
  readonly format: OutputFormat;
  readonly max_turns?: number;
  /** How many agents run at once (`--max-parallel`, over `max_parallel` in ~/.air/config.yaml). */
  readonly max_parallel?: number;
  /** The run's limits from `--max-budget-usd` / `--max-tokens`; over the configured ones. */
  readonly run_budget?: RunBudget;
  readonly worker_entry?: WorkerEntry;
  readonly permissions?: PermissionOptions;
  /** Live statecharts: the root actors report to it (`--inspect`, `--inspect-file`). */
  readonly inspect?: Observer<InspectionEvent>;
  /** The review gate's settings, over `review` in ~/.air/config.yaml (an e2e fixture's own policy). */
  readonly review?: ReviewSettings;
  /** Continue this session (`-c`, `-r ID`): the requirement joins its conversation. */
  readonly session_id?: SessionId;
};

export type RunReport = { readonly code: number; readonly session_id: string; readonly outcome: RequestOutcome };

/** A request succeeded when it was answered, or when its task graph completed. */
function exit_code_of(outcome: RequestOutcome): number {
  if (outcome.kind === "answered") return 0;
  return outcome.kind === "executed" && outcome.run.status === "completed" ? 0 : 1;
}

/** The config's `experience_miner` over the defaults (off; every 10 tool calls). */
function miner_settings(config: AirConfigFile["experience_miner"]): MinerSettings {
  return {
    enabled: config?.enabled ?? DEFAULT_MINER_SETTINGS.enabled,
    every_n_tool_calls: config?.every_n_tool_calls ?? DEFAULT_MINER_SETTINGS.every_n_tool_calls,
  };
}

/** What a runtime needs beyond the session: the session's model and headless prompt answers. */
export function runtime_for(
  session: Session,
  providers: ProviderManager,
  request: Pick<RunRequest, "max_turns" | "max_parallel" | "run_budget" | "worker_entry" | "inspect" | "review"> & { readonly interactive?: boolean },
  permissions: PermissionEngine,
): Promise<Runtime> {
  const config = read_air_config(air_home());
  const budget = config?.budget ?? {};
  const max_parallel = request.max_parallel ?? config?.max_parallel;
  // The model is fixed for a session (DESIGN §7): a resumed session keeps the provider and model it began with.
  return start_runtime(session, {
    provider: providers.for_session(session.model_id, session.model_provider_id),
    permissions,
    task_defaults: {
      ...DEFAULT_TASK_DEFAULTS,
      ...(budget.task === undefined ? {} : { budget: budget.task }),
      ...(request.max_turns === undefined ? {} : { max_turns: request.max_turns }),
    },
    run_budget: { ...budget.run, ...request.run_budget },
    ...(max_parallel === undefined ? {} : { max_parallel }),
    ...(config?.lone_task === undefined ? {} : { lone_task: config.lone_task }),
    experience_miner: miner_settings(config?.experience_miner),
    ...((request.review ?? config?.review) === undefined ? {} : { review: request.review ?? config?.review }),
    ...(request.worker_entry === undefined ? {} : { worker_entry: request.worker_entry }),
    ...(request.inspect === undefined ? {} : { inspect: request.inspect }),
    ...(request.interactive === undefined ? {} : { interactive: request.interactive }),
  });
}

/** The init line's facts: the session, where it runs, its model, the tools offered, the mode, the key's origin. */
function init_facts(io: Io, session: Session, runtime: Runtime, permissions: PermissionEngine, provider: ProviderDescription): InitFacts {
  const source = provider.sources.api_key;
  return {
    session_id: session.id,
    cwd: io.cwd,
    model: session.model_id ?? provider.model_id,
    tools: runtime.registry
      .list()
      .filter((tool) => tool.category !== "internal")
      .map((tool) => tool.name),
    permission_mode: permissions.mode,
    api_key_source: source === "unset" ? "none" : source.replace(/^env:/, ""),
    air_version: AIR_VERSION,
  };
}

/** A new session titled by the requirement, or the session `-c`/`-r` named, with its "allow for this session" answers. */
function session_for(project: Project, request: RunRequest, provider: ProviderDescription, permissions: PermissionEngine): Session {
  if (request.session_id === undefined) {
    return open_session(project, { title: session_title(request.requirement), model_provider_id: provider.provider_id, model_id: provider.model_id });
  }
  const session = open_session(project, { session_id: request.session_id });
  permissions.restore_session_grants(prompts_of(session).answered);
  return session;
}

/** The end of a run on stdout: the summary (text), the result document (json, events) or the result line (stream-json). */
function print_end(io: Io, request: RunRequest, end: RunEnd & { session: Session; plan: PlanView | null; stream: StreamJson | undefined }): void {
  if (request.format === "text") return io.out(`\n${end.summary}\n`);
  if (end.stream !== undefined) return end.stream.finish(end);
  const result: RunResultJson = {
    type: "result",
    session_id: end.session.id,
    code: end.code,
    outcome: end.outcome,
    summary: end.summary,
    plan: end.plan,
    ...task_results(end.session.connection),
  };
  io.out(`${request.format === "json" ? JSON.stringify(result, null, 2) : JSON.stringify(result)}\n`);
}

/**
 * `air run -p`: one requirement, headless, in the project at (or above) `io.cwd` — initialised when there
 * is none — in a new session, or in the one `-c`/`-r` named, whose conversation it continues. The provider
 * and the permissions files are checked before anything is written, so a missing key or a broken rule costs
 * nothing.
 */
export async function run_requirement(io: Io, request: RunRequest, providers: ProviderManager): Promise<RunReport> {
  const started_at = performance.now();
  const provider = providers.require_configured();
  const existing_root = locate_project_root(io.cwd);
  const mode = request.permissions?.mode;
  const prompts = prompt_answerer(request.permissions?.prompts ?? "auto");
  let permissions: PermissionEngine;
  try {
    permissions = permissions_for_project(project_layout(existing_root ?? io.cwd), { answerer: prompts.answerer, ...(mode === undefined ? {} : { mode }) });
  } catch (error) {
    prompts.close();
    throw error;
  }
  const project = existing_root === undefined ? init_project(io.cwd).project : read_project(existing_root);
  await note_project_opened(io, project);
  const session = session_for(project, request, provider, permissions);
  const unfollow = follow(session.bus, request.format, io.out);
  const replies = follow_replies(session.bus);
  const plan = follow_plan(session.bus);
  const runtime = await runtime_for(session, providers, request, permissions);
  const stream =
    request.format === "stream-json" ? follow_stream_json(session.bus, init_facts(io, session, runtime, permissions, provider), started_at, io.out) : undefined;
  try {
    await sweep_project_workspaces(session);
    const outcome = await runtime.submit(request.requirement);
    // What the Main Agent last said is the request's summary; a request that failed before it spoke has its error.
    const summary = replies.last() ?? summary_of(session, outcome);
    const code = exit_code_of(outcome);
    print_end(io, request, { code, outcome, summary, session, plan: plan.last() ?? null, stream });
    return { code, session_id: session.id, outcome };
  } finally {
    stream?.stop();
    replies.stop();
    plan.stop();
    unfollow();
    prompts.close();
    await runtime.stop();
    session.close();
  }
}

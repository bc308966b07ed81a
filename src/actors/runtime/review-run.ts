import { createActor, toPromise, type InspectionEvent, type Observer } from "xstate";
import { make_air_error } from "../../contracts/errors.js";
import type { AgentId } from "../../contracts/ids.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { TaskSpec } from "../../contracts/task.js";
import { MODEL_COMPLETE_TOOL, type ToolOutcome } from "../../contracts/tool.js";
import type { WorkerRunOutcome } from "../../machines/worker-run-settlement.js";
import type { WorkspaceConfinement } from "../../permissions/confinement.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { WorkerEntry, WorkerLogEntry } from "../worker-bridge/index.js";
import { worker_run_logic } from "../worker-run.js";

/** The tools a reviewer is offered: reading files and git, never writing, running or committing. */
export const REVIEW_TOOLS: readonly string[] = ["fs.read", "fs.list", "fs.glob", "fs.grep", "git.status", "git.diff", "git.log", "git.show", "artifact.read"];

/** One review: of which task, by which agent, where its work is, and what the reviewer is told besides its layers. */
type ReviewRun = {
  readonly task: TaskSpec;
  readonly agent_id: AgentId;
  readonly instructions: string;
  /** The task's worktree, when its work waits there; the main checkout otherwise. */
  readonly workspace?: WorkspaceConfinement;
};

export type RunReviewer = (run: ReviewRun, signal: AbortSignal) => Promise<WorkerRunOutcome>;

export type ReviewerRunnerOptions = {
  readonly session: Session;
  readonly registry: ToolRegistry;
  /** The brief of a worker of `task` in the `reviewer` role, as the runtime builds every brief. */
  readonly brief_of: (task: TaskSpec) => AgentBrief;
  readonly entry?: WorkerEntry;
  readonly on_log?: (entry: WorkerLogEntry) => void;
  readonly inspect?: Observer<InspectionEvent>;
};

function not_offered(tool_name: string): ToolOutcome {
  return {
    ok: false,
    error: make_air_error({
      kind: "permission_error",
      message: `${tool_name} is not one of the reviewer's tools: a reviewer reads and never writes`,
      retryability: "not_retryable",
      user_action: `Use one of: ${REVIEW_TOOLS.join(", ")}.`,
      metadata: { tool_name },
    }),
  };
}

/**
 * Runs reviewer workers. The parent decides what a reviewer may do, from its role alone: every call is served
 * only when it names a tool of its brief (or the internal model call and compaction), and always with the
 * `read_only` access the PermissionEngine judges — so whatever the worker asks, nothing is written.
 */
export function reviewer_runner(options: ReviewerRunnerOptions): RunReviewer {
  const { session, registry } = options;
  const served = new Map<string, { tools: ReadonlySet<string>; workspace: WorkspaceConfinement | undefined }>();
  const worker_run = worker_run_logic({
    session,
    call_tool: (call, caller, on_stream) => {
      const serving = served.get(caller.agent_id);
      if (serving === undefined || !serving.tools.has(call.tool_name)) return Promise.resolve(not_offered(call.tool_name));
      const { workspace } = serving;
      return registry.call(
        call,
        {
          session,
          task_id: caller.task_id,
          agent_id: caller.agent_id,
          scope: caller.scope,
          signal: caller.signal,
          access: "read_only",
          ...(workspace === undefined ? {} : { workspace }),
        },
        on_stream,
      );
    },
    ...(options.entry === undefined ? {} : { entry: options.entry }),
    ...(options.on_log === undefined ? {} : { on_log: options.on_log }),
  });
  return async (run, signal) => {
    const full = options.brief_of(run.task);
    const tools = full.tools.filter((tool) => REVIEW_TOOLS.includes(tool.name));
    const brief: AgentBrief = {
      ...full,
      tools,
      instructions: run.instructions,
      ...(run.workspace === undefined ? {} : { project_root: run.workspace.root }),
    };
    const names = new Set([...tools.map((tool) => tool.name), MODEL_COMPLETE_TOOL, ...(full.internal_tools ?? [])]);
    served.set(run.agent_id, { tools: names, workspace: run.workspace });
    const actor = createActor(worker_run, {
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
      input: { agent_id: run.agent_id, task: run.task, brief, agent_type: "reviewer" },
    });
    signal.addEventListener("abort", () => actor.send({ type: "run.cancel", reason: "the scheduler stopped the review" }));
    actor.start();
    return toPromise(actor).finally(() => served.delete(run.agent_id));
  };
}

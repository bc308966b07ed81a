/**
 * Folding of the work events: tasks, agents, tool runs and command runs. Each mirrors the domain
 * projection of `src/event-store/projectors/` (a field the projector leaves alone when the event
 * lacks it is left alone here too), so a folded state equals one hydrated from the rows.
 */
import type { RuntimeEvent } from "../contracts/events/registry.js";
import type { TaskStatus } from "../contracts/status.js";
import type { AgentView, CommandRunView, ErrorView, ProjectionState, TaskView, ToolRunView } from "./types.js";
import { append_tail, derive_command_status, error_view, input_summary } from "./views.js";

export type FoldContext = { readonly tail_chars: number };

type Identified = { readonly id: string };

/** The list with the item of this id replaced by `change(item)`; the same list when there is none. */
function update_by_id<T extends Identified>(list: readonly T[], id: string, change: (item: T) => T): readonly T[] {
  const index = list.findLastIndex((item) => item.id === id);
  const item = index < 0 ? undefined : list[index];
  if (item === undefined) return list;
  const copy = list.slice();
  copy[index] = change(item);
  return copy;
}

function upsert_by_id<T extends Identified>(list: readonly T[], item: T, change: (existing: T) => T): readonly T[] {
  const updated = update_by_id(list, item.id, change);
  return updated === list ? [...list, item] : updated;
}

const ENDS: readonly TaskStatus[] = ["completed", "cancelled", "failed", "blocked"];

type Settle = { status: TaskStatus; reason?: string; error?: ErrorView | null; summary?: string };

function settle(state: ProjectionState, task_id: string, at: string, outcome: Settle): ProjectionState {
  const tasks = update_by_id(state.tasks, task_id, (task) => ({
    ...task,
    status: outcome.status,
    status_reason: outcome.reason ?? null,
    error: outcome.error === undefined ? task.error : outcome.error,
    summary: outcome.summary ?? task.summary,
    completed_at: ENDS.includes(outcome.status) ? at : null,
    progress: null,
  }));
  return { ...state, tasks };
}

function new_task(event: RuntimeEvent<"task.created" | "context.compaction.requested">): TaskView | undefined {
  const base = {
    status: "pending" as const,
    attempt: 0,
    agent_id: null,
    error: null,
    summary: null,
    progress: null,
    started_at: null,
    completed_at: null,
    created_at: event.timestamp,
  };
  if (event.type === "task.created") {
    const { task, priority } = event.payload;
    return { ...base, id: task.id, type: task.type, title: task.title, priority, status_reason: null };
  }
  const payload = event.payload;
  if (!payload.accepted) return undefined;
  return { ...base, id: payload.task_id, type: "compact", title: "Compact the conversation", priority: 0, status_reason: payload.reason };
}

const summary_of = (result: { summary: string } | undefined) => result?.summary;

export function fold_task(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  const at = event.timestamp;
  switch (event.type) {
    case "task.created":
    case "context.compaction.requested": {
      const task = new_task(event);
      return task === undefined ? state : { ...state, tasks: [...state.tasks, task] };
    }
    case "task.started":
    case "context.compaction.started": {
      const { task_id, agent_id } = event.payload;
      const tasks = update_by_id(state.tasks, task_id, (task) => ({
        ...task,
        status: "running" as const,
        attempt: task.attempt + 1,
        agent_id: agent_id ?? null,
        started_at: at,
        completed_at: null,
        status_reason: null,
      }));
      return { ...state, tasks };
    }
    case "task.completed":
      return settle(state, event.payload.task_id, at, { status: "completed", summary: event.payload.worker_result.summary });
    case "task.failed": {
      const { task_id, error, worker_result } = event.payload;
      return settle(state, task_id, at, { status: "failed", reason: error.message, error: error_view(error), summary: summary_of(worker_result) });
    }
    case "task.blocked": {
      const { task_id, reason, error, worker_result } = event.payload;
      return settle(state, task_id, at, {
        status: "blocked",
        reason,
        error: error === undefined ? undefined : error_view(error),
        summary: summary_of(worker_result),
      });
    }
    case "task.cancelled":
      return settle(state, event.payload.task_id, at, { status: "cancelled", reason: event.payload.reason });
    case "task.interrupted":
      return settle(state, event.payload.task_id, at, { status: "interrupted", reason: event.payload.reason });
    case "task.retried":
    case "task.resumed":
      return settle(state, event.payload.task_id, at, { status: "pending", ...(event.payload.reason === undefined ? {} : { reason: event.payload.reason }) });
    case "task.unblocked":
      return settle(state, event.payload.task_id, at, { status: "pending", reason: event.payload.decision });
    case "context.compaction.completed":
      return settle(state, event.payload.task_id, at, { status: "completed" });
    case "context.compaction.failed":
      return settle(state, event.payload.task_id, at, { status: "failed", reason: event.payload.error.message, error: error_view(event.payload.error) });
    case "task.progress": {
      const { task_id, message, percent } = event.payload;
      return { ...state, tasks: update_by_id(state.tasks, task_id, (task) => ({ ...task, progress: { message, percent: percent ?? null } })) };
    }
    default:
      return state;
  }
}

function end_agent(state: ProjectionState, agent_id: string, at: string, change: Partial<AgentView>): ProjectionState {
  return { ...state, agents: update_by_id(state.agents, agent_id, (agent) => ({ ...agent, ...change, ended_at: at })) };
}

export function fold_agent(state: ProjectionState, event: RuntimeEvent, context: FoldContext): ProjectionState {
  switch (event.type) {
    case "agent.started": {
      const { agent_id, agent_type, status, task_id, pid, model_id } = event.payload;
      const fresh: AgentView = {
        id: agent_id,
        agent_type,
        status,
        task_id: task_id ?? null,
        model_id: model_id ?? null,
        pid: pid ?? null,
        exit_code: null,
        status_reason: null,
        started_at: event.timestamp,
        ended_at: null,
        last_heartbeat_at: null,
        stream_tail: "",
      };
      return { ...state, agents: upsert_by_id(state.agents, fresh, (agent) => ({ ...agent, status, pid: pid ?? agent.pid })) };
    }
    case "agent.completed":
      return end_agent(state, event.payload.agent_id, event.timestamp, { status: "completed", ...exit_of(event.payload.exit_code) });
    case "agent.failed": {
      const { agent_id, error, exit_code } = event.payload;
      return end_agent(state, agent_id, event.timestamp, { status: "failed", status_reason: error.message, ...exit_of(exit_code) });
    }
    case "agent.lost":
      return end_agent(state, event.payload.agent_id, event.timestamp, { status: "lost", status_reason: event.payload.reason });
    case "agent.cancelled":
      return end_agent(state, event.payload.agent_id, event.timestamp, { status: "cancelled", status_reason: event.payload.reason });
    case "agent.heartbeat":
      return { ...state, agents: update_by_id(state.agents, event.payload.agent_id, (agent) => ({ ...agent, last_heartbeat_at: event.timestamp })) };
    case "token.delta": {
      const { agent_id, text } = event.payload;
      if (agent_id === undefined) return state;
      const agents = update_by_id(state.agents, agent_id, (agent) => ({ ...agent, stream_tail: append_tail(agent.stream_tail, text, context.tail_chars) }));
      return { ...state, agents };
    }
    default:
      return state;
  }
}

const exit_of = (exit_code: number | undefined) => (exit_code === undefined ? {} : { exit_code });

function end_tool_run(state: ProjectionState, id: string, at: string, change: Partial<ToolRunView>): ProjectionState {
  return { ...state, tool_runs: update_by_id(state.tool_runs, id, (run) => ({ ...run, ...change, completed_at: at, progress: null })) };
}

export function fold_tool(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  switch (event.type) {
    case "tool.started": {
      const { tool_run_id, tool_name, input, task_id, agent_id } = event.payload;
      const run: ToolRunView = {
        id: tool_run_id,
        tool_name,
        status: "running",
        task_id: task_id ?? null,
        agent_id: agent_id ?? null,
        input_summary: input_summary(input),
        progress: null,
        error: null,
        cancel_reason: null,
        artifact_ids: [],
        evidence_ids: [],
        started_at: event.timestamp,
        completed_at: null,
        duration_ms: null,
      };
      return { ...state, tool_runs: [...state.tool_runs, run] };
    }
    case "tool.completed": {
      const { tool_run_id, artifact_ids, evidence_ids, duration_ms } = event.payload;
      return end_tool_run(state, tool_run_id, event.timestamp, { status: "ok", artifact_ids, evidence_ids, duration_ms: Math.round(duration_ms) });
    }
    case "tool.failed": {
      const { tool_run_id, error, duration_ms } = event.payload;
      return end_tool_run(state, tool_run_id, event.timestamp, {
        status: "error",
        error: error_view(error),
        ...(duration_ms === undefined ? {} : { duration_ms: Math.round(duration_ms) }),
      });
    }
    case "tool.cancelled":
      return end_tool_run(state, event.payload.tool_run_id, event.timestamp, { status: "cancelled", cancel_reason: event.payload.reason });
    case "tool.progress": {
      const { tool_run_id, message } = event.payload;
      return { ...state, tool_runs: update_by_id(state.tool_runs, tool_run_id, (run) => ({ ...run, progress: message })) };
    }
    default:
      return state;
  }
}

function end_command(state: ProjectionState, id: string, at: string, change: Partial<CommandRunView>): ProjectionState {
  const command_runs = update_by_id(state.command_runs, id, (run) => {
    const ended = { ...run, ...change, completed_at: at };
    return { ...ended, status: derive_command_status(ended) };
  });
  return { ...state, command_runs };
}

function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export function fold_command(state: ProjectionState, event: RuntimeEvent, context: FoldContext): ProjectionState {
  switch (event.type) {
    case "command.started": {
      const { command_run_id, command, cwd, tool_run_id, task_id, agent_id } = event.payload;
      const run: CommandRunView = {
        id: command_run_id,
        command,
        cwd,
        tool_run_id: tool_run_id ?? null,
        task_id: task_id ?? null,
        agent_id: agent_id ?? null,
        status: "running",
        exit_code: null,
        signal: null,
        cancelled: false,
        error: null,
        stdout_tail: "",
        stderr_tail: "",
        stdout_artifact_id: null,
        stderr_artifact_id: null,
        diagnostic_ids: [],
        started_at: event.timestamp,
        completed_at: null,
        duration_ms: null,
      };
      return { ...state, command_runs: [...state.command_runs, run] };
    }
    case "command.completed": {
      const { command_run_id, exit_code, duration_ms, stdout_artifact_id, stderr_artifact_id, diagnostic_ids } = event.payload;
      return end_command(state, command_run_id, event.timestamp, {
        exit_code,
        duration_ms: Math.round(duration_ms),
        diagnostic_ids,
        ...defined({ stdout_artifact_id, stderr_artifact_id }),
      });
    }
    case "command.failed": {
      const { command_run_id, error, exit_code, signal, duration_ms, cancelled, stdout_artifact_id, stderr_artifact_id } = event.payload;
      return end_command(state, command_run_id, event.timestamp, {
        error: error_view(error),
        ...defined({ exit_code, signal, stdout_artifact_id, stderr_artifact_id, duration_ms: duration_ms === undefined ? undefined : Math.round(duration_ms) }),
        ...(cancelled ? { cancelled: true } : {}),
      });
    }
    case "command.stdout.delta":
    case "stdout.delta":
      return append_output(state, event.payload.command_run_id, "stdout_tail", event.payload.chunk, context);
    case "command.stderr.delta":
    case "stderr.delta":
      return append_output(state, event.payload.command_run_id, "stderr_tail", event.payload.chunk, context);
    default:
      return state;
  }
}

function append_output(state: ProjectionState, id: string, stream: "stdout_tail" | "stderr_tail", chunk: string, context: FoldContext): ProjectionState {
  const command_runs = update_by_id(state.command_runs, id, (run) => ({ ...run, [stream]: append_tail(run[stream], chunk, context.tail_chars) }));
  return { ...state, command_runs };
}

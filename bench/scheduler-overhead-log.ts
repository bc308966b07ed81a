import { VerificationError } from "./verify.js";

/**
 * Where each task's scheduler overhead went, read from a session's event log alone: every span between two
 * recorded moments of the task's life, minus the model calls (`model.complete` tool runs) and commands
 * (`command_runs`) that fall inside it, whose durations the log carries.
 */
export type LoggedEvent = {
  readonly type: string;
  /** Milliseconds since the epoch (the envelope's `timestamp`). */
  readonly at: number;
  readonly task_id: string | null;
  readonly agent_id: string | null;
  readonly payload: Readonly<Record<string, unknown>>;
};

/** One task's overhead, in ms, by the step it went to; `total_ms` is their sum. */
export type TaskOverhead = {
  readonly task_id: string;
  /** Its worktree (the wave's snapshot and the Scheduler's planning land on the first task of the wave). */
  readonly create_ms: number;
  /** `task.started` → the worker process is spawned (`agent.started` starting). */
  readonly dispatch_ms: number;
  /** Spawned → `worker.ready` (`agent.started` running). */
  readonly spawn_ms: number;
  /** Ready → the worker's result (`agent.completed`), less its model calls and commands: the agent loop. */
  readonly worker_ms: number;
  /** The result → `workspace.merge.started` (the task's commit), less the wait for earlier merges. */
  readonly to_merge_ms: number;
  /** `workspace.merge.started` → `workspace.cleaned`, less the re-run verification: git work and the journal. */
  readonly merge_ms: number;
  readonly total_ms: number;
  /** Not counted: waiting behind other tasks' merges in the queue (their own overhead counts them). */
  readonly queue_wait_ms: number;
  readonly model_ms: number;
  readonly commands_ms: number;
};

/** Clock readings are whole milliseconds: a span may come out this much below zero. */
const ROUNDING_MS = 2;

function text(payload: Readonly<Record<string, unknown>>, key: string): string {
  const value = payload[key];
  if (typeof value !== "string") throw new VerificationError(`an event's payload has no ${key}: ${JSON.stringify(payload).slice(0, 200)}`);
  return value;
}

function duration(payload: Readonly<Record<string, unknown>>): number {
  const value = payload.duration_ms;
  return typeof value === "number" ? value : 0;
}

function one<T>(map: ReadonlyMap<string, T>, key: string, what: string): T {
  const value = map.get(key);
  if (value === undefined) throw new VerificationError(`the event log has no ${what} for ${key}`);
  return value;
}

type Index = {
  readonly created: Map<string, { at: number; workspace_id: string; previous_at: number }>;
  readonly started: Map<string, { at: number; agent_id: string }>;
  readonly agent: Map<string, { starting?: number; running?: number; completed?: number }>;
  readonly merge_started: Map<string, number>;
  readonly cleaned: Map<string, number>;
  /** Per task: model time, and command runs with when they started. */
  readonly model_ms: Map<string, number>;
  readonly commands: Map<string, { at: number; ms: number }[]>;
};

function agent_of(index: Index, agent_id: string) {
  const known = index.agent.get(agent_id) ?? {};
  index.agent.set(agent_id, known);
  return known;
}

function index_events(events: readonly LoggedEvent[]): Index {
  const index: Index = {
    created: new Map(),
    started: new Map(),
    agent: new Map(),
    merge_started: new Map(),
    cleaned: new Map(),
    model_ms: new Map(),
    commands: new Map(),
  };
  const tool_task = new Map<string, string>();
  const command_start = new Map<string, { task_id: string; at: number }>();
  events.forEach((event, position) => {
    const { payload } = event;
    if (event.type === "workspace.created") {
      const previous_at = events[position - 1]?.at ?? event.at;
      index.created.set(text(payload, "task_id"), { at: event.at, workspace_id: text(payload, "workspace_id"), previous_at });
    } else if (event.type === "task.started") index.started.set(text(payload, "task_id"), { at: event.at, agent_id: text(payload, "agent_id") });
    else if (event.type === "agent.started") agent_of(index, text(payload, "agent_id"))[payload.status === "running" ? "running" : "starting"] = event.at;
    else if (event.type === "agent.completed") agent_of(index, text(payload, "agent_id")).completed = event.at;
    else if (event.type === "workspace.merge.started") index.merge_started.set(text(payload, "workspace_id"), event.at);
    else if (event.type === "workspace.cleaned") index.cleaned.set(text(payload, "workspace_id"), event.at);
    else if (event.type === "tool.started" && payload.tool_name === "model.complete" && event.task_id !== null)
      tool_task.set(text(payload, "tool_run_id"), event.task_id);
    else if (event.type === "tool.completed" || event.type === "tool.failed") {
      const task_id = tool_task.get(text(payload, "tool_run_id"));
      if (task_id !== undefined) index.model_ms.set(task_id, (index.model_ms.get(task_id) ?? 0) + duration(payload));
    } else if (event.type === "command.started" && event.task_id !== null)
      command_start.set(text(payload, "command_run_id"), { task_id: event.task_id, at: event.at });
    else if (event.type === "command.completed" || event.type === "command.failed") {
      const start = command_start.get(text(payload, "command_run_id"));
      if (start !== undefined) index.commands.set(start.task_id, [...(index.commands.get(start.task_id) ?? []), { at: start.at, ms: duration(payload) }]);
    }
  });
  return index;
}

function checked(task_id: string, spans: Record<string, number>): void {
  for (const [name, value] of Object.entries(spans)) {
    if (value < -ROUNDING_MS) throw new VerificationError(`task ${task_id}: its ${name} span is ${value.toFixed(1)} ms, below zero`);
  }
}

/**
 * Every task that went through a worktree to a merge, in the order its merge started. The spans follow each
 * other without gaps from the worktree's creation to its removal, except the merge-queue wait and the time a
 * created worktree waits for its wave's other worktrees before `task.started` (counted on those).
 */
export function task_overheads(events: readonly LoggedEvent[]): TaskOverhead[] {
  const index = index_events(events);
  const merged = [...index.created].filter(([, created]) => index.cleaned.has(created.workspace_id) && index.merge_started.has(created.workspace_id));
  merged.sort(([, a], [, b]) => one(index.merge_started, a.workspace_id, "merge") - one(index.merge_started, b.workspace_id, "merge"));
  let previous_merge_end = Number.NEGATIVE_INFINITY;
  return merged.map(([task_id, created]) => {
    const started = one(index.started, task_id, "task.started");
    const { starting, running, completed } = one(index.agent, started.agent_id, "agent.started");
    if (starting === undefined || running === undefined || completed === undefined) {
      throw new VerificationError(`task ${task_id}: its agent ${started.agent_id} lacks a starting, running or completed event`);
    }
    const merge_started = one(index.merge_started, created.workspace_id, "workspace.merge.started");
    const cleaned = one(index.cleaned, created.workspace_id, "workspace.cleaned");
    const commands = index.commands.get(task_id) ?? [];
    const sum = (runs: readonly { ms: number }[]) => runs.reduce((total, run) => total + run.ms, 0);
    const worker_commands = sum(commands.filter((run) => run.at < completed));
    const verify_commands = sum(commands.filter((run) => run.at >= merge_started));
    const model_ms = index.model_ms.get(task_id) ?? 0;
    const ready_for_merge = Math.max(completed, previous_merge_end);
    previous_merge_end = cleaned;
    const spans = {
      create_ms: created.at - created.previous_at,
      dispatch_ms: starting - started.at,
      spawn_ms: running - starting,
      worker_ms: completed - running - model_ms - worker_commands,
      to_merge_ms: merge_started - ready_for_merge,
      merge_ms: cleaned - merge_started - verify_commands,
    };
    checked(task_id, spans);
    const total_ms = Object.values(spans).reduce((total, value) => total + value, 0);
    return { task_id, ...spans, total_ms, queue_wait_ms: ready_for_merge - completed, model_ms, commands_ms: worker_commands + verify_commands };
  });
}

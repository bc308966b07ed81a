import type { HistoryEntry } from "../../project/session-catalog.js";

/** A task of the plan as the event log tells it: its hard dependencies, when its workers ran, where. */
type TaskRun = {
  readonly id: string;
  readonly title: string;
  readonly hard: readonly string[];
  /** seq of its first worker's start (agent.started running), of its last worker's end. */
  start?: number;
  end?: number;
  completed: boolean;
  readonly worktrees: string[];
  /** seq of the completed merge of its workspace, if it had one. */
  merged?: number;
};

function task_runs(events: readonly HistoryEntry[]): Map<string, TaskRun> {
  const runs = new Map<string, TaskRun>();
  const task_of_agent = new Map<string, string>();
  const task_of_workspace = new Map<string, string>();
  for (const event of events) {
    if (event.type === "task.created") {
      const { task } = event.payload;
      runs.set(task.id, { id: task.id, title: task.title, hard: task.dependencies.hard, completed: false, worktrees: [] });
    } else if (event.type === "agent.started" && event.payload.status === "running" && event.payload.task_id !== undefined) {
      const run = runs.get(event.payload.task_id);
      task_of_agent.set(event.payload.agent_id, event.payload.task_id);
      if (run !== undefined) run.start ??= event.seq;
    } else if (event.type === "agent.completed" || event.type === "agent.failed") {
      const run = runs.get(task_of_agent.get(event.payload.agent_id) ?? "");
      if (run !== undefined) run.end = event.seq;
    } else if (event.type === "task.completed") {
      const run = runs.get(event.payload.task_id);
      if (run !== undefined) run.completed = true;
    } else if (event.type === "workspace.created" && event.payload.task_id !== undefined) {
      task_of_workspace.set(event.payload.workspace_id, event.payload.task_id);
      if (event.payload.strategy === "worktree") runs.get(event.payload.task_id)?.worktrees.push(event.payload.path);
    } else if (event.type === "workspace.merge.completed") {
      const run = runs.get(task_of_workspace.get(event.payload.workspace_id) ?? "");
      if (run !== undefined) run.merged = event.seq;
    }
  }
  return runs;
}

/** Merges run one at a time: a merge never starts while another is open. */
function interleaved_merges(events: readonly HistoryEntry[]): string[] {
  let open: string | undefined;
  const problems: string[] = [];
  for (const event of events) {
    if (event.type === "workspace.merge.started") {
      if (open !== undefined) problems.push(`the merge of ${event.payload.workspace_id} started (seq ${event.seq}) while the merge of ${open} was open`);
      open = event.payload.workspace_id;
    } else if ((event.type === "workspace.merge.completed" || event.type === "workspace.merge.conflicted") && event.payload.workspace_id === open) {
      open = undefined;
    }
  }
  return problems;
}

/** The independent tasks' workers all ran at once, each in a worktree of its own. */
function wave_problems(roots: readonly TaskRun[]): string[] {
  if (roots.length < 2) return [];
  const problems: string[] = [];
  const starts = roots.map((run) => run.start ?? Number.POSITIVE_INFINITY);
  const ends = roots.map((run) => run.end ?? Number.NEGATIVE_INFINITY);
  if (Math.max(...starts) >= Math.min(...ends)) {
    const spans = roots.map((run) => `"${run.title}" ${run.start ?? "?"}–${run.end ?? "?"}`).join(", ");
    problems.push(`the tasks without dependencies did not run at the same time (worker spans in event seq: ${spans})`);
  }
  const paths = roots.flatMap((run) => run.worktrees);
  for (const run of roots) if (run.worktrees.length === 0) problems.push(`"${run.title}" ran in no worktree of its own`);
  if (new Set(paths).size !== paths.length) problems.push(`two tasks of the wave shared a worktree (${paths.join(", ")})`);
  return problems;
}

/** A dependent task's worker starts only once each of its hard dependencies is merged (or done, without a workspace). */
function order_problems(runs: ReadonlyMap<string, TaskRun>): string[] {
  const problems: string[] = [];
  for (const run of runs.values()) {
    // A task that never started is reported as not completed.
    if (run.start === undefined) continue;
    for (const dependency of run.hard.map((id) => runs.get(id))) {
      if (dependency === undefined) continue;
      const ready = dependency.merged ?? dependency.end;
      if (ready === undefined || run.start <= ready) {
        problems.push(`"${run.title}" started (seq ${run.start}) before its dependency "${dependency.title}" was merged (seq ${ready ?? "never"})`);
      }
    }
  }
  return problems;
}

/**
 * What a team run of a plan must show in its event log, each miss a sentence: a plan of several tasks,
 * all completed; the tasks without dependencies in one wave, overlapping, each in its own worktree; merges
 * one at a time; every other task started after its hard dependencies merged.
 */
export function team_run_problems(events: readonly HistoryEntry[]): string[] {
  const runs = task_runs(events);
  if (runs.size < 2) return [`the run has ${runs.size} task(s), not a plan of several`];
  const all = [...runs.values()];
  return [
    ...all.filter((run) => !run.completed).map((run) => `"${run.title}" did not complete`),
    ...wave_problems(all.filter((run) => run.hard.length === 0)),
    ...interleaved_merges(events),
    ...order_problems(runs),
  ];
}

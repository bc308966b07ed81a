import { format_info_line } from "./report-info.js";
import { format_limit_line } from "./report-limit.js";
import { ms } from "./report.js";
import type { SchedulerOverhead } from "./scheduler-overhead.js";

/**
 * The printed lines of the scheduler-overhead bench: p50 and max per task against the goal, beside the floor
 * of the same run, then each step beside the part of the floor it must include (none for a step that is
 * air's bookkeeping alone).
 */
export function format_overhead_lines(result: SchedulerOverhead, limit_ms: number): string[] {
  const { parts, floor } = result;
  const headline = (name: string, ours_ms: number) =>
    format_limit_line({ name, ours_ms, ceiling_name: "raw git + node -e", ceiling_ms: floor.total_ms, ratio: ours_ms / floor.total_ms, limit_ms });
  const step = (name: string, ours_ms: number, ceiling_name: string, ceiling_ms: number, note: string) =>
    format_info_line({ name, ours: ms(ours_ms), ceiling_name, ceiling: ms(ceiling_ms), ratio: ours_ms / ceiling_ms, note });
  const bookkeeping = (name: string, ours_ms: number, note: string) => `${name.padEnd(22)} ${`air ${ms(ours_ms)}`.padEnd(20)} (info: ${note})`;
  return [
    headline("sched overhead p50", result.p50_ms),
    headline("sched overhead max", result.max_ms),
    step("  workspace create", parts.create_ms, "git worktree add", floor.worktree_ms, "snapshot + worktree; the wave's planning lands on its first"),
    bookkeeping("  dispatch → spawn", parts.dispatch_ms, "task.started → the worker process starts"),
    step("  spawn → ready", parts.spawn_ms, "node -e (1 line)", floor.spawn_ms, `${result.tasks} workers start at once`),
    bookkeeping("  ready → result", parts.worker_ms, "the worker's turns less model calls and commands"),
    step("  result → merge", parts.to_merge_ms, "git add + commit", floor.commit_ms, "commit on the task's branch, less the queue wait"),
    step("  merge + cleanup", parts.merge_ms, "merge + wt remove", floor.merge_ms + floor.remove_ms, "journaled merge, less its re-run verification"),
    bookkeeping(
      "  not counted",
      parts.queue_wait_ms + parts.model_ms + parts.commands_ms,
      `queue wait ${ms(parts.queue_wait_ms)}, model ${ms(parts.model_ms)}, commands ${ms(parts.commands_ms)} (medians per task)`,
    ),
  ];
}

import { eq, inArray, isNull } from "drizzle-orm";
import { make_air_error } from "../../contracts/errors.js";
import { make_event } from "../../contracts/events/registry.js";
import { log_summary } from "../../logs/log.js";
import { agents, command_runs, tasks, tool_runs } from "../../db/schema.js";
import type { Session } from "../../project/session-manager.js";
import { finished_unsettled } from "./finished-runs.js";

export type RecoveryReport = {
  readonly lost_agents: string[];
  readonly requeued_tasks: string[];
  /** Tool and command runs the dead runtime left open, now closed as cancelled. */
  readonly closed_runs: number;
};

const RUNTIME_STOPPED = "the runtime that ran it stopped before it finished";

/**
 * Startup recovery of a session whose runtime died (seeds 000 §16.3), from rows only: tool and command runs
 * left open are closed as cancelled, agents still marked live are lost, running tasks are interrupted, and
 * interrupted tasks go back to pending to run again. A running task whose agent had completed stays running:
 * the Scheduler's recovery settles it from the agent's result (`finished_unsettled`).
 */
export function recover_session(session: Session): RecoveryReport {
  const origin = { ...session.origin, source: { kind: "scheduler" as const }, route: ["runtime", "recovery"] };
  const db = session.connection.db;
  const live_agents = db
    .select({ id: agents.id })
    .from(agents)
    .where(inArray(agents.status, ["starting", "running"]))
    .all();
  const running_rows = db
    .select({ id: tasks.id, type: tasks.type })
    .from(tasks)
    .where(inArray(tasks.status, ["running"]))
    .all();
  // A run that finished before the crash is settled (or merged) by the Scheduler from its result, not run again.
  const finished = new Set(finished_unsettled(session).map((run) => run.task_id));
  // A compaction cut off by the crash failed (its originals are untouched); only real work is run again.
  const running = running_rows.filter((row) => row.type !== "compact" && !finished.has(row.id));
  const compactions = running_rows.filter((row) => row.type === "compact");
  const open_tools = db.select({ id: tool_runs.id }).from(tool_runs).where(eq(tool_runs.status, "running")).all();
  const open_commands = db.select({ id: command_runs.id }).from(command_runs).where(isNull(command_runs.completed_at)).all();
  const stopped = make_air_error({ kind: "command_error", message: RUNTIME_STOPPED, retryability: "retryable" });
  const events = [
    ...open_commands.map(({ id }) => make_event("command.failed", { command_run_id: id, error: stopped, cancelled: true }, origin)),
    ...open_tools.map(({ id }) => make_event("tool.cancelled", { tool_run_id: id, reason: RUNTIME_STOPPED }, origin)),
    ...live_agents.map(({ id }) => make_event("agent.lost", { agent_id: id, reason: RUNTIME_STOPPED }, origin)),
    ...running.map(({ id }) => make_event("task.interrupted", { task_id: id, reason: RUNTIME_STOPPED }, origin)),
    ...compactions.map(({ id }) =>
      make_event(
        "context.compaction.failed",
        { task_id: id, error: make_air_error({ kind: "context_error", message: RUNTIME_STOPPED, retryability: "retryable" }) },
        origin,
      ),
    ),
  ];
  if (events.length > 0) session.store.append_many(events);

  const interrupted = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(inArray(tasks.status, ["interrupted"]))
    .all();
  const resumes = interrupted.map(({ id }) => make_event("task.resumed", { task_id: id, reason: "resumed after restart" }, origin));
  if (resumes.length > 0) session.store.append_many(resumes);
  const report = {
    lost_agents: live_agents.map(({ id }) => id),
    requeued_tasks: interrupted.map(({ id }) => id),
    closed_runs: open_tools.length + open_commands.length,
  };
  if (events.length + resumes.length > 0) log_recovery(session.id, report);
  return report;
}

function log_recovery(session_id: string, report: RecoveryReport): void {
  const { lost_agents, requeued_tasks, closed_runs } = report;
  const summary = `session ${session_id} recovered: ${lost_agents.length} lost agent(s), ${requeued_tasks.length} task(s) requeued, ${closed_runs} open run(s) closed`;
  log_summary("recovery", summary, report);
}

import { inArray } from "drizzle-orm";
import { make_event } from "../../contracts/events/registry.js";
import { agents, tasks } from "../../db/schema.js";
import type { Session } from "../../project/session-manager.js";

export type RecoveryReport = { readonly lost_agents: string[]; readonly requeued_tasks: string[] };

const RUNTIME_STOPPED = "the runtime that ran it stopped before it finished";

/**
 * Startup recovery of a session whose runtime died (seeds 000 §16.3), from rows only: agents still marked
 * live are lost, running tasks are interrupted, and interrupted tasks go back to pending to run again.
 */
export function recover_session(session: Session): RecoveryReport {
  const origin = { ...session.origin, source: { kind: "scheduler" as const }, route: ["runtime", "recovery"] };
  const db = session.connection.db;
  const live_agents = db.select({ id: agents.id }).from(agents).where(inArray(agents.status, ["starting", "running"])).all();
  const running = db.select({ id: tasks.id }).from(tasks).where(inArray(tasks.status, ["running"])).all();
  const events = [
    ...live_agents.map(({ id }) => make_event("agent.lost", { agent_id: id, reason: RUNTIME_STOPPED }, origin)),
    ...running.map(({ id }) => make_event("task.interrupted", { task_id: id, reason: RUNTIME_STOPPED }, origin)),
  ];
  if (events.length > 0) session.store.append_many(events);

  const interrupted = db.select({ id: tasks.id }).from(tasks).where(inArray(tasks.status, ["interrupted"])).all();
  const resumes = interrupted.map(({ id }) => make_event("task.resumed", { task_id: id, reason: "resumed after restart" }, origin));
  if (resumes.length > 0) session.store.append_many(resumes);
  return { lost_agents: live_agents.map(({ id }) => id), requeued_tasks: interrupted.map(({ id }) => id) };
}

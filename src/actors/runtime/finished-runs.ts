import { eq } from "drizzle-orm";
import * as v from "valibot";
import { AgentId } from "../../contracts/ids.js";
import type { WorkerResult } from "../../contracts/worker-result.js";
import { tasks } from "../../db/schema.js";
import type { Finished } from "../../machines/scheduler.js";
import type { Session } from "../../project/session-manager.js";

/** The result the agent recorded when it completed (`agent.completed`), if it did and kept one. */
function completed_result(session: Session, agent_id: string): { result: WorkerResult; exit_code: number | null } | undefined {
  const [stored] = session.store.query({ types: ["agent.completed"], agent_id: v.parse(AgentId, agent_id), order: "desc", limit: 1 });
  const event = stored?.event;
  if (event?.type !== "agent.completed" || event.payload.worker_result === undefined) return undefined;
  return { result: event.payload.worker_result, exit_code: event.payload.exit_code ?? null };
}

/**
 * The runs a dead runtime had finished but not yet settled: tasks still `running` whose agent completed with a
 * result, such as a task waiting in the merge queue or one whose merge was cut off. Their work is done (and, in
 * a worktree, committed on its branch or still in place): on resume they are settled or merged from that
 * result, never run again.
 */
export function finished_unsettled(session: Session): Finished[] {
  const running = session.connection.db.select({ id: tasks.id, agent_id: tasks.agent_id }).from(tasks).where(eq(tasks.status, "running")).all();
  return running.flatMap(({ id, agent_id }) => {
    const completed = agent_id === null ? undefined : completed_result(session, agent_id);
    return completed === undefined ? [] : [{ task_id: id, run: { status: "completed" as const, ...completed } }];
  });
}

/**
 * The tasks of a session as `air tasks` lists them: status, where each works, how many attempts, and what its
 * model calls used, from rows only (a live session may be writing meanwhile).
 */
import { asc, desc, eq } from "drizzle-orm";
import * as v from "valibot";
import { TaskId, WorkspaceId } from "../contracts/ids.js";
import type { ListedTask, ListedUsage, TaskListing } from "../contracts/task-listing.js";
import type { Connection } from "../db/connection.js";
import { tasks, workspaces } from "../db/schema.js";
import { workspace_branch } from "../workspaces/worktree.js";
import { usage_of } from "./budget/usage.js";

function listed(connection: Connection, scope: Parameters<typeof usage_of>[1]): ListedUsage {
  const { turns, input_tokens, output_tokens, cost_usd } = usage_of(connection, scope);
  return { turns, input_tokens, output_tokens, cost_usd };
}

/** The task's own workspace: the one its row names, else the newest made for it. */
function workspace_of(connection: Connection, task: { id: string; workspace_id: string | null }) {
  const columns = { id: workspaces.id, strategy: workspaces.strategy, path: workspaces.path };
  if (task.workspace_id !== null) {
    const named = connection.db.select(columns).from(workspaces).where(eq(workspaces.id, task.workspace_id)).get();
    if (named !== undefined) return named;
  }
  return connection.db.select(columns).from(workspaces).where(eq(workspaces.task_id, task.id)).orderBy(desc(workspaces.created_at)).get();
}

/** Every task but inline compactions, oldest first; the total counts every model call, the Main Agent's too. */
export function list_tasks(connection: Connection): TaskListing {
  const rows = connection.db.select().from(tasks).orderBy(asc(tasks.created_at), asc(tasks.id)).all();
  const listed_tasks = rows
    .filter((row) => row.type !== "compact")
    .map((row): ListedTask => {
      const workspace = workspace_of(connection, row);
      return {
        id: row.id,
        title: row.title,
        status: row.status,
        status_reason: row.status_reason,
        workspace: workspace === undefined ? "main" : { id: workspace.id, strategy: workspace.strategy, path: workspace.path },
        branch: workspace?.strategy === "worktree" ? workspace_branch(v.parse(TaskId, row.id), v.parse(WorkspaceId, workspace.id)) : null,
        attempts: row.attempt_count,
        usage: listed(connection, { task_id: row.id }),
      };
    });
  return { tasks: listed_tasks, total: listed(connection, { session: true }) };
}

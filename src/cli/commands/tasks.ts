import { session_db_path } from "../../project/layout.js";
import { open_project } from "../../project/project-store.js";
import { chosen_session } from "../../project/session-catalog.js";
import type { ListedTask, ListedUsage, TaskListing } from "../../contracts/task-listing.js";
import { table, type Io } from "../output.js";

const COLUMNS = ["ID", "STATUS", "ATTEMPTS", "WORKSPACE", "BRANCH", "TURNS", "TOKENS IN", "TOKENS OUT", "COST", "TITLE"];

function cost(usage: ListedUsage): string {
  return usage.cost_usd === null ? "-" : `$${usage.cost_usd.toFixed(4)}`;
}

function usage_cells(usage: ListedUsage): string[] {
  return [String(usage.turns), String(usage.input_tokens), String(usage.output_tokens), cost(usage)];
}

function task_row(task: ListedTask): string[] {
  const workspace = task.workspace === "main" ? "main" : `${task.workspace.strategy} ${task.workspace.path}`;
  const title = task.status_reason === null ? task.title : `${task.title} (${task.status_reason.replace(/\s+/g, " ")})`;
  return [task.id, task.status, String(task.attempts), workspace, task.branch ?? "-", ...usage_cells(task.usage), title];
}

/** The session's rows, read-only: a live session may hold the database meanwhile. */
async function read_listing(db_file: string): Promise<TaskListing> {
  const [{ Connection }, { assert_readable }, { list_tasks }] = await Promise.all([
    import("../../db/connection.js"),
    import("../../db/migrate.js"),
    import("../../orchestration/task-listing.js"),
  ]);
  const connection = Connection.open(db_file, { must_exist: true });
  try {
    connection.client.exec("PRAGMA query_only=ON");
    assert_readable(connection, "session");
    return list_tasks(connection);
  } finally {
    connection.close();
  }
}

/**
 * `air tasks`: the tasks of a session (default: the latest) with status, attempts, workspace and what their
 * model calls used, and a total over every model call of the session; `--json` the same as JSON.
 */
export async function run_tasks(io: Io, options: { session?: string; json: boolean }): Promise<number> {
  const { layout } = open_project(io.cwd);
  const session_id = await chosen_session(layout, options.session);
  const listing = await read_listing(session_db_path(layout, session_id));
  if (options.json) {
    io.out(`${JSON.stringify({ session_id, ...listing }, null, 2)}\n`);
    return 0;
  }
  if (listing.tasks.length === 0) io.out(`Session ${session_id} has no tasks.\n`);
  else io.out(table([COLUMNS, ...listing.tasks.map(task_row)]));
  io.out(`Total (every model call of the session, the Main Agent's too): ${usage_line(listing.total)}\n`);
  return 0;
}

function usage_line(usage: ListedUsage): string {
  const [turns, input, output, dollars] = usage_cells(usage);
  return `${turns} model call(s), ${input} tokens in, ${output} tokens out, cost ${dollars === "-" ? "unknown" : dollars}`;
}

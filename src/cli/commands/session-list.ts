import { open_project } from "../../project/project-store.js";
import { list_sessions } from "../../project/session-catalog.js";
import { render_error, table, type Io } from "../output.js";

export async function run_session_list(io: Io, options: { json: boolean }): Promise<number> {
  const { layout } = open_project(io.cwd);
  const listing = await list_sessions(layout);
  if (options.json) {
    io.out(`${JSON.stringify(listing, null, 2)}\n`);
    return 0;
  }
  if (listing.sessions.length === 0 && listing.unreadable.length === 0) {
    io.out("No sessions yet.\n");
    return 0;
  }
  const rows = [["ID", "CREATED", "STATUS", "MESSAGES", "TASKS", "LAST ACTIVITY", "TITLE"]];
  for (const s of listing.sessions) {
    rows.push([s.id, s.created_at, s.status, String(s.message_count), String(s.task_count), s.last_activity_at ?? "-", s.title]);
  }
  io.out(table(rows));
  for (const { id, error } of listing.unreadable) io.err(`${id}: ${render_error(error)}`);
  return 0;
}

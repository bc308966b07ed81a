import { list_indexed_projects, type IndexedProject } from "../../project/project-index.js";
import { open_project } from "../../project/project-store.js";
import { list_sessions, type SessionListing } from "../../project/session-catalog.js";
import { project_layout } from "../../project/layout.js";
import { render_error, table, type Io } from "../output.js";

const COLUMNS = ["ID", "CREATED", "STATUS", "MESSAGES", "TASKS", "LAST ACTIVITY", "TITLE"];

function session_rows(listing: SessionListing, prefix: (string | undefined)[] = []): string[][] {
  return listing.sessions.map((s) => [
    ...prefix.map((cell) => cell ?? ""),
    s.id,
    s.created_at,
    s.status,
    String(s.message_count),
    String(s.task_count),
    s.last_activity_at ?? "-",
    s.title,
  ]);
}

function report_unreadable(io: Io, listing: SessionListing, where = ""): void {
  for (const { id, error } of listing.unreadable) io.err(`${where}${id}: ${render_error(error)}`);
}

export async function run_session_list(io: Io, options: { json: boolean; all_projects?: boolean }): Promise<number> {
  if (options.all_projects === true) return list_all_projects(io, options.json);
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
  io.out(table([COLUMNS, ...session_rows(listing)]));
  report_unreadable(io, listing);
  return 0;
}

type ProjectListing = IndexedProject & SessionListing;

/**
 * `--all-projects`: the sessions of every project in `~/.air/project-index.db` whose folder still exists,
 * projects most recently opened first. Works from any folder, inside a project or not.
 */
async function list_all_projects(io: Io, json: boolean): Promise<number> {
  const listings: ProjectListing[] = [];
  for (const project of await list_indexed_projects()) {
    listings.push({ ...project, ...(await list_sessions(project_layout(project.root))) });
  }
  if (json) {
    io.out(`${JSON.stringify({ projects: listings }, null, 2)}\n`);
    return 0;
  }
  if (listings.every((listing) => listing.sessions.length === 0 && listing.unreadable.length === 0)) {
    io.out(listings.length === 0 ? "No projects yet: air lists a project once it has opened it.\n" : "No sessions yet.\n");
    return 0;
  }
  const rows = listings.flatMap((listing) => session_rows(listing, [listing.name, listing.root]));
  io.out(table([["PROJECT", "ROOT", ...COLUMNS], ...rows]));
  for (const listing of listings) report_unreadable(io, listing, `${listing.root}: `);
  return 0;
}

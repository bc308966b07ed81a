import { list_indexed_projects, type IndexedProject } from "../../project/project-index.js";
import { open_project } from "../../project/project-store.js";
import { air_failure } from "../../contracts/errors.js";
import { latest_session_id, list_sessions, type SessionListing, type SessionsShown } from "../../project/session-catalog.js";
import { project_layout, type ProjectLayout } from "../../project/layout.js";
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

type ListOptions = { json: boolean; all_projects?: boolean; archived?: boolean; all?: boolean };

function shown_of(options: ListOptions): SessionsShown {
  if (options.archived === true && options.all === true) {
    throw air_failure({
      kind: "user_error",
      message: "--archived and --all cannot be used together",
      retryability: "not_retryable",
      user_action: "Use --archived for the archived sessions, or --all for every session whatever its status.",
    });
  }
  return options.all === true ? "all" : options.archived === true ? "archived" : "active";
}

/** What an empty listing says: none at all, or none of those shown while others are left out. */
function none_shown(shown: SessionsShown, layouts: readonly ProjectLayout[]): string {
  if (shown === "all" || layouts.every((layout) => latest_session_id(layout) === undefined)) return "No sessions yet.\n";
  return shown === "archived" ? "No archived sessions.\n" : "No active sessions: `--archived` or `--all` lists the others.\n";
}

export async function run_session_list(io: Io, options: ListOptions): Promise<number> {
  const shown = shown_of(options);
  if (options.all_projects === true) return list_all_projects(io, options.json, shown);
  const { layout } = open_project(io.cwd);
  const listing = await list_sessions(layout, shown);
  if (options.json) {
    io.out(`${JSON.stringify(listing, null, 2)}\n`);
    return 0;
  }
  if (listing.sessions.length === 0 && listing.unreadable.length === 0) {
    io.out(none_shown(shown, [layout]));
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
async function list_all_projects(io: Io, json: boolean, shown: SessionsShown): Promise<number> {
  const listings: ProjectListing[] = [];
  for (const project of await list_indexed_projects()) {
    listings.push({ ...project, ...(await list_sessions(project_layout(project.root), shown)) });
  }
  if (json) {
    io.out(`${JSON.stringify({ projects: listings }, null, 2)}\n`);
    return 0;
  }
  if (listings.every((listing) => listing.sessions.length === 0 && listing.unreadable.length === 0)) {
    io.out(
      listings.length === 0
        ? "No projects yet: air lists a project once it has opened it.\n"
        : none_shown(
            shown,
            listings.map((listing) => project_layout(listing.root)),
          ),
    );
    return 0;
  }
  const rows = listings.flatMap((listing) => session_rows(listing, [listing.name, listing.root]));
  io.out(table([["PROJECT", "ROOT", ...COLUMNS], ...rows]));
  for (const listing of listings) report_unreadable(io, listing, `${listing.root}: `);
  return 0;
}

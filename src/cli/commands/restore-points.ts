import fs from "node:fs";
import { session_db_path, type ProjectLayout } from "../../project/layout.js";
import { open_project } from "../../project/project-store.js";
import { list_sessions } from "../../project/session-catalog.js";
import type { SnapshotRecord } from "../../project/snapshot-manifest.js";
import { SnapshotStore } from "../../project/snapshot-store.js";
import { table, type Io } from "../output.js";

/** One change air made to the checkout, and how to go back to just before it. */
type RestorePoint = {
  /** When the change began: its `before` snapshot. */
  readonly at: string;
  readonly session_id: string;
  readonly session_title: string;
  readonly cause: SnapshotRecord["cause"];
  /** What ran: the tool, the command's text, the merge, the restore. */
  readonly what: string;
  readonly run_id?: string;
  readonly files_changed: number;
  readonly paths: readonly string[];
  /** What to type to put every file air changed from here on back as it was just before. */
  readonly go_back: string;
};

type RunNames = { readonly tools: Map<string, string>; readonly commands: Map<string, string> };

/** Each session's tool names and command texts, read-only beside a live writer. */
async function run_names(layout: ProjectLayout, session_ids: Iterable<string>): Promise<RunNames> {
  const names: RunNames = { tools: new Map(), commands: new Map() };
  const { open_client } = await import("../../db/sqlite.js");
  for (const session_id of session_ids) {
    const file = session_db_path(layout, session_id);
    if (!fs.existsSync(file)) continue;
    const client = open_client(file);
    try {
      const tools = client.prepare("SELECT id, tool_name FROM tool_runs").all() as { id: string; tool_name: string }[];
      const commands = client.prepare("SELECT id, command FROM command_runs").all() as { id: string; command: string }[];
      for (const row of tools) names.tools.set(row.id, row.tool_name);
      for (const row of commands) names.commands.set(row.id, row.command);
    } finally {
      client.close();
    }
  }
  return names;
}

function one_line(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function what_ran(before: SnapshotRecord, names: RunNames): string {
  if (before.command_run_id !== undefined) return `command \`${one_line(names.commands.get(before.command_run_id) ?? before.command_run_id, 60)}\``;
  if (before.tool_run_id !== undefined) return names.tools.get(before.tool_run_id) ?? before.tool_run_id;
  if (before.cause === "merge") return `merge of ${before.workspace_id ?? "a workspace"}`;
  if (before.cause === "restore" && before.restored_to !== undefined) {
    const { kind, ...rest } = before.restored_to;
    return `restore to ${kind} ${Object.values(rest).join(" ")}`;
  }
  return before.cause;
}

/** The snapshots as changes: each `before` with the paths it and its `after` name; changes of no file are left out. */
function changes_of(records: readonly SnapshotRecord[]): { before: SnapshotRecord; paths: string[] }[] {
  const changes = new Map<string, { before: SnapshotRecord; paths: Set<string> }>();
  for (const record of records) {
    if (record.phase === "before") changes.set(record.snapshot_id, { before: record, paths: new Set(record.paths) });
    else if (record.before_snapshot_id !== undefined) for (const changed of record.paths) changes.get(record.before_snapshot_id)?.paths.add(changed);
  }
  return [...changes.values()].filter((change) => change.paths.size > 0).map((change) => ({ before: change.before, paths: [...change.paths].sort() }));
}

/** Every restore point of the project's checkout (of one session, when named), newest first. */
export async function restore_points(layout: ProjectLayout, session_id?: string): Promise<RestorePoint[]> {
  const store = SnapshotStore.for_project(layout);
  const records = await store.list({ root: layout.root, ...(session_id === undefined ? {} : { session_id }) });
  const changes = changes_of(records);
  const names = await run_names(layout, new Set(changes.map((change) => change.before.session_id)));
  const titles = new Map((await list_sessions(layout)).sessions.map((session) => [session.id, session.title]));
  return changes.reverse().map(({ before, paths }) => {
    const run_id = before.command_run_id ?? before.tool_run_id;
    return {
      at: before.created_at,
      session_id: before.session_id,
      session_title: titles.get(before.session_id) ?? "",
      cause: before.cause,
      what: what_ran(before, names),
      ...(run_id === undefined ? {} : { run_id }),
      files_changed: paths.length,
      paths,
      go_back: `air restore time ${before.created_at}`,
    };
  });
}

/**
 * `air history --restore-points`: each change air made to the checkout — when, in which session, what ran,
 * how many files — newest first, each with the command that goes back to just before it (and, for a run,
 * the run id `air restore file PATH --before RUN_ID` takes).
 */
export async function run_restore_points(io: Io, options: { session?: string; json: boolean }): Promise<number> {
  const { layout } = open_project(io.cwd);
  const points = await restore_points(layout, options.session);
  if (options.json) {
    io.out(`${JSON.stringify({ root: layout.root, restore_points: points }, null, 2)}\n`);
    return 0;
  }
  if (points.length === 0) {
    io.out("No restore points: air has not changed any file of this project's checkout.\n");
    return 0;
  }
  const rows = points.map((point) => [
    point.at,
    `${one_line(point.session_title || "untitled", 28)} (${point.session_id})`,
    point.what,
    `${point.files_changed} file${point.files_changed === 1 ? "" : "s"}`,
    `${point.go_back}${point.run_id === undefined ? "" : `  |  air restore file ${point.paths.length === 1 ? point.paths[0] : "PATH"} --before ${point.run_id}`}`,
  ]);
  io.out(table([["TIME", "SESSION", "WHAT RAN", "FILES", "TO GO BACK TO JUST BEFORE IT"], ...rows]));
  return 0;
}

import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import { session_artifacts_dir } from "../../project/layout.js";
import { open_project, type Project } from "../../project/project-store.js";
import { purge_record } from "../../project/purged-sessions.js";
import { has_session, read_summary, require_session } from "../../project/session-catalog.js";
import { archive_session, delete_session, purge_session } from "../../project/session-ending.js";
import { checked_session_id } from "../../project/session-id.js";
import type { Io } from "../output.js";
import { is_interactive } from "../terminal.js";

/**
 * `air session archive|delete|purge ID` (what each keeps is in project/session-ending.ts). Delete and purge
 * remove files, so they say what goes and ask first on a terminal; elsewhere only `--yes` lets them run.
 */
function needs_id(id: string | undefined, command: string): string {
  if (id !== undefined) return checked_session_id(id);
  throw air_failure({
    kind: "user_error",
    message: `air session ${command} needs the session's id`,
    retryability: "not_retryable",
    user_action: "Find it with `air session list` (`--all` for archived and deleted ones too).",
  });
}

/** The files under `dir` and their bytes; none for a folder that is not there. */
function footprint(dir: string): { files: number; bytes: number } {
  const total = { files: 0, bytes: 0 };
  if (!fs.existsSync(dir)) return total;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = footprint(full);
      total.files += inner.files;
      total.bytes += inner.bytes;
    } else if (entry.isFile()) {
      total.files += 1;
      total.bytes += fs.statSync(full).size;
    }
  }
  return total;
}

function sized({ files, bytes }: { files: number; bytes: number }): string {
  const amount = bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${files} file(s), ${amount}`;
}

/** What a delete or purge is about to remove, as the question before it says. */
async function described(project: Project, id: string): Promise<string> {
  if (purge_record(project.layout, id) !== undefined && !has_session(project.layout, id)) return `what a purge cut short left of session ${id}`;
  require_session(project.layout, id);
  const summary = await read_summary(project.layout, id);
  const artifacts = sized(footprint(session_artifacts_dir(project.layout, id)));
  return `session ${id} "${summary?.title ?? "untitled"}" (${summary?.status ?? "no row yet"}, ${summary?.message_count ?? 0} message(s); artifacts: ${artifacts})`;
}

/** Asks on a terminal (Ctrl+C is a no); without one, only `--yes` goes ahead. */
async function confirmed(question: string, yes: boolean, command: string, id: string): Promise<boolean> {
  if (yes) return true;
  if (!is_interactive()) {
    throw air_failure({
      kind: "user_error",
      message: `air session ${command} removes files and asks first, but there is no terminal to ask`,
      retryability: "retryable_after_change",
      user_action: `Run it on a terminal, or pass --yes: \`air session ${command} ${id} --yes\`.`,
    });
  }
  const clack = await import("@clack/prompts");
  return (await clack.confirm({ message: question, initialValue: false })) === true;
}

export async function run_session_archive(io: Io, options: { id: string | undefined; reason?: string }): Promise<number> {
  const id = needs_id(options.id, "archive");
  archive_session(open_project(io.cwd), id, options.reason);
  io.out(`Archived ${id}: kept whole, listed by \`air session list --archived\`, reopened by \`air resume --session ${id}\`.\n`);
  return 0;
}

export async function run_session_delete(io: Io, options: { id: string | undefined; reason?: string; yes: boolean }): Promise<number> {
  const id = needs_id(options.id, "delete");
  const project = open_project(io.cwd);
  const question = `Delete ${await described(project, id)}? Its artifacts and workspaces are removed and it cannot be reopened; its log and snapshots stay until it is purged.`;
  if (!(await confirmed(question, options.yes, "delete", id))) {
    io.out("Nothing deleted.\n");
    return 1;
  }
  const outcome = await delete_session(project, id, options.reason);
  io.out(
    outcome.finished_earlier_delete
      ? `Finished the earlier delete of ${id}: its remaining artifacts are removed.\n`
      : `Deleted ${id}: its artifacts and ${outcome.retired_workspaces} workspace(s) are removed; \`air history --session ${id}\` still shows its log until \`air session purge ${id}\`.\n`,
  );
  return 0;
}

export async function run_session_purge(io: Io, options: { id: string | undefined; yes: boolean }): Promise<number> {
  const id = needs_id(options.id, "purge");
  const project = open_project(io.cwd);
  const question = `Purge ${await described(project, id)}? Everything of it is removed from disk — its log, artifacts, workspaces and snapshots. This cannot be undone.`;
  if (!(await confirmed(question, options.yes, "purge", id))) {
    io.out("Nothing purged.\n");
    return 1;
  }
  const outcome = await purge_session(project, id);
  io.out(`Purged ${id}${outcome.finished_earlier_purge ? " (finishing a purge cut short)" : ""}: nothing of it is left on disk.\n`);
  return 0;
}

import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { CommandRunId, ToolRunId } from "../../contracts/ids.js";
import { open_project } from "../../project/project-store.js";
import type { RestoreTarget } from "../../contracts/events/restore.js";
import { plan_restore, type RestorePlan, type RestoreQuery } from "../../project/snapshot-restore.js";
import { checked_session_id } from "../../project/session-id.js";
import { SnapshotStore } from "../../project/snapshot-store.js";
import type { Io } from "../output.js";
import { apply_confirmed } from "../restore-apply.js";
import { restore_diff } from "../restore-diff.js";
import { parse_restore_time } from "../restore-time.js";
import { is_interactive } from "../terminal.js";

export const RESTORE_KINDS = ["file", "time", "session"] as const;
export type RestoreKind = (typeof RESTORE_KINDS)[number];

export type RestoreOptions = {
  readonly kind: RestoreKind;
  /** The file, the time (its words joined), or the session id. */
  readonly argument: string | undefined;
  readonly at?: string;
  readonly before?: string;
  readonly yes: boolean;
};

function usage_failure(message: string, user_action: string): never {
  throw air_failure({ kind: "user_error", message, retryability: "not_retryable", user_action });
}

function run_target(run_id: string): RestoreTarget {
  const parsed = v.safeParse(v.union([ToolRunId, CommandRunId]), run_id);
  if (!parsed.success)
    usage_failure(
      `${JSON.stringify(run_id)} is not a run id`,
      "Pass a tool run (tlr_…) or command run (cmr_…) id, as `air history --restore-points` shows them.",
    );
  return { kind: "run", run_id: parsed.output };
}

/** A file with no point named goes back to before air first changed it: from the project's first snapshot on. */
async function first_snapshot_target(store: SnapshotStore, root: string): Promise<RestoreTarget> {
  const first = (await store.list({ root }))[0];
  if (first === undefined)
    usage_failure("air has not changed any file of this project: there is nothing to restore", "`air history --restore-points` lists what air changed.");
  return { kind: "snapshot", snapshot_id: first.snapshot_id };
}

async function query_of(store: SnapshotStore, root: string, options: RestoreOptions): Promise<RestoreQuery> {
  const { kind, argument } = options;
  if (argument === undefined || argument.trim() === "")
    usage_failure(`air restore ${kind} needs its ${kind === "session" ? "session id" : kind}`, `Usage: air restore ${kind} ${kind.toUpperCase()}.`);
  if (kind === "time") return { root, target: { kind: "time", at: parse_restore_time(argument) } };
  if (kind === "session") {
    return { root, target: { kind: "session", session_id: checked_session_id(argument) } };
  }
  if (options.at !== undefined && options.before !== undefined) usage_failure("--at and --before name two different points", "Give one of them.");
  const target =
    options.at !== undefined
      ? { kind: "time" as const, at: parse_restore_time(options.at) }
      : options.before !== undefined
        ? run_target(options.before)
        : await first_snapshot_target(store, root);
  return { root, target, paths: [argument] };
}

function describe_target(target: RestoreTarget): string {
  switch (target.kind) {
    case "time":
      return `the state at ${target.at}`;
    case "run":
      return `the state before ${target.run_id}`;
    case "session":
      return `the state before session ${target.session_id}`;
    case "snapshot":
      return `the state before air first changed it (snapshot ${target.snapshot_id})`;
  }
}

/** The diff as the TUI draws one (coloured lines) on a terminal; the plain unified text otherwise. */
async function show_diff(io: Io, diff: string): Promise<void> {
  if (process.stdout.isTTY !== true) {
    io.out(diff);
    return;
  }
  const { render_diff } = await import("../restore-view.js");
  io.out(`${await render_diff(diff, process.stdout.columns ?? 100)}\n`);
}

async function confirmed(yes: boolean, count: number): Promise<boolean> {
  if (yes) return true;
  if (!is_interactive()) {
    throw air_failure({
      kind: "user_error",
      message: "the restore above was not applied: there is no terminal to confirm it on",
      retryability: "retryable_after_change",
      user_action: "Review the diff above, then run the same command again with --yes to apply it.",
    });
  }
  const clack = await import("@clack/prompts");
  return (await clack.confirm({ message: `Restore ${count} file(s) as shown?`, initialValue: false })) === true;
}

function report_unrestorable(io: Io, plan: RestorePlan): void {
  for (const file of plan.unrestorable) io.out(`not restored: ${file.path} — ${file.reason}\n`);
}

/**
 * `air restore file PATH [--at TIME | --before RUN_ID]`, `air restore time TIME`, `air restore session ID`
 * (issue 17): plans the restore from the snapshots, shows its diff, and on `y` (or `--yes`) applies it as a
 * permissioned, snapshotted action of its own, then says how to undo it.
 */
export async function run_restore(io: Io, options: RestoreOptions): Promise<number> {
  const project = open_project(io.cwd);
  const store = SnapshotStore.for_project(project.layout);
  const query = await query_of(store, project.layout.root, options);
  const plan = await plan_restore(store, query);
  if (plan.files.length === 0) {
    io.out(`Nothing to restore: every file air changed is already in ${describe_target(plan.target)}.\n`);
    report_unrestorable(io, plan);
    return 0;
  }
  const diff = await restore_diff(store, plan);
  await show_diff(io, diff);
  report_unrestorable(io, plan);
  if (!(await confirmed(options.yes, plan.files.length))) {
    io.out("Nothing was restored.\n");
    return 1;
  }
  const title = `air restore ${options.kind} ${options.argument ?? ""}`.trim().slice(0, 200);
  const { applied, session_id } = await apply_confirmed(project, store, plan, diff, title);
  io.out(
    `Restored ${applied.files.length} file(s) to ${describe_target(plan.target)} (restore commit ${applied.after.commit.slice(0, 12)} in .air/local/backups).\n`,
  );
  io.out(`To undo this restore: air restore session ${session_id}\n`);
  return 0;
}

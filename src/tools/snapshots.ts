import fs from "node:fs";
import { air_failure, make_air_error, to_air_error, type AirError, type AirErrorInput } from "../contracts/errors.js";
import type { CommandRunId } from "../contracts/ids.js";
import type { CommandAnalysis } from "../permissions/command-risk/index.js";
import { LOOKING } from "../permissions/layers.js";
import type { PathClassification } from "../permissions/paths.js";
import { snapshot_taken_payload, type SnapshotRecord } from "../project/snapshot-manifest.js";
import { is_excluded } from "../project/snapshot-paths.js";
import { SnapshotStore } from "../project/snapshot-store.js";
import type { ToolExecution } from "./define.js";

/**
 * Snapshots of the project before air changes it (issue 17): before each file tool's write (the paths it
 * writes) and before and after each command judged as writing (the whole checkout, so what the command
 * created, changed or deleted is known). A snapshot that fails stops the change: no snapshot, no write —
 * as for backups. A task working in a workspace is not snapshotted: its changes reach the checkout only
 * through the merge, which is.
 */

/** Whether the call changes the user's checkout (not a workspace of its own). */
function works_in_checkout(execution: ToolExecution): boolean {
  const checkout = execution.session.project.layout.root;
  return execution.project_root === checkout || fs.realpathSync.native(execution.project_root) === fs.realpathSync.native(checkout);
}

/**
 * Whether a command may write files as the CommandRiskAnalyzer judged it: anything but looking (read-only,
 * git reads, static analysis) with no write path, or a command it could not see through.
 */
function command_writes(analysis: CommandAnalysis | undefined): boolean {
  if (analysis === undefined) return true;
  if (analysis.writes.length > 0) return true;
  if (analysis.findings.some((finding) => finding.category === "unparseable" || finding.category === "unknown_execution")) return true;
  return analysis.commands.some((command) => command.categories.some((category) => !LOOKING.has(category)));
}

function snapshot_failure(what: string, error: unknown): AirErrorInput {
  const cause = to_air_error(error, "system_error");
  return {
    kind: cause.kind,
    message: `${what}: the snapshot of the project failed: ${cause.message}`,
    retryability: cause.retryability,
    user_action: cause.user_action ?? "Check that git is installed and .air/local/backups is writable, then try again.",
  };
}

function emitted(execution: ToolExecution, record: SnapshotRecord): SnapshotRecord {
  execution.emit("snapshot.taken", snapshot_taken_payload(record));
  return record;
}

function links_of(execution: ToolExecution, command_run_id?: CommandRunId) {
  return {
    tool_run_id: execution.tool_run_id,
    ...(command_run_id === undefined ? {} : { command_run_id }),
    ...(execution.task_id === undefined ? {} : { task_id: execution.task_id }),
  };
}

/**
 * Before a file tool writes: a snapshot of the checkout's files among `written` (the decision's classified
 * write paths), linked to the tool run. Nothing to snapshot (paths outside the project, under `.air/`, in
 * build output) costs nothing. Returns the error that must stop the write, if any.
 */
export async function snapshot_before_write(execution: ToolExecution, written: readonly PathClassification[]): Promise<AirError | undefined> {
  if (!works_in_checkout(execution)) return undefined;
  const paths = written.flatMap((classified) =>
    classified.inside_project && classified.relative !== undefined && classified.relative !== "" && !is_excluded(classified.relative)
      ? [classified.relative]
      : [],
  );
  if (paths.length === 0) return undefined;
  try {
    const store = SnapshotStore.for_project(execution.session.project.layout);
    const root = execution.session.project.layout.root;
    emitted(execution, await store.take({ root, session_id: execution.session.id, cause: "tool", phase: "before", paths, links: links_of(execution) }));
    return undefined;
  } catch (error) {
    return make_air_error(snapshot_failure(`${execution.tool_name} did not run`, error));
  }
}

/** A command's snapshots: `before` taken when it is judged as writing in the checkout; `after` records what it changed. */
export type CommandSnapshots = { readonly before: SnapshotRecord; after(): Promise<AirError | undefined> };

/**
 * Before a command judged as writing runs in the checkout: a snapshot of the whole checkout, linked to the
 * command run. Throws (the command must not run) when it fails; undefined when the command needs none.
 */
export async function snapshot_before_command(execution: ToolExecution, command_run_id: CommandRunId, on_host: boolean): Promise<CommandSnapshots | undefined> {
  if (on_host || !works_in_checkout(execution) || !command_writes(execution.permission.analysis)) return undefined;
  const store = SnapshotStore.for_project(execution.session.project.layout);
  const request = {
    root: execution.session.project.layout.root,
    session_id: execution.session.id,
    cause: "command" as const,
    links: links_of(execution, command_run_id),
  };
  let before: SnapshotRecord;
  try {
    before = emitted(execution, await store.take({ ...request, phase: "before" }));
  } catch (error) {
    throw air_failure(snapshot_failure("the command did not run", error), error);
  }
  return {
    before,
    async after() {
      try {
        emitted(execution, await store.take({ ...request, phase: "after", before }));
        return undefined;
      } catch (error) {
        return make_air_error(snapshot_failure("the command ran, but what it changed is not recorded", error));
      }
    },
  };
}

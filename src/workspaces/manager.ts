import { air_failure } from "../contracts/errors.js";
import type { WorkspaceStrategy } from "../contracts/events/workspace.js";
import { make_event, type EventType, type PayloadInputOf } from "../contracts/events/registry.js";
import * as v from "valibot";
import { new_id, TaskId, WorkspaceId, type AgentId } from "../contracts/ids.js";
import type { workspaces } from "../db/schema.js";
import type { Session } from "../project/session-manager.js";
import { snapshot_taken_payload } from "../project/snapshot-manifest.js";
import { SnapshotStore } from "../project/snapshot-store.js";
import { commit_work } from "./commit.js";
import { create_copy, remove_copy } from "./copy.js";
import { merge_into_checkout } from "./merge.js";
import { VERIFICATION_FAILED_DETAIL, type MergeResult, type VerifyOutcome } from "./merge-result.js";
import { recover_merge, type Recovery } from "./recover.js";
import { snapshot_checkout } from "./snapshot.js";
import { create_worktree, prune_worktrees, remove_worktree, workspace_branch } from "./worktree.js";

/** The Scheduler's decision for one task (seeds 000 §7.5 `WorkspacePlan`): the manager carries it out as given. */
export type WorkspacePlan = {
  readonly task_id: TaskId;
  readonly strategy: WorkspaceStrategy;
  /** The wave's snapshot (`snapshot()`); required for a worktree. */
  readonly base_commit?: string;
  readonly agent_id?: AgentId;
  readonly workspace_id?: WorkspaceId;
};

export type WorkspaceRef = {
  readonly workspace_id: WorkspaceId;
  readonly task_id: TaskId;
  readonly strategy: WorkspaceStrategy;
  /** Where the task works and builds (its `build/` inside). */
  readonly path: string;
  readonly branch?: string;
  readonly base_commit?: string;
};

/** A workspace as its row records it: a worktree's branch is named after its task and itself. */
export function workspace_ref(row: typeof workspaces.$inferSelect): WorkspaceRef {
  const workspace_id = v.parse(WorkspaceId, row.id);
  const task_id = v.parse(TaskId, row.task_id);
  return {
    workspace_id,
    task_id,
    strategy: row.strategy,
    path: row.path,
    ...(row.strategy === "worktree" ? { branch: workspace_branch(task_id, workspace_id) } : {}),
    ...(row.base_ref === null ? {} : { base_commit: row.base_ref }),
  };
}

const MAX_DETAIL = 4_000;

function unsupported(what: string): never {
  throw air_failure({
    kind: "workspace_error",
    message: what,
    retryability: "not_retryable",
    user_action: "This is a Scheduler bug: a workspace of this strategy has no such step.",
  });
}

/**
 * The WorkspaceManager of seeds 000 §7.5: a pure executor of the Scheduler's decisions. It materialises,
 * merges and removes workspaces and records each step as a durable `workspace.*` event: a lifecycle event
 * after its file operation succeeded, `workspace.merge.started` before the checkout is touched. Merges run
 * one at a time, in the order asked (the merge queue).
 */
export class WorkspaceManager {
  readonly #session: Session;
  readonly #root: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(session: Session, root: string = session.project.layout.root) {
    this.#session = session;
    this.#root = root;
  }

  #emit<T extends EventType>(type: T, payload: PayloadInputOf<T>): void {
    this.#session.ingestor.ingest(make_event(type, payload, { ...this.#session.origin, source: { kind: "scheduler" }, route: ["main", "scheduler"] }));
  }

  /** What a wave's workspaces start from: the checkout as it is now, uncommitted changes included. */
  snapshot(): Promise<{ commit: string }> {
    return snapshot_checkout(this.#root);
  }

  async create_workspace(plan: WorkspacePlan): Promise<WorkspaceRef> {
    const workspace_id = plan.workspace_id ?? new_id("workspace");
    const base = { workspace_id, task_id: plan.task_id, strategy: plan.strategy };
    let ref: WorkspaceRef;
    if (plan.strategy === "worktree") {
      if (plan.base_commit === undefined) unsupported("a worktree workspace needs the wave's snapshot as its base_commit");
      const made = await create_worktree({ root: this.#root, workspace_id, task_id: plan.task_id, base_commit: plan.base_commit });
      ref = { ...base, ...made, base_commit: plan.base_commit };
    } else if (plan.strategy === "isolated_copy") ref = { ...base, ...create_copy({ root: this.#root, workspace_id }) };
    else ref = { ...base, path: this.#root };
    this.#emit("workspace.created", {
      workspace_id,
      strategy: plan.strategy,
      path: ref.path,
      task_id: plan.task_id,
      ...(ref.base_commit === undefined ? {} : { base_ref: ref.base_commit }),
      ...(plan.agent_id === undefined ? {} : { agent_id: plan.agent_id }),
    });
    return ref;
  }

  /**
   * Commits the task's work on its branch and merges it into the checkout, after every merge asked before it.
   * `verify` runs the task's verification on the merged checkout.
   */
  merge_workspace(ref: WorkspaceRef, options: { message: string; verify: () => Promise<VerifyOutcome> }): Promise<MergeResult> {
    const next = this.#queue.then(() => this.#merge(ref, options));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #merge(ref: WorkspaceRef, options: { message: string; verify: () => Promise<VerifyOutcome> }): Promise<MergeResult> {
    if (ref.strategy !== "worktree" || ref.base_commit === undefined) unsupported(`a ${ref.strategy} workspace cannot be merged by the merge queue`);
    const { head } = await commit_work({ path: ref.path, message: options.message });
    this.#emit("workspace.merge.started", { workspace_id: ref.workspace_id });
    const result = await merge_into_checkout({
      root: this.#root,
      task_commit: head,
      base_commit: ref.base_commit,
      verify: options.verify,
      workspace_id: ref.workspace_id,
      before_apply: (paths) => this.#snapshot_before_merge(ref, paths),
    });
    if (result.kind === "merged") this.#emit("workspace.merge.completed", { workspace_id: ref.workspace_id, merged_ref: result.merged_commit });
    else if (result.kind === "conflicted") {
      const detail = result.conflicts.map((conflict) => [...conflict.messages, ...conflict.hunks].join("\n")).join("\n\n");
      this.#emit("workspace.merge.conflicted", {
        workspace_id: ref.workspace_id,
        cause: "conflict",
        conflicting_files: result.files.length > 0 ? result.files : ["."],
        ...(detail.trim() === "" ? {} : { detail: detail.slice(0, MAX_DETAIL) }),
      });
    } else {
      // No event of its own: a merge that did not land waits for the Scheduler's decision, as a conflict does.
      this.#emit("workspace.merge.conflicted", {
        workspace_id: ref.workspace_id,
        cause: "verification_failed",
        conflicting_files: result.changed_paths.length > 0 ? result.changed_paths : ["."],
        detail: `${VERIFICATION_FAILED_DETAIL}: ${result.outcome.reason}`.slice(0, MAX_DETAIL),
      });
    }
    return result;
  }

  /** The checkout's files a merge is about to write, snapshotted and linked to the workspace and its task (issue 17). */
  async #snapshot_before_merge(ref: WorkspaceRef, paths: readonly string[]): Promise<void> {
    const record = await SnapshotStore.for_project(this.#session.project.layout).take({
      root: this.#root,
      session_id: this.#session.id,
      cause: "merge",
      phase: "before",
      paths,
      links: { workspace_id: ref.workspace_id, task_id: ref.task_id },
    });
    this.#emit("snapshot.taken", snapshot_taken_payload(record));
  }

  abandon_workspace(ref: WorkspaceRef, reason: string): void {
    this.#emit("workspace.abandoned", { workspace_id: ref.workspace_id, reason });
  }

  reactivate_workspace(ref: WorkspaceRef, decision: string): void {
    this.#emit("workspace.reactivated", { workspace_id: ref.workspace_id, decision });
  }

  /** Removes the workspace's files (and its branch); the row stays, `cleaned`. */
  async cleanup_workspace(ref: WorkspaceRef): Promise<void> {
    if (ref.strategy === "worktree") await remove_worktree({ root: this.#root, path: ref.path, ...(ref.branch === undefined ? {} : { branch: ref.branch }) });
    else if (ref.strategy === "isolated_copy") remove_copy(ref.path);
    this.#emit("workspace.cleaned", { workspace_id: ref.workspace_id });
  }

  /**
   * On resume: makes a merge cut off midway all or nothing (recording a completed one), then unlocks the
   * worktrees of a runtime that is gone and prunes the missing ones. A rolled-back merge stays `merge started`
   * in its row until the Scheduler merges it again.
   */
  async recover(): Promise<{ merge: Recovery; unlocked: string[] }> {
    const merge = await recover_merge(this.#root);
    if (merge.kind === "completed" && merge.workspace_id !== undefined) {
      this.#emit("workspace.merge.completed", { workspace_id: merge.workspace_id, merged_ref: merge.merged_commit });
    }
    const unlocked = await prune_worktrees(this.#root);
    return { merge, unlocked };
  }
}

import { and, desc, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { new_id, TaskId, type AgentId } from "../../contracts/ids.js";
import type { WorkspaceStatus } from "../../contracts/status.js";
import { CODE_TASK_TYPES, verification_label, type TaskSpec } from "../../contracts/task.js";
import { tasks, workspaces } from "../../db/schema.js";
import type { WorkspaceConfinement } from "../../permissions/confinement.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { ShellRunOutput } from "../../tools/shell/command.js";
import { WorkspaceManager, workspace_ref, type WorkspaceRef } from "../../workspaces/manager.js";
import type { MergeResult, VerifyOutcome } from "../../workspaces/merge-result.js";
import { workspace_strategy_for, type StrategyAnswer } from "../../workspaces/strategy.js";

/**
 * Where a code task works while it is the only one unfinished: the main checkout, as a single agent does (the
 * default), or a worktree of its own whose work lands through the merge queue, re-verified (config `lone_task`).
 */
export const LoneTask = v.picklist(["checkout", "worktree"]);
export type LoneTask = v.InferOutput<typeof LoneTask>;

/** A task's latest worktree in one of `statuses`, from its `workspaces` row. */
function task_worktree(session: Session, task_id: string, statuses: readonly WorkspaceStatus[] = ["active"]): WorkspaceRef | undefined {
  const row = session.connection.db
    .select()
    .from(workspaces)
    .where(and(eq(workspaces.task_id, task_id), eq(workspaces.strategy, "worktree"), inArray(workspaces.status, [...statuses])))
    .orderBy(desc(workspaces.created_at))
    .get();
  // A worktree without its base could not be merged three-way: it is not offered.
  return row === undefined || row.base_ref === null ? undefined : workspace_ref(row);
}

/** What the tool calls of a task in its worktree carry (see `ToolCaller.workspace`); none in the main checkout. */
export function confinement_of(session: Session, task_id: string): WorkspaceConfinement | undefined {
  const ref = task_worktree(session, task_id);
  if (ref === undefined) return undefined;
  return { workspace_id: ref.workspace_id, root: ref.path, project_root: session.project.layout.root };
}

/** What verification reads of a `shell.run` result (the registry hands back the tool's output without its effects). */
const VerificationRun = v.object({
  exit_code: ShellRunOutput.entries.exit_code,
  stdout_tail: ShellRunOutput.entries.stdout_tail,
  stderr_tail: ShellRunOutput.entries.stderr_tail,
});

/**
 * Where each task of a wave works. In a git project, while more than one code-changing task is unfinished,
 * each runs in a worktree of its own made from one snapshot of the checkout; a lone task works in the main
 * checkout, as a single agent does, unless `lone_task` says worktree. A project that is not a git repository
 * runs its tasks one at a time in the main folder (the Scheduler caps `max_parallel` at 1): a copy could not be
 * merged back all or nothing.
 */
export class TaskWorkspaces {
  readonly #session: Session;
  readonly #registry: ToolRegistry;
  readonly #manager: WorkspaceManager;
  readonly #lone_task: LoneTask;
  #strategy: Promise<StrategyAnswer> | undefined;

  constructor(session: Session, registry: ToolRegistry, lone_task: LoneTask = "checkout") {
    this.#session = session;
    this.#registry = registry;
    this.#manager = new WorkspaceManager(session);
    this.#lone_task = lone_task;
  }

  /** Whether tasks may run side by side here: only a git checkout can give each its worktree. */
  async parallel_capable(): Promise<boolean> {
    return (await this.serial_reason()) === undefined;
  }

  /** Why tasks run one at a time in the project folder here; undefined in a git checkout. */
  async serial_reason(): Promise<string | undefined> {
    this.#strategy ??= workspace_strategy_for(this.#session.project.layout.root);
    const answer = await this.#strategy;
    return answer.strategy === "worktree" ? undefined : `${answer.git}: tasks run one at a time in the project folder`;
  }

  /**
   * The workspace of each task to dispatch, or none (the main checkout), made before the task starts. A task
   * that still has an active worktree (interrupted by a crash, its work in place) goes on in it: its work so
   * far is there, and its base is the one it was made from.
   */
  async for_dispatch(dispatch: readonly { task_id: string; agent_id: AgentId }[]): Promise<Map<string, WorkspaceRef>> {
    const chosen = new Map<string, WorkspaceRef>();
    const fresh: { task_id: string; agent_id: AgentId }[] = [];
    for (const agent of dispatch) {
      const existing = this.ref_of(agent.task_id);
      if (existing === undefined) fresh.push(agent);
      else chosen.set(agent.task_id, existing);
    }
    if (fresh.length === 0 || !(await this.parallel_capable())) return chosen;
    if (this.#lone_task === "checkout" && this.#unfinished_code_tasks() <= 1) return chosen;
    const { commit } = await this.#manager.snapshot();
    for (const { task_id, agent_id } of fresh) {
      const plan = { task_id: v.parse(TaskId, task_id), strategy: "worktree" as const, base_commit: commit, agent_id, workspace_id: new_id("workspace") };
      chosen.set(task_id, await this.#manager.create_workspace(plan));
    }
    return chosen;
  }

  #unfinished_code_tasks(): number {
    return this.#session.connection.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(inArray(tasks.type, [...CODE_TASK_TYPES]), inArray(tasks.status, ["pending", "running", "interrupted"])))
      .all().length;
  }

  /** The task's latest worktree in one of `statuses` (its active one by default), as recorded. */
  ref_of(task_id: string, statuses: readonly WorkspaceStatus[] = ["active"]): WorkspaceRef | undefined {
    return task_worktree(this.#session, task_id, statuses);
  }

  /**
   * A workspace whose work will not land: recorded abandoned. Its worktree and branch stay for the 3 days of
   * seeds 003 §15 (the attempt's work can still be looked at); the sweep of a later `air run` removes them.
   */
  async abandon(ref: WorkspaceRef, reason: string): Promise<void> {
    this.#manager.abandon_workspace(ref, reason);
  }

  /** Commits the task's work as air and merges it into the checkout, re-running its verification there. */
  merge(ref: WorkspaceRef, task: TaskSpec): Promise<MergeResult> {
    return this.#manager.merge_workspace(ref, { message: `air: ${task.title} (${task.id})`, verify: () => this.#verify(task) });
  }

  /** A merged workspace has nothing more to give: its worktree and branch go, its row stays. */
  cleanup(ref: WorkspaceRef): Promise<void> {
    return this.#manager.cleanup_workspace(ref);
  }

  /** A merge cut off midway and stale worktree locks, on resume; a folder that is not a git checkout has neither. */
  async recover(): Promise<void> {
    if (await this.parallel_capable()) await this.#manager.recover();
  }

  /** The task's verification commands and tools on the merged checkout, through the permission engine like any call. */
  async #verify(task: TaskSpec): Promise<VerifyOutcome> {
    const caller = { session: this.#session, task_id: v.parse(TaskId, task.id) };
    for (const command of task.verification.commands ?? []) {
      const outcome = await this.#registry.call({ tool_name: "shell.run", input: { command } }, caller);
      if (!outcome.ok) return { passed: false, reason: `\`${command}\` could not run: ${outcome.error.message}` };
      const output = v.parse(VerificationRun, outcome.output);
      if (output.exit_code !== 0) {
        return { passed: false, reason: `\`${command}\` exited ${output.exit_code} on the merged checkout`, detail: output.stderr_tail || output.stdout_tail };
      }
    }
    for (const tool of task.verification.tools) {
      const outcome = await this.#registry.call(tool, caller);
      if (!outcome.ok) return { passed: false, reason: `${verification_label(tool)} failed on the merged checkout: ${outcome.error.message}` };
    }
    return { passed: true };
  }
}

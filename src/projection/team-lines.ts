/**
 * The lines a team's run shows, in `air run`'s text and in the TUI's transcript alike: each wave (what starts
 * together, what waits and why), where each task's agent works, and each merge of its work.
 */
import type { EventType, PayloadOf, RuntimeEvent } from "../contracts/events/registry.js";
import type { WavePlanned } from "../contracts/events/wave.js";
import { describe_wait } from "../orchestration/waves/describe-wait.js";
import { workspace_branch } from "../workspaces/worktree.js";
import type { TeamLine, TeamWorkspace } from "./types.js";

/** A workspace as its `workspace.created` made it; a worktree's branch is named after its task and itself. */
export function team_workspace(created: PayloadOf<"workspace.created">): TeamWorkspace {
  const { task_id, workspace_id, strategy, path } = created;
  const branch = strategy === "worktree" && task_id !== undefined ? workspace_branch(task_id, workspace_id) : null;
  return { task_id: task_id ?? null, strategy, path, branch };
}

/** What a line names that its event only references: task titles and workspaces, as far as they are known. */
export type TeamNames = {
  title_of(task_id: string): string | undefined;
  workspace_of(workspace_id: string): TeamWorkspace | undefined;
};

export const TEAM_EVENT_TYPES = [
  "wave.planned",
  "task.started",
  "workspace.merge.started",
  "workspace.merge.completed",
  "workspace.merge.conflicted",
  "workspace.abandoned",
] as const satisfies readonly EventType[];
type TeamEvent = RuntimeEvent<(typeof TEAM_EVENT_TYPES)[number]>;

const TEAM_TYPES: ReadonlySet<string> = new Set(TEAM_EVENT_TYPES);

export function is_team_event(event: RuntimeEvent): event is TeamEvent {
  return TEAM_TYPES.has(event.type);
}

/** A task as a line names it: its title and id, or its id alone when its title is not known. */
export function named(names: TeamNames, task_id: string): string {
  const title = names.title_of(task_id);
  return title === undefined ? task_id : `${title} (${task_id})`;
}

function where(workspace: TeamWorkspace | undefined): string {
  if (workspace === undefined || workspace.strategy === "main") return "in the project folder";
  const branch = workspace.branch === null ? "" : ` on branch ${workspace.branch}`;
  return `in ${workspace.strategy === "worktree" ? "worktree" : "a copy at"} ${workspace.path}${branch}`;
}

/** A wave: what starts together, then one line per waiting task with its reason; first, once, why one at a time. */
function wave_lines(wave: WavePlanned): TeamLine[] {
  const serial: TeamLine[] = wave.one_at_a_time === undefined ? [] : [{ tone: "info", text: `! ${wave.one_at_a_time}` }];
  const started = wave.dispatched.map((task) => `${task.title} (${task.task_id})`);
  const head =
    started.length === 0
      ? "▸ wave: nothing new starts"
      : started.length === 1
        ? `▸ wave: ${started[0]} starts`
        : `▸ wave: ${started.length} tasks run together: ${started.join(", ")}`;
  const waiting = wave.waiting.map((task): TeamLine => ({ tone: "info", text: `  · ${task.title} (${task.task_id}) ${describe_wait(task.reason)}` }));
  return [...serial, { tone: "info", text: head }, ...waiting];
}

function merge_subject(names: TeamNames, workspace_id: string): string {
  const task_id = names.workspace_of(workspace_id)?.task_id;
  return task_id === null || task_id === undefined ? `workspace ${workspace_id}` : named(names, task_id);
}

function merge_lines(event: Exclude<TeamEvent, RuntimeEvent<"wave.planned" | "task.started">>, names: TeamNames): TeamLine[] {
  const subject = merge_subject(names, event.payload.workspace_id);
  switch (event.type) {
    case "workspace.merge.started":
      return [{ tone: "info", text: `⇢ merging ${subject} into the checkout` }];
    case "workspace.merge.completed":
      return [{ tone: "info", text: `✓ merged ${subject}` }];
    case "workspace.merge.conflicted": {
      const { cause, detail, conflicting_files } = event.payload;
      const text =
        cause === "verification_failed"
          ? `✗ merge of ${subject} rolled back, the checkout restored: ${detail ?? "its verification failed"}`
          : `✗ merge of ${subject} conflicted in ${conflicting_files.join(", ")}; the checkout is as it was`;
      return [{ tone: "error", text }];
    }
    case "workspace.abandoned":
      return [{ tone: "info", text: `  workspace of ${subject} given up: ${event.payload.reason}` }];
  }
}

/** The lines of one team event. */
export function team_lines(event: TeamEvent, names: TeamNames): TeamLine[] {
  switch (event.type) {
    case "wave.planned":
      return wave_lines(event.payload);
    case "task.started": {
      const { task_id, agent_id, workspace_id } = event.payload;
      const agent = agent_id === undefined ? "" : ` — agent ${agent_id}`;
      const workspace = workspace_id === undefined ? undefined : names.workspace_of(workspace_id);
      return [{ tone: "info", text: `▸ ${named(names, task_id)} started${agent} ${where(workspace)}` }];
    }
    default:
      return merge_lines(event, names);
  }
}

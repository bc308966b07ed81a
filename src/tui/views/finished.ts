import { MODEL_COMPLETE_TOOL } from "../../contracts/tool.js";
import type { CommandRunView, DraftView, MessageView, PermissionPromptView, ProjectionState, TaskView, ToolRunView } from "../../projection/types.js";
import { type EvidenceLine, evidence_lines } from "./evidence.js";

/**
 * Finished things: printed once into ink's `<Static>` and never redrawn. Each is decided when it is first
 * seen finished and kept as it was then (a diff is read once, here), so the list only ever grows.
 */
type Diff = { readonly artifact_id: string; readonly text: string | null };
export type Notice = { readonly tone: "info" | "error"; readonly text: string };

export type FinishedItem = { readonly key: string; readonly at: string } & (
  | { readonly kind: "message"; readonly message: MessageView }
  /** A worker's words, labelled with who said them (its agent type and its task). */
  | { readonly kind: "agent_message"; readonly message: MessageView; readonly label: string }
  | { readonly kind: "failed_draft"; readonly draft: DraftView }
  | {
      readonly kind: "tool_run";
      readonly run: ToolRunView;
      readonly diffs: readonly Diff[];
      /** The commands it ran (`shell.run`): shown on its line, not again as lines of their own. */
      readonly commands: readonly CommandRunView[];
      readonly evidence: readonly EvidenceLine[];
    }
  | { readonly kind: "command_run"; readonly run: CommandRunView }
  | { readonly kind: "task"; readonly task: TaskView; readonly evidence: readonly EvidenceLine[] }
  /** Collapsed evidence printed in full on request. */
  | { readonly kind: "evidence"; readonly title: string; readonly evidence: readonly EvidenceLine[] }
  | { readonly kind: "prompt"; readonly prompt: PermissionPromptView }
  | { readonly kind: "notice"; readonly notice: Notice }
);

const TASK_DONE = new Set(["completed", "failed", "cancelled", "interrupted"]);
/** The roles whose closing words become their WorkerResult's summary, which the final message shows. */
const SUMMARIZING_AGENTS = new Set(["executor", "debugger"]);

/** A worker's model turns are tool runs too; the screen shows them as the agent's words instead. */
export function is_model_turn(run: { readonly tool_name: string }): boolean {
  return run.tool_name === MODEL_COMPLETE_TOOL;
}

/** The user's conversation with the Main Agent (worker conversations show as their agents' words and tool runs). */
function is_main<T extends { readonly task_id: unknown; readonly agent_id: unknown }>(item: T): boolean {
  return item.task_id === null && item.agent_id === null;
}

/**
 * A worker's words worth a transcript entry: any text of its model but the closing words of a summarizing
 * role (a turn with no tool call), which are its result's summary and printed in the final message.
 */
function is_agent_words(state: ProjectionState, message: MessageView): boolean {
  if (is_main(message) || message.role !== "assistant" || message.text.trim() === "") return false;
  if (message.tool_uses.length > 0) return true;
  const agent = state.agents.find((candidate) => candidate.id === message.agent_id);
  return agent === undefined || !SUMMARIZING_AGENTS.has(agent.agent_type);
}

function agent_label(state: ProjectionState, message: MessageView): string {
  const agent = state.agents.find((candidate) => candidate.id === message.agent_id);
  const task = state.tasks.find((candidate) => candidate.id === message.task_id);
  return [agent?.agent_type ?? "agent", task?.title].filter((part) => part !== undefined).join(" · ");
}

function read_diff(read_artifact: (id: string) => string, artifact_id: string): Diff {
  try {
    return { artifact_id, text: read_artifact(artifact_id) };
  } catch {
    return { artifact_id, text: null };
  }
}

function tool_item(state: ProjectionState, run: ToolRunView, read_artifact: (id: string) => string): FinishedItem {
  const artifacts = state.artifacts.filter((artifact) => run.artifact_ids.includes(artifact.id) || artifact.tool_run_id === run.id);
  const diffs = artifacts.filter((artifact) => artifact.type === "diff").map((artifact) => read_diff(read_artifact, artifact.id));
  const evidence = state.evidence.filter((entry) => entry.tool_run_id === run.id);
  return {
    key: `t:${run.id}`,
    at: run.completed_at ?? run.started_at,
    kind: "tool_run",
    run,
    diffs,
    commands: state.command_runs.filter((command) => command.tool_run_id === run.id),
    evidence: evidence_lines(
      state,
      evidence,
      artifacts.filter((artifact) => artifact.type !== "diff"),
    ),
  };
}

/** A command run of a tool run shows on that tool run's line; only commands no tool ran have lines of their own. */
function runs_alone(state: ProjectionState, run: CommandRunView): boolean {
  return run.tool_run_id === null || !state.tool_runs.some((tool) => tool.id === run.tool_run_id);
}

function candidates(state: ProjectionState, read_artifact: (id: string) => string): Array<{ key: string; make: () => FinishedItem }> {
  return [
    ...state.conversation.messages
      .filter((message) => is_main(message) && message.text.trim() !== "")
      .map((message) => ({ key: `m:${message.id}`, make: (): FinishedItem => ({ key: `m:${message.id}`, at: message.created_at, kind: "message", message }) })),
    ...state.conversation.messages
      .filter((message) => is_agent_words(state, message))
      .map((message) => ({
        key: `a:${message.id}`,
        make: (): FinishedItem => ({ key: `a:${message.id}`, at: message.created_at, kind: "agent_message", message, label: agent_label(state, message) }),
      })),
    ...state.conversation.drafts
      .filter((draft) => is_main(draft) && draft.status === "error")
      .map((draft) => ({
        key: `d:${draft.message_id}`,
        make: (): FinishedItem => ({ key: `d:${draft.message_id}`, at: draft.started_at, kind: "failed_draft", draft }),
      })),
    ...state.tool_runs
      .filter((run) => run.status !== "running" && !is_model_turn(run))
      .map((run) => ({ key: `t:${run.id}`, make: () => tool_item(state, run, read_artifact) })),
    ...state.command_runs
      .filter((run) => run.status !== "running" && runs_alone(state, run))
      .map((run) => ({
        key: `c:${run.id}`,
        make: (): FinishedItem => ({ key: `c:${run.id}`, at: run.completed_at ?? run.started_at, kind: "command_run", run }),
      })),
    ...state.tasks
      .filter((task) => TASK_DONE.has(task.status))
      .map((task) => ({
        key: `k:${task.id}`,
        make: (): FinishedItem => ({
          key: `k:${task.id}`,
          at: task.completed_at ?? task.created_at,
          kind: "task",
          task,
          evidence: evidence_lines(
            state,
            state.evidence.filter((entry) => entry.task_id === task.id),
            [],
          ),
        }),
      })),
    ...state.team_lines.map((line) => ({
      key: `w:${line.id}`,
      make: (): FinishedItem => ({ key: `w:${line.id}`, at: line.at, kind: "notice", notice: { tone: line.tone, text: line.text } }),
    })),
    ...state.permission_prompts
      .filter((prompt) => prompt.status === "resolved")
      .map((prompt) => ({
        key: `p:${prompt.prompt_id}`,
        make: (): FinishedItem => ({ key: `p:${prompt.prompt_id}`, at: prompt.resolved_at ?? prompt.requested_at, kind: "prompt", prompt }),
      })),
  ];
}

/** The items newly finished in `state` (not in `seen`), oldest first; `seen` gains their keys. */
export function collect_finished(state: ProjectionState, seen: Set<string>, read_artifact: (id: string) => string): FinishedItem[] {
  const fresh = candidates(state, read_artifact)
    .filter((candidate) => !seen.has(candidate.key))
    .map((candidate) => candidate.make());
  for (const item of fresh) seen.add(item.key);
  return fresh.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** What `ctrl+o` expands: the newest printed item whose evidence is still collapsed, as an item of its own. */
export function expand_evidence(items: readonly FinishedItem[], expanded: ReadonlySet<string>): FinishedItem | undefined {
  const item = items.findLast(
    (candidate) => (candidate.kind === "tool_run" || candidate.kind === "task") && candidate.evidence.length > 0 && !expanded.has(candidate.key),
  );
  if (item === undefined || (item.kind !== "tool_run" && item.kind !== "task")) return undefined;
  const title = item.kind === "task" ? `task "${item.task.title}"` : `${item.run.tool_name} ${item.run.input_summary}`.trim();
  return { key: `e:${item.key}`, at: new Date().toISOString(), kind: "evidence", title, evidence: item.evidence };
}

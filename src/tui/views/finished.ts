import { MODEL_COMPLETE_TOOL } from "../../contracts/tool.js";
import type {
  ArtifactView,
  CommandRunView,
  DraftView,
  EvidenceView,
  MessageView,
  PermissionPromptView,
  ProjectionState,
  TaskView,
  ToolRunView,
} from "../../projection/types.js";

/**
 * Finished things: printed once into ink's `<Static>` and never redrawn. Each is decided when it is first
 * seen finished and kept as it was then (a diff is read once, here), so the list only ever grows.
 */
type Diff = { readonly artifact_id: string; readonly text: string | null };
export type Notice = { readonly tone: "info" | "error"; readonly text: string };

export type FinishedItem = { readonly key: string; readonly at: string } & (
  | { readonly kind: "message"; readonly message: MessageView }
  | { readonly kind: "failed_draft"; readonly draft: DraftView }
  | {
      readonly kind: "tool_run";
      readonly run: ToolRunView;
      readonly diffs: readonly Diff[];
      readonly evidence: readonly EvidenceView[];
      readonly artifacts: readonly ArtifactView[];
    }
  | { readonly kind: "command_run"; readonly run: CommandRunView }
  | { readonly kind: "task"; readonly task: TaskView; readonly evidence: readonly EvidenceView[] }
  | { readonly kind: "prompt"; readonly prompt: PermissionPromptView }
  | { readonly kind: "notice"; readonly notice: Notice }
);

const TASK_DONE = new Set(["completed", "failed", "cancelled", "interrupted"]);

/** A worker's model turns are tool runs too; the screen shows them as the agent's streamed text instead. */
export function is_model_turn(run: { readonly tool_name: string }): boolean {
  return run.tool_name === MODEL_COMPLETE_TOOL;
}
const MAX_EVIDENCE = 8;

/** The user's conversation with the Main Agent (worker conversations show as their tool runs). */
function is_main<T extends { readonly task_id: unknown; readonly agent_id: unknown }>(item: T): boolean {
  return item.task_id === null && item.agent_id === null;
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
  return {
    key: `t:${run.id}`,
    at: run.completed_at ?? run.started_at,
    kind: "tool_run",
    run,
    diffs,
    evidence: state.evidence.filter((entry) => entry.tool_run_id === run.id).slice(0, MAX_EVIDENCE),
    artifacts: artifacts.filter((artifact) => artifact.type !== "diff"),
  };
}

function candidates(state: ProjectionState, read_artifact: (id: string) => string): Array<{ key: string; make: () => FinishedItem }> {
  return [
    ...state.conversation.messages
      .filter((message) => is_main(message) && message.text.trim() !== "")
      .map((message) => ({ key: `m:${message.id}`, make: (): FinishedItem => ({ key: `m:${message.id}`, at: message.created_at, kind: "message", message }) })),
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
      .filter((run) => run.status !== "running")
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
          evidence: state.evidence.filter((entry) => entry.task_id === task.id).slice(0, MAX_EVIDENCE),
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

import type { RuntimeEvent } from "../contracts/events/registry.js";
import { is_team_event, team_lines, team_workspace, TEAM_EVENT_TYPES, type TeamNames } from "./team-lines.js";
import type { ProjectionState } from "./types.js";

/** The events the team's part of the projection folds: its lines' events, and the workspaces they name. */
export const TEAM_PART_EVENTS: readonly string[] = [...TEAM_EVENT_TYPES, "workspace.created"];

function names_of(state: ProjectionState): TeamNames {
  return {
    title_of: (task_id) => state.tasks.find((task) => task.id === task_id)?.title,
    workspace_of: (workspace_id) => state.workspaces.find((workspace) => workspace.id === workspace_id),
  };
}

/** Workspaces as they were made, and one transcript line per wave, agent start and merge step. */
export function fold_team(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  const with_workspace =
    event.type === "workspace.created"
      ? { ...state, workspaces: [...state.workspaces, { id: event.payload.workspace_id, ...team_workspace(event.payload) }] }
      : state;
  if (!is_team_event(event)) return with_workspace;
  const lines = team_lines(event, names_of(with_workspace)).map((line, index) => ({ id: `${event.id}:${index}`, at: event.timestamp, ...line }));
  return { ...with_workspace, team_lines: [...with_workspace.team_lines, ...lines] };
}

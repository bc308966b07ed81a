import type { RuntimeEvent } from "../contracts/events/registry.js";
import { team_workspace, type TeamNames } from "../projection/team-lines.js";
import type { TeamWorkspace } from "../projection/types.js";

/**
 * The names a run's events reference, learnt from the events seen so far on the bus: task titles from
 * `task.created` and waves, workspaces from `workspace.created`. A task of an earlier run shows by its id.
 */
export class RunNames implements TeamNames {
  readonly #titles = new Map<string, string>();
  readonly #workspaces = new Map<string, TeamWorkspace>();
  readonly #agents = new Map<string, string>();

  learn(event: RuntimeEvent): void {
    switch (event.type) {
      case "task.created":
        this.#titles.set(event.payload.task.id, event.payload.task.title);
        return;
      case "wave.planned":
        for (const task of [...event.payload.dispatched, ...event.payload.waiting]) this.#titles.set(task.task_id, task.title);
        return;
      case "workspace.created":
        this.#workspaces.set(event.payload.workspace_id, team_workspace(event.payload));
        return;
      case "task.started":
        if (event.payload.agent_id !== undefined) this.#agents.set(event.payload.agent_id, event.payload.task_id);
        return;
      default:
        return;
    }
  }

  title_of(task_id: string): string | undefined {
    return this.#titles.get(task_id);
  }

  workspace_of(workspace_id: string): TeamWorkspace | undefined {
    return this.#workspaces.get(workspace_id);
  }

  /** The task an agent was started for, by its title when known. */
  task_of_agent(agent_id: string): string | undefined {
    const task_id = this.#agents.get(agent_id);
    return task_id === undefined ? undefined : (this.title_of(task_id) ?? task_id);
  }
}

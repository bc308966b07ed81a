import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { ListedUsage, TaskListing } from "../../contracts/task-listing.js";
import type { ProjectionState, TaskView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";
import { StatusGlyph } from "./glyphs.js";
import { compact_number } from "./hud.js";

/** The tasks of a team: every one the Main Agent planned (an inline compaction is no one's task). */
export function team_tasks(state: ProjectionState): readonly TaskView[] {
  return state.tasks.filter((task) => task.type !== "compact");
}

/** Lines the team view takes: one per task and the total, when there is a team (more than one task). */
export function team_lines_count(state: ProjectionState): number {
  const count = team_tasks(state).length;
  return count > 1 ? count + 1 : 0;
}

function usage_text(usage: ListedUsage): string {
  const cost = usage.cost_usd === null ? "cost –" : `$${usage.cost_usd.toFixed(usage.cost_usd < 1 ? 4 : 2)}`;
  const turns = usage.turns === 1 ? "1 turn" : `${usage.turns} turns`;
  return `${compact_number(usage.input_tokens + usage.output_tokens)} tok · ${cost} · ${turns}`;
}

/**
 * One line per task of a team — status, title, what its model calls used, its agent and its worktree's
 * branch (cut first on a narrow screen) — and the total over every model call of the session. The usage
 * comes from the rows `air tasks` reads (`listing`), read again only when a task or a model call changed;
 * without it the lines show no usage.
 */
export function TeamView(props: { readonly state: ProjectionState; readonly listing: TaskListing | undefined; readonly tick: number }): ReactNode {
  const tasks = team_tasks(props.state);
  if (tasks.length <= 1) return null;
  const usage = new Map(props.listing?.tasks.map((task) => [task.id, task.usage]));
  // The newest workspace of each task is the one it works in (a retry gets a fresh one).
  const workspaces = new Map(props.state.workspaces.map((workspace) => [workspace.task_id, workspace]));
  return h(
    Box,
    { flexDirection: "column" },
    ...tasks.map((task) => {
      const used = usage.get(task.id);
      const workspace = workspaces.get(task.id);
      const where = workspace === undefined || workspace.strategy === "main" ? "" : ` · ${workspace.branch ?? workspace.path}`;
      return h(
        Text,
        { key: task.id, wrap: "truncate-end" },
        h(StatusGlyph, { status: task.status, tick: props.tick }),
        ` ${clean_line(task.title)}`,
        task.attempt > 1 ? ` (attempt ${task.attempt})` : "",
        h(Text, { dimColor: true }, used === undefined ? "" : ` · ${usage_text(used)}`, task.agent_id === null ? "" : ` · ${task.agent_id}`, where),
      );
    }),
    h(Text, { key: "total", dimColor: true }, `  total ${props.listing === undefined ? "–" : usage_text(props.listing.total)} (the Main Agent's too)`),
  );
}

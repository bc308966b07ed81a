import type { RuntimeEvent } from "../contracts/events/registry.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import { is_team_event, named, team_lines } from "../projection/team-lines.js";
import { plan_text, plan_view } from "./plan-view.js";
import type { RunNames } from "./run-names.js";

function brief(value: unknown, limit = 100): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** The lines of a task's own events and its worker's. */
function work_lines(event: RuntimeEvent, names: RunNames): string[] {
  switch (event.type) {
    case "task.created":
      return [`▸ task ${event.payload.task.title}`];
    case "task.completed":
      return [`✓ ${named(names, event.payload.task_id)} completed`];
    case "task.failed":
      return [`✗ ${named(names, event.payload.task_id)} failed: ${event.payload.error.message}`];
    case "task.blocked":
      return [`! ${named(names, event.payload.task_id)} blocked: ${event.payload.reason}`];
    case "task.retried":
      return [`↻ ${named(names, event.payload.task_id)}: ${event.payload.reason}`];
    case "agent.started": {
      if (event.payload.status !== "running") return [];
      const task = names.task_of_agent(event.payload.agent_id);
      return [`  worker ${event.payload.agent_id} ready${task === undefined ? "" : ` for ${task}`}`];
    }
    case "agent.failed":
      return [`  worker ${event.payload.agent_id} failed: ${event.payload.error.message}`];
    case "agent.lost":
      return [`  worker ${event.payload.agent_id} lost: ${event.payload.reason}`];
    default:
      return [];
  }
}

/** The lines of one event worth showing while a request runs; none for the rest. `names` must have learnt it first. */
export function progress_lines(event: RuntimeEvent, names: RunNames): string[] {
  if (is_team_event(event)) return team_lines(event, names).map((line) => line.text);
  switch (event.type) {
    case "plan.proposed":
      return [plan_text(plan_view(event.payload.tasks, event.payload.awaiting_confirmation))];
    case "tool.started":
      return [event.payload.tool_name === MODEL_COMPLETE_TOOL ? "  … thinking" : `  → ${event.payload.tool_name} ${brief(event.payload.input, 80)}`];
    case "tool.failed":
      return [`  ✗ ${event.payload.error.message}`];
    case "command.started":
      return [`  $ ${event.payload.command}`];
    case "command.completed":
      return [`    exit ${event.payload.exit_code} (${Math.round(event.payload.duration_ms)} ms)`];
    case "memory.candidate.created":
      return [`◆ 1 memory candidate (${event.payload.memory_type}) — air memory review`];
    default:
      return work_lines(event, names);
  }
}

import type { RuntimeEvent } from "../contracts/events/registry.js";
import { field } from "../contracts/field.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import type { EventBus } from "../event-store/event-bus.js";
import { plan_text, plan_view } from "./plan-view.js";

export type OutputFormat = "text" | "json" | "stream-json";

/** A payload field as the line shows it: a string or a number; undefined for anything else. */
function shown(payload: unknown, key: string): string | undefined {
  const value = field(payload, key);
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

function brief(value: unknown, limit = 100): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** One human line per event worth showing while a request runs; undefined for the rest. */
function progress_line(event: RuntimeEvent): string | undefined {
  const p = event.payload as Record<string, unknown>;
  switch (event.type) {
    case "plan.proposed":
      return plan_text(plan_view(event.payload.tasks, event.payload.awaiting_confirmation));
    case "task.created":
      return `▸ task ${shown(p.task, "title") ?? ""}`;
    case "task.started":
      return `▸ task started (${shown(p, "task_id")})`;
    case "agent.started":
      return shown(p, "status") === "running" ? `  worker ${shown(p, "agent_id")} ready` : undefined;
    case "tool.started":
      return shown(p, "tool_name") === MODEL_COMPLETE_TOOL ? "  … thinking" : `  → ${shown(p, "tool_name")} ${brief(p.input, 80)}`;
    case "tool.failed":
      return `  ✗ ${shown(p.error, "message")}`;
    case "command.started":
      return `  $ ${shown(p, "command")}`;
    case "command.completed":
      return `    exit ${shown(p, "exit_code")} (${Math.round(Number(p.duration_ms))} ms)`;
    case "task.completed":
      return `✓ task completed`;
    case "task.failed":
      return `✗ task failed: ${shown(p.error, "message")}`;
    case "task.blocked":
      return `! task blocked: ${shown(p, "reason")}`;
    case "task.retried":
      return `↻ ${shown(p, "reason")}`;
    case "agent.failed":
    case "agent.lost":
      return `  worker ${event.type === "agent.lost" ? "lost" : "failed"}: ${shown(p, "reason") ?? shown(p.error, "message")}`;
    default:
      return undefined;
  }
}

/** Streams a run's progress: readable lines (text), every event as NDJSON (stream-json), or nothing (json). */
export function follow(bus: EventBus, format: OutputFormat, write: (text: string) => void): () => void {
  if (format === "json") return () => undefined;
  return bus.subscribe({}, (event) => {
    if (format === "stream-json") {
      write(`${JSON.stringify({ type: "event", event })}\n`);
      return;
    }
    const line = progress_line(event);
    if (line !== undefined) write(`${line}\n`);
  });
}

import type { RuntimeEvent } from "../contracts/events/registry.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import type { EventBus } from "../event-store/event-bus.js";

export type OutputFormat = "text" | "json" | "stream-json";

function field(payload: unknown, key: string): string | undefined {
  const value = (payload as Record<string, unknown>)[key];
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
    case "task.created":
      return `▸ task ${field(p.task, "title") ?? ""}`;
    case "task.started":
      return `▸ task started (${field(p, "task_id")})`;
    case "agent.started":
      return field(p, "status") === "running" ? `  worker ${field(p, "agent_id")} ready` : undefined;
    case "tool.started":
      return field(p, "tool_name") === MODEL_COMPLETE_TOOL ? "  … thinking" : `  → ${field(p, "tool_name")} ${brief(p.input, 80)}`;
    case "tool.failed":
      return `  ✗ ${field(p.error, "message")}`;
    case "command.started":
      return `  $ ${field(p, "command")}`;
    case "command.completed":
      return `    exit ${field(p, "exit_code")} (${Math.round(Number(p.duration_ms))} ms)`;
    case "task.completed":
      return `✓ task completed`;
    case "task.failed":
      return `✗ task failed: ${field(p.error, "message")}`;
    case "task.blocked":
      return `! task blocked: ${field(p, "reason")}`;
    case "task.retried":
      return `↻ ${field(p, "reason")}`;
    case "agent.failed":
    case "agent.lost":
      return `  worker ${event.type === "agent.lost" ? "lost" : "failed"}: ${field(p, "reason") ?? field(p.error, "message")}`;
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

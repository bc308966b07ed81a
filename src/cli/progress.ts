import type { EventBus } from "../event-store/event-bus.js";
import { progress_lines } from "./progress-lines.js";
import { RunNames } from "./run-names.js";

/** `stream-json` is Claude Code's message stream (stream-json.ts); `events` is air's own event stream. */
export type OutputFormat = "text" | "json" | "stream-json" | "events";

/**
 * Streams a run's progress: readable lines (text), every event as NDJSON (events), or nothing here (json,
 * and stream-json, whose lines stream-json.ts writes).
 */
export function follow(bus: EventBus, format: OutputFormat, write: (text: string) => void): () => void {
  if (format === "json" || format === "stream-json") return () => undefined;
  const names = new RunNames();
  return bus.subscribe({}, (event) => {
    if (format === "events") {
      write(`${JSON.stringify({ type: "event", event })}\n`);
      return;
    }
    names.learn(event);
    for (const line of progress_lines(event, names)) write(`${line}\n`);
  });
}

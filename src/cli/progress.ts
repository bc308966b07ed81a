import type { EventBus } from "../event-store/event-bus.js";
import { progress_lines } from "./progress-lines.js";
import { RunNames } from "./run-names.js";

export type OutputFormat = "text" | "json" | "stream-json";

/** Streams a run's progress: readable lines (text), every event as NDJSON (stream-json), or nothing (json). */
export function follow(bus: EventBus, format: OutputFormat, write: (text: string) => void): () => void {
  if (format === "json") return () => undefined;
  const names = new RunNames();
  return bus.subscribe({}, (event) => {
    if (format === "stream-json") {
      write(`${JSON.stringify({ type: "event", event })}\n`);
      return;
    }
    names.learn(event);
    for (const line of progress_lines(event, names)) write(`${line}\n`);
  });
}

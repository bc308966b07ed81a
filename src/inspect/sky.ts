import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { InspectionSink } from "./live-system.js";

/** Printed before anything connects: this is the only way air sends inspection data off the machine. */
const SKY_WARNING =
  "air: warning: --inspect=sky uploads every statechart message — machine definitions and snapshots with their " +
  "context (your requirement, file paths, model output, tool results) — to Stately's hosted inspector " +
  "(stately-sky-beta.mellson.partykit.dev), and anyone with the link it prints can watch them. " +
  "Use --inspect (local) or --inspect-file PATH to keep them on this machine.\n";

/**
 * The thread's program. `@statelyai/inspect`'s Sky inspector gives no way to close its socket and retries
 * an unreachable host forever, so it runs in a thread that air unrefs and terminates. Everything it prints
 * (the package prints the share link with console.log) is posted to air, which shows it on stderr. Kept
 * as source text, with the package located from here, so the same thread runs from the build and from
 * the sources (a `.ts` thread would need a loader that Node 20 does not pass to threads) and from any cwd.
 */
function sky_thread_source(): string {
  const inspect_module = pathToFileURL(createRequire(import.meta.url).resolve("@statelyai/inspect")).href;
  return `
const { parentPort } = require("node:worker_threads");
const { format } = require("node:util");
const report = (...args) => parentPort.postMessage(format(...args) + "\\n");
console.log = console.info = console.warn = console.error = report;
import(${JSON.stringify(inspect_module)}).then(({ createSkyInspector }) => {
  let reported = false;
  const sky = createSkyInspector({
    onerror: (error) => {
      if (reported) return;
      reported = true;
      report("air: Stately Sky is not reachable (" + ((error && error.message) || "connection failed") + "); retrying in the background");
    },
  });
  // Messages arrive converted already (src/inspect/wire.ts): they go to the socket as they are.
  parentPort.on("message", (line) => sky.adapter.send(JSON.parse(line)));
});
`;
}

export type SkySink = InspectionSink & { close(): void };

/**
 * `--inspect=sky`: warns on `report`, then starts the Sky inspector in an unref'd thread and forwards
 * every message to it. What the thread has to say (the share link, a connection error) goes to `report`,
 * never to stdout: that may carry `--output-format json`. `close` terminates the thread. `thread` is a
 * test seam: a module file that stands in for Stately's service.
 */
export function start_sky(report: (text: string) => void, thread?: URL): SkySink {
  report(SKY_WARNING);
  const worker = thread === undefined ? new Worker(sky_thread_source(), { eval: true }) : new Worker(thread);
  // Posted strings, not the thread's stdio streams: those would keep air alive even when unref'd.
  worker.on("message", (text: unknown) => report(String(text)));
  let open = true;
  worker.on("error", (error) => {
    open = false;
    report(`air: the Stately Sky inspector stopped: ${error.message}\n`);
  });
  worker.on("exit", () => void (open = false));
  // After the listeners: adding a "message" listener refs the thread's port again.
  worker.unref();
  return {
    write(line) {
      if (open) worker.postMessage(line);
    },
    close() {
      if (!open) return;
      open = false;
      void worker.terminate();
    },
  };
}

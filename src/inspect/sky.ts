import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { InspectionSink } from "./live-system.js";

/** Printed before anything connects: this is the only way air sends inspection data off the machine. */
export const SKY_WARNING =
  "air: warning: --inspect=sky uploads every statechart message — machine definitions and snapshots with their " +
  "context (your requirement, file paths, model output, tool results) — to Stately's hosted inspector " +
  "(stately-sky-beta.mellson.partykit.dev), and anyone with the link it prints can watch them. " +
  "Use --inspect (local) or --inspect-file PATH to keep them on this machine.\n";

/** The thread that runs the Sky inspector: a module file and the Node options it needs. */
export type SkyWorkerEntry = { readonly file: URL; readonly exec_argv: readonly string[] };

/** `sky-worker.js` from the build; from the sources (vitest, tsx) `sky-worker.ts` under tsx. */
export function default_sky_worker(): SkyWorkerEntry {
  if (import.meta.url.endsWith(".ts")) {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    return { file: new URL("./sky-worker.ts", import.meta.url), exec_argv: ["--import", loader] };
  }
  return { file: new URL("./sky-worker.js", import.meta.url), exec_argv: [] };
}

export type SkySink = InspectionSink & { close(): void };

/**
 * `--inspect=sky`: warns on `warn`, then starts the Sky inspector in an unref'd worker thread and
 * forwards every message to it. What the thread prints (the share link, a connection error) goes to
 * `report`, never to stdout, which may carry `--output-format json`. `close` terminates the thread.
 */
export function start_sky(report: (text: string) => void, entry: SkyWorkerEntry = default_sky_worker()): SkySink {
  report(SKY_WARNING);
  const worker = new Worker(entry.file, { execArgv: [...entry.exec_argv], stdout: true, stderr: true });
  worker.unref();
  worker.stdout.on("data", (chunk: Buffer) => report(chunk.toString("utf8")));
  worker.stderr.on("data", (chunk: Buffer) => report(chunk.toString("utf8")));
  let open = true;
  worker.on("error", (error) => {
    open = false;
    report(`air: the Stately Sky inspector stopped: ${error.message}\n`);
  });
  worker.on("exit", () => void (open = false));
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

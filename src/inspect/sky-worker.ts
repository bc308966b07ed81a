/**
 * The worker thread behind `--inspect=sky`: `@statelyai/inspect`'s Sky inspector, which uploads every
 * message to Stately's hosted service and prints a link to watch it. The package gives no way to close
 * its socket, and it retries an unreachable host forever, so it lives in a thread that air unrefs and
 * terminates: it can never keep air from exiting.
 */
import { parentPort } from "node:worker_threads";
import { createSkyInspector, type StatelyInspectionEvent } from "@statelyai/inspect";

let reported = false;
const sky = createSkyInspector({
  // The socket retries every few seconds; one line says so, instead of one per attempt.
  onerror: (error: { message?: string } | undefined) => {
    if (reported) return;
    reported = true;
    console.error(`air: Stately Sky is not reachable (${error?.message ?? "connection failed"}); retrying in the background`);
  },
});

// Messages arrive converted already (src/inspect/wire.ts): they go to the socket as they are.
parentPort?.on("message", (line: string) => sky.adapter.send(JSON.parse(line) as StatelyInspectionEvent));

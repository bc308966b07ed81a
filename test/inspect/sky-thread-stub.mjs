// Stands in for the Sky thread in tests, so no test sends anything off the machine. Like the real one
// against an unreachable host, it never ends on its own (a timer retries forever), and it posts what it
// has to say to air.
import { parentPort } from "node:worker_threads";

const report = (text) => parentPort.postMessage(`${text}\n`);
report("sky stub: started");
setInterval(() => undefined, 1_000);
parentPort.on("message", (line) => {
  const event = JSON.parse(line);
  if (event.type === "@xstate.actor") report(`sky stub: actor ${event.name}`);
});

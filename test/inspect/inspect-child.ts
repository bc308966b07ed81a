/**
 * A process that inspects the real machines the way `air run --inspect` will: it starts the inspection,
 * prints `url <url|none>`, starts the actors (printing `started`), then obeys stdin:
 *   churn N   N rounds of task events, then prints `churned`
 *   finish    stops reading stdin and returns, leaving everything else as it is (no close()): the
 *             process must exit by itself, whoever is connected
 *   crash     SIGKILLs itself
 *
 *   node --import tsx test/inspect/inspect-child.ts <--inspect value|-> <--inspect-file path|-> [sky thread stub]
 */
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { start_inspection } from "../../src/inspect/attach.js";
import { start_system } from "./helpers.js";

const [inspect, inspect_file, sky_file] = process.argv.slice(2);
const inspection = await start_inspection(
  { err: (text) => void process.stderr.write(text), cwd: process.cwd() },
  {
    ...(inspect === undefined || inspect === "-" ? {} : { inspect }),
    ...(inspect_file === undefined || inspect_file === "-" ? {} : { inspect_file }),
    ...(sky_file === undefined ? {} : { sky_thread: pathToFileURL(sky_file) }),
  },
);
if (inspection === undefined) throw new Error("no inspection requested");
process.stdout.write(`url ${inspection.url ?? "none"}\n`);
const running = await start_system(inspection.inspect);
process.stdout.write("started\n");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const [command, argument] = line.split(" ");
  if (command === "churn") {
    running.churn(Number(argument));
    process.stdout.write("churned\n");
  } else if (command === "finish") {
    lines.close();
    process.stdin.destroy();
    process.stdout.write("finishing\n");
  } else if (command === "crash") {
    process.kill(process.pid, "SIGKILL");
  }
});

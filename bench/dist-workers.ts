import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { DIST } from "./dist.js";

/**
 * The built worker side of air (dist/), typed by its sources, for the worker benches: the IPC contract and
 * codec, the bridge and worker-run machine, the task contract and the tool registry.
 */
type Ipc = typeof import("../src/contracts/ipc.js");
type Protocol = typeof import("../src/workers/protocol.js");
type Bridge = typeof import("../src/actors/worker-bridge/index.js");
type WorkerRun = typeof import("../src/actors/worker-run.js");
type Task = typeof import("../src/contracts/task.js");
type Builtin = typeof import("../src/tools/builtin.js");
type Engine = typeof import("../src/permissions/engine.js");

async function load<T>(path: string): Promise<T> {
  const url = new URL(path, DIST);
  if (!fs.existsSync(url)) throw new Error(`${url.pathname} is missing: run \`npm run build\` first (\`npm run bench\` does)`);
  return (await import(url.href)) as T;
}

export const workers = {
  ipc: await load<Ipc>("contracts/ipc.js"),
  protocol: await load<Protocol>("workers/protocol.js"),
  bridge: await load<Bridge>("actors/worker-bridge/index.js"),
  worker_run: await load<WorkerRun>("actors/worker-run.js"),
  task: await load<Task>("contracts/task.js"),
  builtin: await load<Builtin>("tools/builtin.js"),
  engine: await load<Engine>("permissions/engine.js"),
};

/** The real worker entry of the build, as the bridge starts it. */
export const WORKER_MAIN = fileURLToPath(new URL("workers/main.js", DIST));
/** The bench's minimal worker over the real protocol code (bench/fixtures/tool-worker.mjs). */
export const TOOL_WORKER = fileURLToPath(new URL("./fixtures/tool-worker.mjs", import.meta.url));

export type TaskSpec = import("../src/contracts/task.js").TaskSpec;
export type AgentBrief = import("../src/contracts/ipc.js").AgentBrief;

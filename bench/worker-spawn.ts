import { air } from "./dist.js";
import { LineChild, child_env } from "./child.js";
import { WORKER_MAIN, workers } from "./dist-workers.js";
import { median, ratios } from "./stats.js";
import { VerificationError } from "./verify.js";
import { bench_task, model_tools } from "./worker-task.js";

/**
 * Spawn → `worker.ready` of the real worker entry (dist/workers/main.js), spoken to over its stdio protocol
 * exactly as the bridge does (credential-free environment, the `agent.start` control encoded by the IPC
 * codec right after spawn, the first stdout line decoded as a worker→parent message), against the floor of
 * any stdio child: `node -e` that reads one line and writes one line back. Both are timed from just before
 * `spawn()` to the arrival of their first stdout line; runs interleave so drift hits both alike.
 */
export type SpawnResult = { readonly worker_ms: number; readonly node_ms: number; readonly ratio: number; readonly runs: number };

const LINE_TIMEOUT_MS = 15_000;
const EXIT_TIMEOUT_MS = 10_000;

/** Reads one line, answers one line, leaves when its stdin closes. */
const BARE_CHILD = [
  "let b='';process.stdin.setEncoding('utf8');",
  "process.stdin.on('data',c=>{b+=c;const i=b.indexOf('\\n');if(i<0)return;",
  "const m=JSON.parse(b.slice(0,i));b='';",
  "process.stdout.write(JSON.stringify({kind:'ready',id:m.id})+'\\n');});",
].join("");

function start_line(root: string): { line: string; id: string } {
  const { ipc, protocol } = workers;
  const session_id = air.ids.new_id("session");
  const agent_id = air.ids.new_id("agent");
  const task = bench_task("bench worker spawn");
  const message = ipc.make_ipc_message(
    "control",
    { command: "agent.start", task, brief: { project_root: root, model_id: "bench", max_turns: 1, tools: model_tools() } },
    { session_id, agent_id },
  );
  return { line: protocol.encode_message(message, "parent_to_worker"), id: message.id };
}

async function worker_once(root: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { line } = start_line(root);
  const child = new LineChild("worker (dist/workers/main.js)", process.execPath, [WORKER_MAIN], env);
  try {
    child.write(line);
    const first = await child.next_line(LINE_TIMEOUT_MS);
    const ms = Number(first.at - child.spawned_at) / 1e6;
    const message = workers.protocol.decode_line(first.text, "worker_to_parent");
    if (message.kind !== "worker.ready" || message.payload.protocol_version !== workers.ipc.PROTOCOL_VERSION) {
      throw new VerificationError(`the worker's first line is ${message.kind}, expected worker.ready at protocol ${workers.ipc.PROTOCOL_VERSION}`);
    }
    // stdin closed while running: the worker abandons its run and leaves as cancelled.
    const ended = await child.finish(EXIT_TIMEOUT_MS);
    if (ended.code !== workers.ipc.WORKER_EXIT.cancelled) {
      throw new VerificationError(
        `the worker exited ${ended.code ?? ended.signal} after stdin closed, expected ${workers.ipc.WORKER_EXIT.cancelled}; stderr: ${ended.stderr}`,
      );
    }
    return ms;
  } finally {
    child.kill();
  }
}

async function bare_once(root: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { line, id } = start_line(root);
  const child = new LineChild("node -e (one line)", process.execPath, ["-e", BARE_CHILD], env);
  try {
    child.write(line);
    const first = await child.next_line(LINE_TIMEOUT_MS);
    const ms = Number(first.at - child.spawned_at) / 1e6;
    const answer = JSON.parse(first.text) as { kind?: string; id?: string };
    if (answer.kind !== "ready" || answer.id !== id) throw new VerificationError(`node -e answered ${first.text}`);
    const ended = await child.finish(EXIT_TIMEOUT_MS);
    if (ended.code !== 0 || ended.stderr !== "") throw new VerificationError(`node -e exited ${ended.code ?? ended.signal}: ${ended.stderr}`);
    return ms;
  } finally {
    child.kill();
  }
}

export async function bench_worker_spawn(runs: number, root: string): Promise<SpawnResult> {
  const env = child_env(workers.bridge.worker_environment(process.env));
  await worker_once(root, env);
  await bare_once(root, env);
  const worker_ms: number[] = [];
  const node_ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      worker_ms.push(await worker_once(root, env));
      node_ms.push(await bare_once(root, env));
    } else {
      node_ms.push(await bare_once(root, env));
      worker_ms.push(await worker_once(root, env));
    }
  }
  const ratio = median(ratios(worker_ms, node_ms));
  return { worker_ms: median(worker_ms), node_ms: median(node_ms), ratio, runs };
}

import fs from "node:fs";
import path from "node:path";
import { createActor, toPromise } from "xstate";
import { LineChild, child_env, within } from "./child.js";
import { air, type Session } from "./dist.js";
import { TOOL_WORKER, workers } from "./dist-workers.js";
import { median, ratios } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";
import { bench_task } from "./worker-task.js";

/**
 * `tool.call` round trips of a trivial tool (`fs.list` of a folder of a few files), each through the whole
 * path a worker's tool call takes: the worker's WorkerRuntime encodes a `tool.call`, the real bridge (the
 * worker-run machine of dist/) decodes it and calls `ToolRegistry.call` — input schema, PermissionEngine,
 * `permission.decision.recorded`, `tool.started`, the tool, `tool.completed`, all into a real session DB —
 * and sends the `tool.result` the worker decodes and resolves. The worker is bench/fixtures/tool-worker.mjs
 * (the real protocol and runtime code, no model loop); it times each call itself.
 * The ceiling: a bare `node -e` child timing the same number of NDJSON lines echoed by this process.
 */
export type ToolCallResult = {
  readonly air_us: number;
  readonly bare_us: number;
  readonly ratio: number;
  readonly rounds: number;
  readonly calls: number;
};

const FILES = 6;
const RUN_TIMEOUT_MS = 60_000;

/** Sends `warmup + calls` lines, each after the echo of the previous one, then its timings of the last `calls`. */
const BARE_CHILD = [
  "const [W,N]=process.argv.slice(1).map(Number);let b='',i=0,t=0n;const ns=[];process.stdin.setEncoding('utf8');",
  "const send=()=>{t=process.hrtime.bigint();process.stdout.write(JSON.stringify({id:i,kind:'tool.call',call:{tool_name:'fs.list',input:{path:'small'}}})+'\\n');};",
  "process.stdin.on('data',c=>{b+=c;let k;while((k=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,k));b=b.slice(k+1);",
  "const d=Number(process.hrtime.bigint()-t);if(m.id!==i||m.ok!==true)throw new Error('bad echo '+JSON.stringify(m));",
  "if(i>=W)ns.push(d);i++;if(i<W+N)send();else process.stdout.write(JSON.stringify({done:true,ns})+'\\n');}});send();",
].join("");

type Setup = { session: Session; root: string; entries: number };

function setup(): Setup {
  const root = temp_dir("toolcall");
  fs.mkdirSync(path.join(root, "small"));
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(root, "small", `file-${i}.txt`), `file ${i}\n`);
  const { project } = air.projects.init_project(root);
  const session = air.sessions.open_session(project, { title: "bench tool.call" });
  return { session, root, entries: FILES };
}

function count(session: Session, sql: string, ...params: string[]): number {
  const row = session.connection.client
    .prepare(sql)
    .raw(true)
    .get(...params) as [number | bigint];
  return Number(row[0]);
}

/** One worker run of `warmup + calls` fs.list calls; returns the worker's per-call round trips in µs. */
async function air_round(setup: Setup, warmup: number, calls: number): Promise<number[]> {
  const { session, root } = setup;
  const { worker_run, builtin, engine } = workers;
  const registry = builtin.create_tool_registry({ permissions: new engine.PermissionEngine({ policy: { mode: "accept-edits", rules: [] } }) });
  const task = bench_task("bench tool.call round trips");
  session.ingestor.ingest(air.registry.make_event("task.created", { task }, session.origin));
  const agent_id = air.ids.new_id("agent");
  const problems: string[] = [];
  const logic = worker_run.worker_run_logic({
    session,
    // As src/actors/runtime/runtime.ts wires it.
    call_tool: (call, context, on_stream) =>
      registry.call(call, { session, task_id: context.task_id, agent_id: context.agent_id, scope: context.scope, signal: context.signal }, on_stream),
    entry: { command: process.execPath, args: [TOOL_WORKER] },
    env: child_env(),
    on_log: (entry) => {
      if (entry.level === "warn" || entry.level === "error") problems.push(`${entry.source} ${entry.level}: ${entry.message}`);
    },
  });
  const actor = createActor(logic, {
    input: {
      agent_id,
      task,
      brief: {
        project_root: root,
        model_id: "bench",
        max_turns: 1,
        tools: [],
        instructions: JSON.stringify({ path: "small", entries: setup.entries, warmup, calls }),
      },
    },
  });
  actor.start();
  const output = await within("worker run (tool.call)", RUN_TIMEOUT_MS, toPromise(actor), () => actor.stop());
  const checkpoint = actor.getSnapshot().context.checkpoint as { round_trip_ns?: unknown } | undefined;
  if (output.status !== "completed" || output.result.status !== "completed" || problems.length > 0) {
    throw new VerificationError(
      `tool.call worker run ended ${output.status} (result ${output.result?.status ?? "none"}): ${output.error?.message ?? ""} ${output.error?.detail ?? ""} ${problems.join("; ")}`,
    );
  }
  const ns = checkpoint?.round_trip_ns;
  if (!Array.isArray(ns) || ns.length !== calls || !ns.every((n) => typeof n === "number" && n > 0)) {
    throw new VerificationError(`the tool worker reported ${Array.isArray(ns) ? ns.length : "no"} timings, expected ${calls}`);
  }
  // Every call went through the registry into the session DB: a tool run, its decision, started and completed.
  const total = warmup + calls;
  const runs = count(session, "SELECT count(*) FROM tool_runs WHERE agent_id = ? AND tool_name = 'fs.list' AND status = 'ok'", agent_id);
  const per_type = (type: string) =>
    count(session, "SELECT count(*) FROM events e JOIN tool_runs r ON e.tool_run_id = r.id WHERE r.agent_id = ? AND e.type = ?", agent_id, type);
  const found = { runs, decisions: per_type("permission.decision.recorded"), started: per_type("tool.started"), completed: per_type("tool.completed") };
  if (Object.values(found).some((n) => n !== total)) {
    throw new VerificationError(`tool.call run recorded ${JSON.stringify(found)}, expected ${total} of each`);
  }
  return ns.map((n: number) => n / 1e3);
}

/** The bare ceiling: a node child timing `calls` NDJSON round trips echoed here. */
async function bare_round(warmup: number, calls: number): Promise<number[]> {
  const child = new LineChild("node -e (NDJSON echo)", process.execPath, ["-e", BARE_CHILD, String(warmup), String(calls)], child_env());
  try {
    for (;;) {
      const line = await child.next_line(RUN_TIMEOUT_MS);
      const message = JSON.parse(line.text) as { id?: number; done?: boolean; ns?: number[] };
      if (message.done === true) {
        const ended = await child.finish(5_000);
        if (ended.code !== 0 || ended.stderr !== "") throw new VerificationError(`node -e echo exited ${ended.code ?? ended.signal}: ${ended.stderr}`);
        const ns = message.ns;
        if (!Array.isArray(ns) || ns.length !== calls) throw new VerificationError(`node -e echo reported ${ns?.length ?? "no"} timings, expected ${calls}`);
        return ns.map((n) => n / 1e3);
      }
      child.write(JSON.stringify({ id: message.id, ok: true, output: { path: "small", entries: [], truncated: false } }));
    }
  } finally {
    child.kill();
  }
}

export async function bench_tool_call(rounds: number, warmup: number, calls: number): Promise<ToolCallResult> {
  const context = setup();
  try {
    await air_round(context, warmup, warmup);
    await bare_round(warmup, warmup);
    const air_us: number[] = [];
    const bare_us: number[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        air_us.push(median(await air_round(context, warmup, calls)));
        bare_us.push(median(await bare_round(warmup, calls)));
      } else {
        bare_us.push(median(await bare_round(warmup, calls)));
        air_us.push(median(await air_round(context, warmup, calls)));
      }
    }
    const ratio = median(ratios(air_us, bare_us));
    return { air_us: median(air_us), bare_us: median(bare_us), ratio, rounds, calls };
  } finally {
    context.session.close();
  }
}

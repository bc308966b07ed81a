import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";
import { commit_fixture_project } from "../src/cli/commands/e2e-git.js";
import { start_scripted_server } from "../src/providers/scripted/server.js";
import { child_env, run_air } from "./child.js";
import { median } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * The parallel fixture (`fixtures/parallel`) run as a user runs it — the built CLI, `air run -p` — with the
 * scripted model answering every turn after a fixed delay, as a real model takes time: `--max-parallel 4`
 * against `--max-parallel 1`, interleaved. The critical path (the longest chain of hard dependencies) bounds
 * the parallel wall time from below: its tasks' model waits cannot overlap.
 */
export type WaveSpeedup = {
  readonly parallel_ms: number;
  readonly sequential_ms: number;
  /** parallel / sequential, median of paired rounds. */
  readonly ratio: number;
  /** Tasks on the longest chain of hard dependencies, and the share of the sequential run it must take at least. */
  readonly critical_tasks: number;
  readonly critical_share: number;
  readonly delay_ms: number;
};

const REPO = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = path.join(REPO, "fixtures", "parallel");
const RUN_TIMEOUT_MS = 300_000;

type PlannedTask = { key: string; depends_on?: { hard?: string[] } };

/** The plan the fixture's scripted Main Agent answers with, read from its script. */
function fixture_plan(): PlannedTask[] {
  const script = YAML.parse(fs.readFileSync(path.join(FIXTURE, "script.yaml"), "utf8")) as {
    turns: { main: { reply: { content: { type: string; input?: { tasks?: PlannedTask[] } }[] } }[] };
  };
  const tasks = script.turns.main.flatMap((turn) => turn.reply.content).find((block) => block.input?.tasks !== undefined)?.input?.tasks;
  if (tasks === undefined) throw new VerificationError("fixtures/parallel/script.yaml has no plan");
  return tasks;
}

function critical_path(tasks: readonly PlannedTask[]): number {
  const by_key = new Map(tasks.map((task) => [task.key, task]));
  const depth = (key: string): number => 1 + Math.max(0, ...(by_key.get(key)?.depends_on?.hard ?? []).map(depth));
  return Math.max(...tasks.map((task) => depth(task.key)));
}

async function run_once(max_parallel: number, delay_ms: number, requirement: string): Promise<number> {
  const work = temp_dir("wave-speedup");
  const server = await start_scripted_server({ script: path.join(FIXTURE, "script.yaml"), delay_ms });
  try {
    const project = path.join(work, "project");
    fs.cpSync(path.join(FIXTURE, "project"), project, { recursive: true });
    commit_fixture_project(project);
    const env = { ...child_env(), AIR_HOME: path.join(work, "air-home"), ANTHROPIC_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: server.url };
    const started = performance.now();
    const run = await run_air(
      ["run", "-p", requirement, "--permission-mode", "accept-edits", "--max-parallel", String(max_parallel)],
      project,
      env,
      RUN_TIMEOUT_MS,
    );
    const wall = performance.now() - started;
    if (run.code !== 0)
      throw new VerificationError(`air run --max-parallel ${max_parallel} exited ${run.code}:\n${run.output.split("\n").slice(-12).join("\n")}`);
    return wall;
  } finally {
    await server.close();
    remove_dir(work);
  }
}

export async function bench_wave_speedup(rounds: number, delay_ms: number): Promise<WaveSpeedup> {
  const { requirement } = JSON.parse(fs.readFileSync(path.join(FIXTURE, "fixture.json"), "utf8")) as { requirement: string };
  const tasks = fixture_plan();
  const parallel: number[] = [];
  const sequential: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const wide = await run_once(4, delay_ms, requirement);
    const narrow = await run_once(1, delay_ms, requirement);
    parallel.push(wide);
    sequential.push(narrow);
    ratios.push(wide / narrow);
  }
  const critical_tasks = critical_path(tasks);
  return {
    parallel_ms: median(parallel),
    sequential_ms: median(sequential),
    ratio: median(ratios),
    critical_tasks,
    critical_share: critical_tasks / tasks.length,
    delay_ms,
  };
}

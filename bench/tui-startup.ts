import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { air } from "./dist.js";
import { median, ratios } from "./stats.js";
import { temp_dir } from "./temp.js";
import { first_visible_at, Pane, tmux_missing, until } from "./tmux-pane.js";
import { VerificationError } from "./verify.js";

/**
 * `air run` (the TUI, in a tmux pane) from process start to its first frame (the pre-frame, src/cli/pre-frame.ts),
 * to ink's first frame and to the Main Agent ready; and `air --version` — each beside `node -e 0` timed in
 * the same round. The TUI's moments come from the air process's own clock (`AIR_TUI_METRICS`: epoch ms of
 * each, and its process start), so tmux costs nothing there; `visible_ms` is the same start as the peers'
 * (bench/tui-peers.ts) are timed: spawn to the first capture of the pane with anything on it.
 */
export type StartupResult =
  | {
      readonly kind: "measured";
      readonly first_frame_ms: number;
      readonly ink_frame_ms: number;
      readonly ready_ms: number;
      readonly visible_ms: number;
      readonly version_ms: number;
      readonly node_ms: number;
      /** Medians of each round's figure over its own `node -e 0`. */
      readonly first_frame_ratio: number;
      readonly ready_ratio: number;
      readonly version_ratio: number;
      readonly runs: number;
    }
  | { readonly kind: "skipped"; readonly reason: string };

type Metrics = { process_started_at: number; first_frame_at?: number; ink_frame_at?: number; main_agent_ready_at?: number; frames: number };
type Round = { first: number; ink: number; ready: number; visible: number };

const AIR_BIN = fileURLToPath(new URL("../bin/air.js", import.meta.url));

/** One `air run` in a fresh tmux server: wait for the HUD, leave with Ctrl+C twice, read its metrics. */
async function one_run(root: string, env: NodeJS.ProcessEnv, index: number): Promise<Round> {
  const metrics_file = path.join(root, `metrics-${index}.json`);
  const pane = new Pane(String(index), { ...env, AIR_TUI_METRICS: metrics_file });
  let visible_ms: number;
  try {
    const spawned_at = pane.start(root, `${JSON.stringify(process.execPath)} ${JSON.stringify(AIR_BIN)} run --permission-mode default`);
    visible_ms = (await first_visible_at(pane, "air's first frame")) - spawned_at;
    await until("the TUI's HUD", () => pane.screen().includes("mode default"));
    pane.keys("C-c");
    await until("the exit hint", () => pane.screen().includes("Ctrl+C again"));
    pane.keys("C-c");
    await until("the metrics file", () => fs.existsSync(metrics_file));
  } finally {
    pane.kill();
  }
  const metrics = JSON.parse(fs.readFileSync(metrics_file, "utf8")) as Metrics;
  const { first_frame_at, ink_frame_at, main_agent_ready_at, process_started_at } = metrics;
  if (first_frame_at === undefined || ink_frame_at === undefined || main_agent_ready_at === undefined || metrics.frames < 1) {
    throw new VerificationError(`air run drew no frame or never had the Main Agent ready: ${JSON.stringify(metrics)}`);
  }
  return {
    first: first_frame_at - process_started_at,
    ink: ink_frame_at - process_started_at,
    ready: main_agent_ready_at - process_started_at,
    visible: visible_ms,
  };
}

function wall_ms(args: string[], cwd: string, env: NodeJS.ProcessEnv, expected?: string): number {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8" });
  const took = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0 || (expected !== undefined && child.stdout.trim() !== expected)) {
    throw new VerificationError(`node ${args.join(" ")} failed: ${child.stderr}${child.stdout}`);
  }
  return took;
}

export async function bench_tui_startup(runs: number, air_home: string): Promise<StartupResult> {
  const missing = tmux_missing();
  if (missing !== undefined) return { kind: "skipped", reason: missing };
  const root = temp_dir("tui-startup");
  air.projects.init_project(root);
  const version = (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  // No request is made before a message is sent: the key and the unreachable server are never used.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AIR_HOME: air_home,
    ANTHROPIC_API_KEY: "sk-bench-unused",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    TERM: "xterm-256color",
  };
  delete env.CI;
  delete env.TMUX;
  delete env.NODE_OPTIONS;
  const rounds: Round[] = [];
  const versions: number[] = [];
  const node: number[] = [];
  await one_run(root, env, -1);
  for (let i = 0; i < runs; i++) {
    rounds.push(await one_run(root, env, i));
    versions.push(wall_ms([AIR_BIN, "--version"], root, env, version));
    node.push(wall_ms(["-e", "0"], root, env));
  }
  const of = (pick: (round: Round) => number) => rounds.map(pick);
  return {
    kind: "measured",
    first_frame_ms: median(of((r) => r.first)),
    ink_frame_ms: median(of((r) => r.ink)),
    ready_ms: median(of((r) => r.ready)),
    visible_ms: median(of((r) => r.visible)),
    version_ms: median(versions),
    node_ms: median(node),
    first_frame_ratio: median(
      ratios(
        of((r) => r.first),
        node,
      ),
    ),
    ready_ratio: median(
      ratios(
        of((r) => r.ready),
        node,
      ),
    ),
    version_ratio: median(ratios(versions, node)),
    runs,
  };
}

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { air } from "./dist.js";
import { median } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * `air run` (the TUI) from process start to its first painted frame and to the Main Agent ready, in a real
 * terminal (a tmux pane), beside the wall time of `node -e 0`. The times come from the air process's own
 * clock (`AIR_TUI_METRICS`: epoch ms of each moment, and its process start), so tmux costs nothing.
 */
export type StartupResult =
  | { readonly kind: "measured"; readonly first_frame_ms: number; readonly ready_ms: number; readonly node_ms: number; readonly runs: number }
  | { readonly kind: "skipped"; readonly reason: string };

type Metrics = { process_started_at: number; first_frame_at?: number; main_agent_ready_at?: number; frames: number };

const AIR_BIN = fileURLToPath(new URL("../bin/air.js", import.meta.url));

function tmux(socket: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  const result = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", env });
  if (result.status !== 0) throw new VerificationError(`tmux ${args[0]} failed: ${result.stderr}`);
  return result.stdout;
}

async function until(what: string, probe: () => boolean, timeout_ms = 20_000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new VerificationError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One `air run` in a fresh tmux server: wait for the HUD, leave with Ctrl+C twice, read its metrics. */
async function one_run(root: string, env: NodeJS.ProcessEnv, index: number): Promise<Metrics> {
  const socket = `air-bench-${process.pid}-${index}`;
  const metrics_file = path.join(root, `metrics-${index}.json`);
  const run_env = { ...env, AIR_TUI_METRICS: metrics_file };
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(AIR_BIN)} run --permission-mode default; sleep 60`;
  try {
    tmux(socket, run_env, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", root, command);
    await until("the TUI's HUD", () => tmux(socket, run_env, "capture-pane", "-p", "-t", "bench").includes("mode default"));
    tmux(socket, run_env, "send-keys", "-t", "bench", "C-c");
    await until("the exit hint", () => tmux(socket, run_env, "capture-pane", "-p", "-t", "bench").includes("Ctrl+C again"));
    tmux(socket, run_env, "send-keys", "-t", "bench", "C-c");
    await until("the metrics file", () => fs.existsSync(metrics_file));
  } finally {
    spawnSync("tmux", ["-L", socket, "kill-server"], { env: run_env });
    // tmux leaves the socket file behind.
    fs.rmSync(path.join(env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  }
  return JSON.parse(fs.readFileSync(metrics_file, "utf8")) as Metrics;
}

function node_e0_ms(cwd: string, env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ["-e", "0"], { cwd, env });
  if (child.status !== 0) throw new VerificationError("node -e 0 failed");
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function bench_tui_startup(runs: number, air_home: string): Promise<StartupResult> {
  if (spawnSync("tmux", ["-V"]).status !== 0) return { kind: "skipped", reason: "tmux is not installed (apt-get install tmux)" };
  const root = temp_dir("tui-startup");
  air.projects.init_project(root);
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
  const first: number[] = [];
  const ready: number[] = [];
  const node: number[] = [];
  await one_run(root, env, -1);
  for (let i = 0; i < runs; i++) {
    const metrics = await one_run(root, env, i);
    if (metrics.first_frame_at === undefined || metrics.main_agent_ready_at === undefined || metrics.frames < 1) {
      throw new VerificationError(`air run drew no frame or never had the Main Agent ready: ${JSON.stringify(metrics)}`);
    }
    first.push(metrics.first_frame_at - metrics.process_started_at);
    ready.push(metrics.main_agent_ready_at - metrics.process_started_at);
    node.push(node_e0_ms(root, env));
  }
  return { kind: "measured", first_frame_ms: median(first), ready_ms: median(ready), node_ms: median(node), runs };
}

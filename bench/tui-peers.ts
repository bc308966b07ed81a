import fs from "node:fs";
import path from "node:path";
import { median } from "./stats.js";
import { temp_dir } from "./temp.js";
import { first_visible_at, Pane } from "./tmux-pane.js";

/**
 * The first visible frame of the peers' TUIs — Claude Code (`claude`), Codex CLI (`codex`), opencode — in
 * the harness air's is timed in (bench/tmux-pane.ts): spawn to the first capture of the pane with anything
 * on it. Each is taken from `$AIR_BENCH_PEERS_DIR/node_modules/.bin` (a scratch folder where they were
 * installed with `npm install @anthropic-ai/claude-code @openai/codex opencode-ai`), else from PATH; a peer
 * found nowhere is skipped with the reason. Nothing is installed here.
 */
export const PEERS = ["claude", "codex", "opencode"] as const;

export type PeerResult =
  | { readonly kind: "measured"; readonly name: string; readonly visible_ms: number; readonly runs: number }
  | { readonly kind: "skipped"; readonly name: string; readonly reason: string };

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function locate(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const scratch = env.AIR_BENCH_PEERS_DIR;
  const folders = [...(scratch ? [path.join(scratch, "node_modules", ".bin")] : []), ...(env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "")];
  return folders.map((dir) => path.join(dir, name)).find(executable);
}

/** `runs` starts of each peer found, each in a fresh tmux server and an empty folder, left with a kill. */
export async function bench_tui_peers(runs: number, env: NodeJS.ProcessEnv): Promise<PeerResult[]> {
  const results: PeerResult[] = [];
  for (const name of PEERS) {
    const bin = locate(name, env);
    if (bin === undefined) {
      const where = env.AIR_BENCH_PEERS_DIR
        ? `$AIR_BENCH_PEERS_DIR/node_modules/.bin or PATH`
        : "PATH (set AIR_BENCH_PEERS_DIR to a scratch folder with them installed)";
      results.push({ kind: "skipped", name, reason: `not found on ${where}` });
      continue;
    }
    const visible: number[] = [];
    for (let run = -1; run < runs; run++) {
      const pane = new Pane(`${name}-${run}`, env);
      try {
        const spawned_at = pane.start(temp_dir(`peer-${name}`), JSON.stringify(bin));
        const ms = (await first_visible_at(pane, `${name}'s first frame`)) - spawned_at;
        // The first start fills the disk cache: not the start anyone waits for twice.
        if (run >= 0) visible.push(ms);
      } finally {
        pane.kill();
      }
    }
    results.push({ kind: "measured", name, visible_ms: median(visible), runs });
  }
  return results;
}

import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundle_source } from "../scripts/bundle-options.mjs";
import { median } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * The TUI during a scripted stream of 2,000 assistant deltas (bench/tui-stream-child.ts): frames per second
 * drawn (the App throttles to ≤ 30) and the CPU of the whole process, beside the same stream with no UI.
 */
export type StreamResult = {
  readonly fps: number;
  readonly tui_cpu_ms: number;
  readonly bare_cpu_ms: number;
  readonly stream_ms: number;
  readonly deltas: number;
  readonly runs: number;
};

type ChildReport = { mode: string; deltas: number; stream_ms: number; frames: number; cpu_ms: number; bytes: number };

const CHILD = fileURLToPath(new URL("./tui-stream-child.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** What the TUI child renders with, bundled as `air run` runs it: React's production build, ink's patches. */
const TUI_ENTRY = 'export { render } from "ink";\nexport { default as React } from "react";\nexport { App } from "./dist/tui/index.js";\n';

function run_child(mode: "tui" | "bare", air_home: string, bundle: string): ChildReport {
  const env: NodeJS.ProcessEnv = { ...process.env, AIR_HOME: air_home };
  delete env.NODE_OPTIONS;
  const child = spawnSync(process.execPath, ["--import", TSX, CHILD, mode, ...(mode === "tui" ? [bundle] : [])], { env, encoding: "utf8", timeout: 120_000 });
  // ink restores the real terminal's cursor on exit: the report is the one JSON line.
  const line = child.stdout.split("\n").find((text) => text.startsWith("{"));
  if (child.status !== 0 || line === undefined) throw new VerificationError(`tui-stream child (${mode}) failed (status ${child.status}): ${child.stderr}`);
  const report = JSON.parse(line) as ChildReport;
  if (report.deltas !== 2_000 || (mode === "tui" && (report.frames < 1 || report.bytes === 0))) {
    throw new VerificationError(`tui-stream child (${mode}) did not stream and draw: ${line}`);
  }
  return report;
}

export async function bench_tui_stream(runs: number, air_home: string): Promise<StreamResult> {
  const bundle = pathToFileURL(await bundle_source(TUI_ENTRY, ROOT, temp_dir("tui-bundle"))).href;
  const tui: ChildReport[] = [];
  const bare: ChildReport[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      tui.push(run_child("tui", air_home, bundle));
      bare.push(run_child("bare", air_home, bundle));
    } else {
      bare.push(run_child("bare", air_home, bundle));
      tui.push(run_child("tui", air_home, bundle));
    }
  }
  return {
    fps: median(tui.map((report) => (1000 * report.frames) / report.stream_ms)),
    tui_cpu_ms: median(tui.map((report) => report.cpu_ms)),
    bare_cpu_ms: median(bare.map((report) => report.cpu_ms)),
    stream_ms: median(tui.map((report) => report.stream_ms)),
    deltas: 2_000,
    runs,
  };
}

/**
 * `npm run bench`: air's figures against ceilings measured in the same run.
 *   1. durable ingest, 1 and 100 events per transaction — air's write path vs hand-written libsql
 *   2. cold `air session list` over 200 sessions — the built CLI vs `node -e 0`
 * Exits 1 if any run fails its verification (a broken run never reports a figure).
 */
import os from "node:os";
import { bench_ingest, type IngestMode } from "./ingest.js";
import { format_line, ms, rate, type Line } from "./report.js";
import { bench_session_list } from "./session-list.js";
import { remove_all, temp_dir } from "./temp.js";

/** `--quick`: a smoke run of the same code at a tenth of the size (figures not meaningful). */
const QUICK = process.argv.includes("--quick");
const MODES: IngestMode[] = [
  { name: "ingest 1 event/tx", per_tx: 1, events: QUICK ? 700 : 7_000 },
  { name: "ingest 100 events/tx", per_tx: 100, events: QUICK ? 7_000 : 70_000 },
];
const ROUNDS = QUICK ? 1 : 5;
const LIST_SESSIONS = QUICK ? 20 : 200;
const LIST_RUNS = QUICK ? 3 : 15;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function main(): number {
  const started = performance.now();
  const air_home = temp_dir("home");
  process.env.AIR_HOME = air_home;
  const lines: Line[] = [];

  log(`ingest: warm-up + ${ROUNDS} rounds (${MODES.map((m) => `${m.events.toLocaleString("en-US")} events at ${m.per_tx}/tx`).join(", ")})`);
  for (const result of bench_ingest(MODES, ROUNDS, log)) {
    const goal = result.mode.per_tx === 1 ? 50 : 40;
    lines.push({
      name: result.mode.name,
      ours: rate(result.air_rate),
      ceiling_name: "raw libsql",
      ceiling: rate(result.raw_rate),
      ratio: 100 * result.ratio,
      goal: { kind: "at_least", value: goal, unit: "%" },
    });
  }

  log(`session list: ${LIST_SESSIONS} sessions, ${LIST_RUNS} cold runs each of air and node -e 0`);
  const list = bench_session_list(LIST_SESSIONS, LIST_RUNS, air_home);
  lines.push({
    name: `session list (${list.sessions})`,
    ours: ms(list.air_ms),
    ceiling_name: "node -e 0",
    ceiling: ms(list.node_ms),
    ratio: list.ratio,
    goal: { kind: "at_most", value: 2, unit: "×" },
  });

  console.log("");
  for (const line of lines) console.log(format_line(line));
  console.log(
    `\nmedians of ${ROUNDS} rounds (ingest) and ${LIST_RUNS} runs (session list); ratios are medians of paired ratios; ` +
      `total ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  );
  return 0;
}

let code: number;
try {
  code = main();
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  code = 1;
}
remove_all();
process.exitCode = code;

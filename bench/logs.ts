/**
 * `npm run bench:logs`: what logging costs, beside what it cannot cost less than.
 *   1. one failure logged (a redacted air.log line + a sealed developer-log record) — vs a bare appendFileSync
 *      of the same air.log line;
 *   2. loading the log modules into a process that already has their shared dependencies (what a session
 *      start pays for the EventBus's import) — vs loading the secret redactor alone into a fresh process.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { log_error, log_paths } from "../src/logs/log.js";
import { median, time_ms } from "./stats.js";
import { remove_all, temp_dir } from "./temp.js";

const RECORDS = 200;
const dist = fileURLToPath(new URL("../dist/", import.meta.url));

function per_record(): { ours: number; ceiling: number } {
  const home = temp_dir("logs");
  process.env.AIR_HOME = home;
  const failure = new Error("the command failed: exit code 2");
  log_error("bench", "warm-up", failure);
  const ours = Array.from({ length: RECORDS }, () => time_ms(() => log_error("bench", "air tasks failed", failure)));
  const line = fs.readFileSync(log_paths(home).air_log, "utf8").split("\n")[1] ?? "";
  const bare = path.join(home, "bare.log");
  const ceiling = Array.from({ length: RECORDS }, () => time_ms(() => fs.appendFileSync(bare, `${line}\n`)));
  return { ours: median(ours), ceiling: median(ceiling) };
}

/** Milliseconds to import `target` after `before`, in a fresh process; the median of a few runs. */
function import_ms(before: readonly string[], target: string): number {
  const script = `${before.map((module) => `await import(${JSON.stringify(path.join(dist, module))});`).join("")}
const start = performance.now(); await import(${JSON.stringify(path.join(dist, target))}); console.log(performance.now() - start);`;
  const runs = Array.from({ length: 7 }, () => Number(spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).stdout));
  return median(runs);
}

if (!fs.existsSync(path.join(dist, "logs", "log.js"))) throw new Error("run `npm run build` first");
try {
  const record = per_record();
  console.log(
    `log one failure (air.log + sealed developer record): ${(record.ours * 1000).toFixed(0)} µs median  vs bare append ${(record.ceiling * 1000).toFixed(0)} µs`,
  );
  const shared = ["contracts/errors.js", "permissions/secret-redactor.js", "project/layout.js", "version.js", "db/schema.js"];
  const ours = import_ms([...shared, "event-store/coalesce.js"], "logs/log.js");
  const ceiling = import_ms(["contracts/errors.js"], "permissions/secret-redactor.js");
  console.log(`load the log modules (EventBus import): ${ours.toFixed(2)} ms  vs the secret redactor alone ${ceiling.toFixed(2)} ms`);
} finally {
  remove_all();
}

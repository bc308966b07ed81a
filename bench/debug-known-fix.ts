import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { child_env } from "./child.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * Model turns to fix a failure whose signature has a debug record, beside the same failure without one:
 * `air e2e cpp-debug-review-fixture` (the built CLI, the scripted model) runs the same compile error twice in one
 * project. The first run has no record: a blind retry, then the Debugger. The second finds the first run's
 * record and its retry applies the known fix. Each run prints its `model requests: N`; the figure is the
 * second run's turns over the first's. A measurement counts only if both runs pass.
 */
type DebugKnownFix = { readonly without_record: number; readonly with_record: number; readonly ratio: number };
export type DebugKnownFixOutcome = { readonly kind: "measured"; readonly turns: DebugKnownFix } | { readonly kind: "skipped"; readonly reason: string };

const REPO = fileURLToPath(new URL("../", import.meta.url));
const AIR_BIN = path.join(REPO, "bin", "air.js");
const FIXTURE = "cpp-debug-review";
const RUN_TIMEOUT_MS = 240_000;

function missing_tools(): string[] {
  const fixture = JSON.parse(fs.readFileSync(path.join(REPO, "fixtures", FIXTURE, "fixture.json"), "utf8")) as { needs: string[] };
  return fixture.needs.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status !== 0);
}

export function bench_debug_known_fix(): DebugKnownFixOutcome {
  const missing = missing_tools();
  if (missing.length > 0) return { kind: "skipped", reason: `${missing.join(", ")} not found on PATH (the fixture needs cmake, ctest and c++)` };
  const air_home = temp_dir("debug-known-fix-home");
  const tmp = temp_dir("debug-known-fix-tmp");
  try {
    const env = { ...child_env(), AIR_HOME: air_home, TMPDIR: tmp };
    const child = spawnSync(process.execPath, [AIR_BIN, "e2e", `${FIXTURE}-fixture`], { cwd: os.tmpdir(), env, encoding: "utf8", timeout: RUN_TIMEOUT_MS });
    const said = `${child.stdout ?? ""}\n${child.stderr ?? ""}`.trim().split("\n").slice(-12).join("\n");
    if (child.error !== undefined || child.status !== 0 || !/^e2e passed$/m.test(child.stdout)) {
      throw new VerificationError(`air e2e ${FIXTURE}-fixture failed (status ${child.status}${child.error ? `, ${child.error.message}` : ""}):\n${said}`);
    }
    const counts = [...child.stdout.matchAll(/^ {2}model requests: (\d+)$/gm)].map((match) => Number(match[1]));
    const [without_record, with_record] = counts;
    if (counts.length !== 2 || without_record === undefined || with_record === undefined || without_record === 0) {
      throw new VerificationError(`air e2e ${FIXTURE}-fixture printed ${counts.length} "model requests" lines, expected one per run:\n${said}`);
    }
    return { kind: "measured", turns: { without_record, with_record, ratio: with_record / without_record } };
  } finally {
    remove_dir(tmp);
    remove_dir(air_home);
  }
}

export function format_debug_known_fix(outcome: DebugKnownFixOutcome): string {
  if (outcome.kind === "skipped") return `debug known fix: skipped (${outcome.reason})`;
  const { without_record, with_record, ratio } = outcome.turns;
  return `debug known fix: ${with_record} model turns with a debug record vs ${without_record} without (ratio ${ratio.toFixed(2)})`;
}

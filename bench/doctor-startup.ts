import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DIST } from "./dist.js";
import { format_info_line } from "./report-info.js";
import { format_limit_line } from "./report-limit.js";
import { median, time_ms } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * The read-only dependency check `air run` makes at every start (src/doctor/startup.ts), over the built-in
 * capabilities on this machine's PATH, in process: cold (no cache: every found program's version probed)
 * and warm (the cache answers: stats only, no spawn) — beside `node -e 0`, the cheapest process air could
 * spawn instead, timed in the same run. The goal: warm within a few milliseconds.
 */
export type DoctorStartupResult = {
  readonly runs: number;
  readonly cold_ms: number;
  readonly cold_probes: number;
  readonly warm_ms: number;
  readonly node_ms: number;
  readonly warm_ratio: number;
  readonly cold_ratio: number;
};

type Startup = typeof import("../src/doctor/startup.js");
type Manifests = typeof import("../src/doctor/manifests.js");
type Cache = typeof import("../src/doctor/cache.js");

/** The warm check's budget (issue 13: "at most a few milliseconds when nothing changed"). */
const DOCTOR_STARTUP_LIMIT_MS = 5;

function node_e0_ms(): number {
  return time_ms(() => spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" }));
}

export async function bench_doctor_startup(runs: number): Promise<DoctorStartupResult> {
  const { startup_dependency_check } = (await import(new URL("doctor/startup.js", DIST).href)) as Startup;
  const { doctor_manifests } = (await import(new URL("doctor/manifests.js", DIST).href)) as Manifests;
  const { version_cache_file } = (await import(new URL("doctor/cache.js", DIST).href)) as Cache;
  const air_home = temp_dir("doctor-home");
  const project_root = temp_dir("doctor-project");
  // A C++ project, so toolchain-cpp applies and its dependencies are checked.
  fs.writeFileSync(path.join(project_root, "CMakeLists.txt"), "project(bench CXX)\n");
  const options = { manifests: doctor_manifests(project_root, air_home), project_root, air_home };
  const cold: number[] = [];
  const warm: number[] = [];
  const node: number[] = [];
  let cold_probes = 0;
  for (let run = 0; run <= runs; run++) {
    fs.rmSync(version_cache_file(air_home), { force: true });
    let result: ReturnType<Startup["startup_dependency_check"]> | undefined;
    const cold_ms = time_ms(() => (result = startup_dependency_check(options)));
    cold_probes = result?.probes ?? 0;
    const warm_ms = time_ms(() => (result = startup_dependency_check(options)));
    if (result?.probes !== 0) throw new VerificationError(`the warm check spawned ${result?.probes} version probe(s); it must spawn none`);
    const node_ms = node_e0_ms();
    // The first round loads and compiles the modules: not a start anyone waits for twice.
    if (run === 0) continue;
    cold.push(cold_ms);
    warm.push(warm_ms);
    node.push(node_ms);
  }
  const warm_ms = median(warm);
  const cold_ms = median(cold);
  const node_ms = median(node);
  return { runs, cold_ms, cold_probes, warm_ms, node_ms, warm_ratio: warm_ms / node_ms, cold_ratio: cold_ms / node_ms };
}

export function format_doctor_startup(result: DoctorStartupResult): string[] {
  return [
    format_limit_line({
      name: "doctor startup (warm)",
      ours_ms: result.warm_ms,
      ceiling_name: "node -e 0",
      ceiling_ms: result.node_ms,
      ratio: result.warm_ratio,
      limit_ms: DOCTOR_STARTUP_LIMIT_MS,
    }),
    format_info_line({
      name: "doctor startup (cold)",
      ours: `${result.cold_ms.toFixed(1)} ms`,
      ceiling_name: "node -e 0",
      ceiling: `${result.node_ms.toFixed(1)} ms`,
      ratio: result.cold_ratio,
      note: `${result.cold_probes} version probes; once per changed tool`,
    }),
  ];
}

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { child_env } from "./child.js";
import { median } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * `air e2e cpp-fix-fixture` as a user runs it (the built CLI, a fresh AIR_HOME), its wall time split by the
 * line it prints: `wall time W ms = commands C ms + scripted model M ms + runtime overhead O ms`, where C is
 * the command runs' durations (cmake, ctest), M the `model.complete` tool runs' and O the rest — air itself.
 * A run counts only if it exits 0, says `e2e passed`, and its parts add up to its wall time.
 */
type E2eSplit = {
  readonly runs: number;
  readonly wall_ms: number;
  readonly commands_ms: number;
  readonly model_ms: number;
  readonly overhead_ms: number;
  /** Median over runs of overhead / wall. */
  readonly overhead_share: number;
};
export type E2eOutcome = { readonly kind: "measured"; readonly split: E2eSplit } | { readonly kind: "skipped"; readonly reason: string };

const REPO = fileURLToPath(new URL("../", import.meta.url));
const AIR_BIN = path.join(REPO, "bin", "air.js");
const FIXTURE = "cpp-fix";
const RUN_TIMEOUT_MS = 120_000;
const LINE = /wall time (\d+) ms = commands (\d+) ms \+ scripted model (\d+) ms \+ runtime overhead (-?\d+) ms/;

/** The programs the fixture declares it needs (fixtures/cpp-fix/fixture.json `needs`) that are not on PATH. */
function missing_tools(): string[] {
  const fixture = JSON.parse(fs.readFileSync(path.join(REPO, "fixtures", FIXTURE, "fixture.json"), "utf8")) as { needs: string[] };
  return fixture.needs.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status !== 0);
}

type Parts = { wall: number; commands: number; model: number; overhead: number };

function run_once(): Parts {
  const air_home = temp_dir("e2e-home");
  // The e2e copies its fixture under os.tmpdir(): point that into a folder this bench removes whatever happens.
  const tmp = temp_dir("e2e-tmp");
  try {
    const env = { ...child_env(), AIR_HOME: air_home, TMPDIR: tmp };
    const child = spawnSync(process.execPath, [AIR_BIN, "e2e", `${FIXTURE}-fixture`], { cwd: os.tmpdir(), env, encoding: "utf8", timeout: RUN_TIMEOUT_MS });
    const said = `${child.stdout ?? ""}\n${child.stderr ?? ""}`.trim().split("\n").slice(-12).join("\n");
    if (child.error !== undefined || child.status !== 0 || !/^e2e passed$/m.test(child.stdout)) {
      throw new VerificationError(`air e2e ${FIXTURE}-fixture failed (status ${child.status}${child.error ? `, ${child.error.message}` : ""}):\n${said}`);
    }
    const match = LINE.exec(child.stdout);
    if (match === null) throw new VerificationError(`air e2e ${FIXTURE}-fixture printed no "wall time … = …" line:\n${said}`);
    const [wall, commands, model, overhead] = match.slice(1, 5).map(Number) as [number, number, number, number];
    // Each part is rounded on its own: allow 2 ms of rounding.
    if (commands <= 0 || model <= 0 || Math.abs(commands + model + overhead - wall) > 2) {
      throw new VerificationError(`air e2e ${FIXTURE}-fixture: implausible split ${match[0]}`);
    }
    return { wall, commands, model, overhead };
  } finally {
    remove_dir(tmp);
    remove_dir(air_home);
  }
}

export function bench_e2e_split(runs: number): E2eOutcome {
  const missing = missing_tools();
  if (missing.length > 0) return { kind: "skipped", reason: `${missing.join(", ")} not found on PATH (the fixture needs cmake, ctest and c++)` };
  const parts: Parts[] = [];
  for (let i = 0; i < runs; i++) parts.push(run_once());
  return {
    kind: "measured",
    split: {
      runs,
      wall_ms: median(parts.map((p) => p.wall)),
      commands_ms: median(parts.map((p) => p.commands)),
      model_ms: median(parts.map((p) => p.model)),
      overhead_ms: median(parts.map((p) => p.overhead)),
      overhead_share: median(parts.map((p) => p.overhead / p.wall)),
    },
  };
}

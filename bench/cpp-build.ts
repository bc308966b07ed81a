import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { air, DIST } from "./dist.js";
import { median, ratios } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * `cpp.build` of the passing fixture project (a library, two test binaries, GoogleTest) through the built
 * ToolRegistry — input schema, PermissionEngine, the sandboxed command, its artifacts and events, the parse of the
 * whole output into diagnostics rows — beside a bare `cmake --build` of the same folder with the same -j and
 * environment. Every round starts both from a clean build folder (`cmake --build --target clean`, untimed);
 * the two alternate which goes first, so neither always finds the caches warm.
 */
export type CppBuildBench = { readonly air_ms: number; readonly bare_ms: number; readonly ratio: number; readonly rounds: number };

type Capability = typeof import("../src/cpp/capability.js");
type Builtin = typeof import("../src/tools/builtin.js");
type Engine = typeof import("../src/permissions/engine.js");

async function load<T>(module: string): Promise<T> {
  return (await import(new URL(module, DIST).href)) as T;
}

const cpp = await load<Capability>("cpp/capability.js");
const builtin = await load<Builtin>("tools/builtin.js");
const engine = await load<Engine>("permissions/engine.js");

const FIXTURE = new URL("../test/fixtures/cpp-projects/passing/", import.meta.url);
const JOBS = 2;
const BUILD_DIR = "build/air";
/** The environment cpp.build gives its command (src/cpp/tools/common.ts CPP_ENV). */
const ENV = { LC_ALL: "C", CLICOLOR: "0", CLICOLOR_FORCE: "0", TERM: "dumb", NINJA_STATUS: "[%f/%t] " };

function cmake(root: string, ...args: string[]): void {
  const result = spawnSync("cmake", args, { cwd: root, env: { ...process.env, ...ENV }, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new VerificationError(`cmake ${args.join(" ")} exited ${result.status}: ${result.stderr.slice(-500)}`);
}

function elapsed_ms(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function bench_cpp_build(rounds: number): Promise<CppBuildBench> {
  const root = temp_dir("cpp-build");
  fs.cpSync(FIXTURE, root, { recursive: true });
  const { project } = air.projects.init_project(root);
  const session = air.sessions.open_session(project, { title: "bench cpp.build" });
  const registry = builtin.create_tool_registry({ permissions: new engine.PermissionEngine({ policy: { mode: "accept-edits", rules: [] } }) });
  const tools = cpp.toolchain_cpp.create_tools();
  for (const definition of tools.definitions) registry.register(definition);
  try {
    const configured = await registry.call({ tool_name: "cpp.cmake.configure", input: {} }, { session });
    if (!configured.ok) throw new VerificationError(`cpp.cmake.configure failed: ${configured.error.message}`);
    const air_round = async () => {
      cmake(root, "--build", BUILD_DIR, "--target", "clean");
      const started = process.hrtime.bigint();
      const outcome = await registry.call({ tool_name: "cpp.build", input: { jobs: JOBS } }, { session });
      const took = elapsed_ms(started);
      if (!outcome.ok) throw new VerificationError(`cpp.build failed: ${outcome.error.message}`);
      return took;
    };
    const bare_round = () => {
      cmake(root, "--build", BUILD_DIR, "--target", "clean");
      const started = process.hrtime.bigint();
      cmake(root, "--build", BUILD_DIR, "-j", String(JOBS));
      return elapsed_ms(started);
    };
    const ours: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        ours.push(await air_round());
        bare.push(bare_round());
      } else {
        bare.push(bare_round());
        ours.push(await air_round());
      }
    }
    if (!fs.existsSync(path.join(root, BUILD_DIR, "calc_gtest"))) throw new VerificationError("the build produced no calc_gtest");
    return { air_ms: median(ours), bare_ms: median(bare), ratio: median(ratios(ours, bare)), rounds };
  } finally {
    await tools.close();
    session.close();
  }
}

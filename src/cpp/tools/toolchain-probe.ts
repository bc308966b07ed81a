import { spawnSync } from "node:child_process";
import * as v from "valibot";
import { find_program } from "./common.js";

const PROBE_TIMEOUT_MS = 5_000;

export const Program = v.strictObject({
  name: v.string(),
  /** The absolute path on PATH, or null when it is not installed. */
  path: v.nullable(v.string()),
  /** The first line of `--version`, or null. */
  version: v.nullable(v.string()),
});
export type Program = v.InferOutput<typeof Program>;

/**
 * `<program> --version`, read-only, run directly (no shell, no sandbox, no command run recorded): the same probe
 * `air doctor` makes, and it cannot change the project.
 */
function version_of(program: string): string | null {
  const result = spawnSync(program, ["--version"], {
    encoding: "utf8",
    timeout: PROBE_TIMEOUT_MS,
    stdio: ["ignore", "pipe", "ignore"],
    env: { PATH: process.env.PATH ?? "", LC_ALL: "C" },
  });
  if (result.error !== undefined || result.status !== 0) return null;
  return result.stdout.split("\n")[0]?.trim() || null;
}

function probe(name: string, aliases: readonly string[] = []): Program {
  const found = find_program([name, ...aliases]);
  return { name, path: found ?? null, version: found === undefined ? null : version_of(found) };
}

/** What the machine has to build C++: the compilers, CMake and its ctest, the build tools, and the analysis tools. */
export function probe_toolchain(): { compilers: Program[]; tools: Program[] } {
  return {
    compilers: ["c++", "g++", "clang++"].map((name) => probe(name)),
    tools: [probe("cmake"), probe("ctest"), probe("ninja", ["ninja-build"]), probe("make"), probe("cppcheck"), probe("gdb"), probe("clangd")],
  };
}

import * as v from "valibot";
import { probe_version } from "../../doctor/version.js";
import { find_program } from "./common.js";

export const Program = v.strictObject({
  name: v.string(),
  /** The absolute path on PATH, or null when it is not installed. */
  path: v.nullable(v.string()),
  /** The first line of `--version`, or null. */
  version: v.nullable(v.string()),
});
export type Program = v.InferOutput<typeof Program>;

/** `<program> --version` run directly, as `air doctor` probes it: read-only, no shell, nothing recorded. */
function probe(name: string, aliases: readonly string[] = []): Program {
  const found = find_program([name, ...aliases]);
  return { name, path: found ?? null, version: found === undefined ? null : (probe_version(found, ["--version"]) ?? null) };
}

/** What the machine has to build C++: the compilers, CMake and its ctest, the build tools, and the analysis tools. */
export function probe_toolchain(): { compilers: Program[]; tools: Program[] } {
  return {
    compilers: ["c++", "g++", "clang++"].map((name) => probe(name)),
    tools: [probe("cmake"), probe("ctest"), probe("ninja", ["ninja-build"]), probe("make"), probe("cppcheck"), probe("gdb"), probe("clangd")],
  };
}

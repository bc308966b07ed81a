import path from "node:path";
import * as v from "valibot";
import { define_tool, type ToolExecution } from "../../tools/define.js";
import { DEFAULT_BUILD_DIR, real_root } from "./common.js";
import { CmakeTarget, read_code_model } from "./file-api.js";
import { project_files, TestFramework } from "./project-files.js";
import { Program, probe_toolchain } from "./toolchain-probe.js";

const BuildFolder = v.strictObject({
  path: v.string(),
  /** From the File API reply `cpp.cmake.configure` asks for; empty before the first configure with it. */
  configuration: v.nullable(v.string()),
  targets: v.array(CmakeTarget),
});

const DetectOutput = v.strictObject({
  build_system: v.picklist(["cmake", "make", "compile_commands", "none"]),
  cmake: v.strictObject({
    /** Every CMakeLists.txt outside build folders, the top one first. */
    lists: v.array(v.string()),
    presets: v.array(v.string()),
  }),
  makefile: v.nullable(v.string()),
  compile_commands: v.array(v.string()),
  compilers: v.array(Program),
  tools: v.array(Program),
  test_frameworks: v.array(TestFramework),
  build_folders: v.array(BuildFolder),
  /** Where cpp.cmake.configure puts this workspace's build folder unless told otherwise. */
  default_build_dir: v.string(),
  /** What to call next, in words. */
  next_step: v.string(),
});
type DetectOutput = v.InferOutput<typeof DetectOutput>;

function next_step(output: Omit<DetectOutput, "next_step">): string {
  if (output.build_system === "none") return "No CMakeLists.txt, Makefile or compile_commands.json here: this is not a C++ project air can build yet.";
  if (output.build_system !== "cmake") return "Not a CMake project: build it with shell.run (make), the cpp.* build tools need CMake.";
  if (!output.build_folders.some((folder) => folder.path === DEFAULT_BUILD_DIR))
    return `Call cpp.cmake.configure (it creates ${DEFAULT_BUILD_DIR}), then cpp.build.`;
  return "Call cpp.build, then cpp.test.";
}

function detect(execution: ToolExecution): DetectOutput {
  const root = real_root(execution);
  const files = project_files(root);
  const { compilers, tools } = probe_toolchain();
  const top = files.cmake_lists.includes("CMakeLists.txt");
  const build_system = top ? "cmake" : files.makefile !== null ? "make" : files.compile_commands.length > 0 ? "compile_commands" : "none";
  const build_folders = files.build_dirs.map((folder) => {
    const model = read_code_model(path.join(root, folder));
    return { path: folder, configuration: model?.configuration ?? null, targets: model?.targets ?? [] };
  });
  const lists = [...files.cmake_lists].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  const found = {
    build_system,
    cmake: { lists, presets: files.presets },
    makefile: files.makefile,
    compile_commands: files.compile_commands,
    compilers,
    tools,
    test_frameworks: files.test_frameworks,
    build_folders,
    default_build_dir: DEFAULT_BUILD_DIR,
  } as const;
  return { ...found, next_step: next_step(found) };
}

export const cpp_detect = define_tool({
  name: "cpp.detect",
  version: 1,
  description:
    "What kind of C++ project this is and what the machine has to build it: CMake lists and presets, a Makefile, " +
    "compile_commands.json, compilers and tools with versions, test frameworks (CTest, GoogleTest, Catch2), existing " +
    "build folders and, once configured, their targets and sources. Runs nothing but `--version` probes: call it first.",
  category: "project",
  input: v.strictObject({}),
  output: DetectOutput,
  permissions: { reads: () => ["."] },
  execute: async (_input, execution) => detect(execution),
});

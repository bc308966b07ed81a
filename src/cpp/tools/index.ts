import type { AnyToolDefinition } from "../../tools/define.js";
import { cpp_build } from "./build.js";
import { cpp_cmake_configure } from "./configure.js";
import { cpp_static_cppcheck } from "./cppcheck.js";
import { cpp_detect } from "./detect.js";
import { cpp_test } from "./test.js";

/** The cpp.* tools that hold no process between calls (clangd, which does, comes with its own lifecycle). */
export const CPP_TOOLS: readonly AnyToolDefinition[] = [cpp_detect, cpp_cmake_configure, cpp_build, cpp_test, cpp_static_cppcheck];

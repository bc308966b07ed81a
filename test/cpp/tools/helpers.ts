/**
 * A tool harness (real session, real registry and PermissionEngine) with the toolchain-cpp tools registered and
 * one of the fixture projects of test/fixtures/cpp-projects copied into its project root.
 */
import fs from "node:fs";
import path from "node:path";
import { toolchain_cpp } from "../../../src/cpp/capability.js";
import type { PermissionEngineOptions } from "../../../src/permissions/engine.js";
import { rows_of, type Row } from "../../fixtures/session.js";
import { tool_harness, type ToolHarness } from "../../tools/helpers.js";

const PROJECTS = path.resolve(import.meta.dirname, "../../fixtures/cpp-projects");

export type CppProject = "passing" | "broken" | "crashing";

export type CppHarness = ToolHarness & {
  diagnostics(): Row[];
  evidence(): Row[];
  close(): Promise<void>;
};

export function cpp_harness(project: CppProject, options: PermissionEngineOptions = {}): CppHarness {
  const h = tool_harness(options);
  const tools = toolchain_cpp.create_tools();
  for (const definition of tools.definitions) h.registry.register(definition);
  fs.cpSync(path.join(PROJECTS, project), h.root, { recursive: true });
  const connection = h.temp.session.connection;
  return {
    ...h,
    diagnostics: () => rows_of(connection, "diagnostics"),
    evidence: () => rows_of(connection, "evidence_refs"),
    async close() {
      await tools.close();
      h.cleanup();
    },
  };
}

/** cpp.cmake.configure with its defaults; fails loudly when it fails. */
export async function configured(h: CppHarness): Promise<void> {
  const configure = await h.call("cpp.cmake.configure", {});
  if (!configure.ok) throw new Error(`configure failed: ${configure.error.message}`);
}

/** Configured and built with -j2, as every test of a built project starts. */
export async function built(h: CppHarness): Promise<void> {
  await configured(h);
  const build = await h.call("cpp.build", { jobs: 2 });
  if (!build.ok) throw new Error(`build failed: ${build.error.message}`);
}

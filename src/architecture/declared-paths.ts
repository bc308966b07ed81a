import path from "node:path";
import * as v from "valibot";
import type { ProjectLayout } from "../project/layout.js";
import { read_yaml_file } from "../project/yaml-file.js";

const Globs = v.optional(
  v.array(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.check((glob) => !glob.split("/").includes(".."), "a glob inside the project (no ..)"),
    ),
  ),
);

/**
 * `.air/shared/architecture.yaml`: where the project keeps its contracts, as globs relative to the root. A
 * change to a file they match sets off the Architecture Designer's gate, beside the defaults every project has.
 */
export const ArchitecturePaths = v.strictObject({
  interfaces: Globs,
  schemas: Globs,
  events: Globs,
  ipc: Globs,
  tools: Globs,
  providers: Globs,
  packages: Globs,
});
export type ArchitecturePaths = v.InferOutput<typeof ArchitecturePaths>;

const EXAMPLE = `interfaces: ["libs/*/include/**"]
schemas: ["db/migrations/**"]
events: ["src/events/**"]
ipc: ["proto/**"]
tools: []
providers: []
packages: ["libs/*/CMakeLists.txt"]`;

/** Where the file lives in a project. */
export function architecture_file(layout: ProjectLayout): string {
  return path.join(layout.shared, "architecture.yaml");
}

/** The declared paths, or none when the project has no file; a broken file is an AirError naming it and the field. */
export function load_architecture_paths(layout: ProjectLayout): ArchitecturePaths {
  return read_yaml_file(architecture_file(layout), { schema: ArchitecturePaths, example: EXAMPLE }) ?? {};
}

/** Capability manifests for tests: a valid one to start from, and places to put them (a user's air home, a project). */
import fs from "node:fs";
import path from "node:path";
import { capabilities_folder, project_capabilities_folder } from "../../src/capabilities/discover.js";

export type ManifestJson = Record<string, unknown>;

/** A valid project-local manifest with one command tool; `overrides` replace top-level fields. */
export function manifest(id: string, overrides: ManifestJson = {}): ManifestJson {
  return {
    schema_version: 1,
    id,
    version: "1.0.0",
    description: `the ${id} capability`,
    trust: "project_local",
    tools: [
      {
        name: `${id.replaceAll("-", "_")}.echo`,
        description: "Prints its argument in brackets.",
        category: "project",
        implementation: {
          kind: "command",
          argv: ["printf", "[%s]", "{value}"],
          parameters: { value: { type: "string", description: "What to print." } },
          required: ["value"],
        },
      },
    ],
    triggers: [{ kind: "always" }],
    ...overrides,
  };
}

/** Writes `<folder>/<id>/capability.json` (a manifest object as JSON, or raw text) and returns its path. */
export function write_manifest(folder: string, id: string, content: ManifestJson | string): string {
  const file = path.join(folder, id, "capability.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

export function write_user_manifest(air_home: string, id: string, content: ManifestJson | string): string {
  return write_manifest(capabilities_folder(air_home), id, content);
}

export function write_project_manifest(project_root: string, id: string, content: ManifestJson | string): string {
  return write_manifest(project_capabilities_folder(project_root), id, content);
}

import fs from "node:fs";
import path from "node:path";
import { to_air_error, type AirError } from "../contracts/errors.js";
import type { CapabilityTrust } from "../contracts/events/capability.js";
import { BUILTIN_TOOLS } from "../tools/builtin.js";
import { BUILTIN_CAPABILITIES, type BuiltinCapability } from "./builtin.js";
import type { CapabilityManifest } from "./manifest.js";
import { manifest_error, read_manifest_file, TRUST_CAP, validate_manifest, type ManifestSource } from "./validate.js";

/** Where a capability came from: shipped with air, or a `capability.json` in the user's or the project's folder. */
export type CapabilitySource = "built_in" | { readonly place: "user" | "project"; readonly file: string };

export type DiscoveredCapability = {
  readonly manifest: CapabilityManifest;
  readonly source: CapabilitySource;
  /** What it claims, capped by where it was found. */
  readonly trust: CapabilityTrust;
  /** The code of a built-in capability's tools. */
  readonly builtin?: BuiltinCapability;
};

/** A capability that cannot be used: its file (or built-in id), its folder's id when known, and why. */
export type CapabilityProblem = {
  readonly file: string;
  readonly place: ManifestSource["place"];
  readonly id?: string;
  readonly error: AirError;
};

export type DiscoveryOptions = {
  readonly project_root: string;
  readonly air_home: string;
  /** The capabilities shipped with air (default `BUILTIN_CAPABILITIES`; tests bring their own). */
  readonly builtins?: readonly BuiltinCapability[];
};

export type Discovery = { capabilities: DiscoveredCapability[]; problems: CapabilityProblem[] };

/** Tool names air registers itself; a capability's tool may neither take one nor live in one of their namespaces. */
const AIR_TOOLS = [...BUILTIN_TOOLS.map((tool) => tool.name), "model.complete", "context.compact"];
const AIR_NAMESPACES = new Set(AIR_TOOLS.map((name) => name.split(".")[0]));

export function capabilities_folder(air_home: string): string {
  return path.join(air_home, "capabilities");
}

export function project_capabilities_folder(project_root: string): string {
  return path.join(project_root, ".air", "shared", "capabilities");
}

/** `<folder>/<id>/capability.json` for every sub-folder, in name order (so discovery is deterministic). */
function manifest_files(folder: string): { id: string; file: string }[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((id) => ({ id, file: path.join(folder, id, "capability.json") }))
    .filter((candidate) => fs.existsSync(candidate.file));
}

/** What makes a capability's tools collide with air's or with another capability's, or its id with one found before. */
function conflict(manifest: CapabilityManifest, source: ManifestSource, known: readonly DiscoveredCapability[]): AirError | undefined {
  const same_id = known.find((other) => other.manifest.id === manifest.id);
  if (same_id !== undefined) {
    const where = same_id.source === "built_in" ? "a built-in capability" : `the capability in ${same_id.source.file}`;
    return manifest_error(source, "id", `${manifest.id} is already ${where}; a capability cannot replace another — pick another id`).error;
  }
  for (const [index, tool] of manifest.tools.entries()) {
    const namespace = tool.name.split(".")[0];
    if (AIR_TOOLS.includes(tool.name) || (namespace !== undefined && AIR_NAMESPACES.has(namespace))) {
      return manifest_error(source, `tools[${index}].name`, `${tool.name} is in air's own ${namespace}.* tools; pick another name`).error;
    }
    const owner = known.find((other) => other.manifest.tools.some((theirs) => theirs.name === tool.name));
    if (owner !== undefined) return manifest_error(source, `tools[${index}].name`, `${tool.name} is already a tool of ${owner.manifest.id}`).error;
  }
  return undefined;
}

function add_found(
  discovery: Discovery,
  source: ManifestSource,
  id: string | undefined,
  read: () => { manifest: CapabilityManifest; builtin?: BuiltinCapability },
): void {
  let found: { manifest: CapabilityManifest; builtin?: BuiltinCapability };
  try {
    found = read();
  } catch (error) {
    discovery.problems.push({ file: source.file, place: source.place, ...(id === undefined ? {} : { id }), error: to_air_error(error, "user_error") });
    return;
  }
  const { manifest } = found;
  const error = conflict(manifest, source, discovery.capabilities);
  if (error !== undefined) {
    discovery.problems.push({ file: source.file, place: source.place, id: manifest.id, error });
    return;
  }
  const capability: DiscoveredCapability = {
    manifest,
    source: source.place === "built_in" ? "built_in" : { place: source.place, file: source.file },
    // A claim above the place's cap was refused by validation, so what it claims is what it gets.
    trust: manifest.trust,
    ...(found.builtin === undefined ? {} : { builtin: found.builtin }),
  };
  discovery.capabilities.push(capability);
}

/** A folder named unlike its manifest's id would let two folders carry one capability: the folder names it. */
function folder_mismatch(source: ManifestSource, folder_id: string, manifest: CapabilityManifest): void {
  if (manifest.id !== folder_id) {
    throw manifest_error(source, "id", `is ${manifest.id}, but the manifest is in the folder ${folder_id}; name the folder after the id`);
  }
}

/**
 * Every capability air can see for a project, and every one it cannot use and why: built-ins first, then the
 * user's (`<air_home>/capabilities/<id>/capability.json`, trust at most `user_installed`), then the project's
 * (`.air/shared/capabilities/<id>/capability.json`, at most `project_local`). A later one never replaces an earlier
 * one: the same id, or a tool name taken, is a problem.
 */
export function discover_capabilities(options: DiscoveryOptions): Discovery {
  const discovery: Discovery = { capabilities: [], problems: [] };
  for (const builtin of options.builtins ?? BUILTIN_CAPABILITIES) {
    const source: ManifestSource = { file: `built-in capability ${builtin.manifest.id}`, place: "built_in" };
    add_found(discovery, source, builtin.manifest.id, () => ({ manifest: validate_manifest(builtin.manifest, source), builtin }));
  }
  const places = [
    { place: "user" as const, folder: capabilities_folder(options.air_home) },
    { place: "project" as const, folder: project_capabilities_folder(options.project_root) },
  ];
  for (const { place, folder } of places) {
    for (const { id, file } of manifest_files(folder)) {
      const source: ManifestSource = { file, place };
      add_found(discovery, source, id, () => {
        const manifest = read_manifest_file(source);
        folder_mismatch(source, id, manifest);
        return { manifest };
      });
    }
  }
  return discovery;
}

/** The trust a place allows, for a problem whose manifest could not be read. */
export function place_trust(place: ManifestSource["place"]): CapabilityTrust {
  return TRUST_CAP[place];
}

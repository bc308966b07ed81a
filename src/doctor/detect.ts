import fs from "node:fs";
import path from "node:path";
import type { CapabilityManifest, DependencyDetect, DependencySpec } from "../capabilities/manifest.js";
import { find_on_path } from "../tools/shell/sandbox.js";
import { meets_minimum } from "./version.js";

/**
 * The version line of a program: the first line its `version_args` print, or undefined when it does not run.
 * Injected so the startup check can answer from its cache and a test can count the probes.
 */
export type VersionSource = (program: string, args: readonly string[]) => string | undefined;

/** Where detection looks: the environment (PATH, variables) and the project relative file paths start from. */
export type DetectContext = { readonly env: NodeJS.ProcessEnv; readonly project_root: string; readonly versions: VersionSource };

/** What doctor found for one dependency (D-045 `detect`, read-only). */
type DependencyState =
  | { readonly state: "found"; readonly path: string | null; readonly version: string | null; readonly detected_by: string }
  | { readonly state: "missing"; readonly detected_by: string }
  | { readonly state: "too_old"; readonly path: string; readonly version: string | null; readonly min_version: string; readonly detected_by: string };

type DependencyCheck = Pick<DependencySpec, "id" | "kind" | "severity" | "required_for" | "risk"> & DependencyState;

type CapabilityStatus = "ok" | "warning" | "error";

/** One capability's dependencies; `error` when a required one is missing or too old (the capability cannot work). */
export type CapabilityDependencies = {
  readonly capability_id: string;
  readonly status: CapabilityStatus;
  readonly dependencies: readonly DependencyCheck[];
};

function detect_executable(detect: Extract<DependencyDetect, { by: "executable" }>, context: DetectContext): DependencyState {
  for (const name of detect.names) {
    const found = find_on_path(name, context.env.PATH);
    if (found === undefined) continue;
    const version = context.versions(found, detect.version_args) ?? null;
    const detected_by = `${found} on PATH; \`${[name, ...detect.version_args].join(" ")}\``;
    if (detect.min_version !== undefined && !meets_minimum(version, detect.min_version)) {
      return { state: "too_old", path: found, version, min_version: detect.min_version, detected_by };
    }
    return { state: "found", path: found, version, detected_by };
  }
  return { state: "missing", detected_by: `none of ${detect.names.join(", ")} on PATH` };
}

function detect_file(paths: readonly string[], project_root: string): DependencyState {
  for (const candidate of paths) {
    const absolute = path.resolve(project_root, candidate);
    if (fs.existsSync(absolute)) return { state: "found", path: absolute, version: null, detected_by: `file ${absolute}` };
  }
  return { state: "missing", detected_by: `none of ${paths.join(", ")} exists` };
}

function detect_dependency(spec: DependencySpec, context: DetectContext): DependencyCheck {
  const { id, kind, severity, required_for, risk } = spec;
  const detect = spec.detect;
  let state: DependencyState;
  if (detect.by === "executable") state = detect_executable(detect, context);
  else if (detect.by === "file") state = detect_file(detect.paths, context.project_root);
  else {
    const set = (context.env[detect.name] ?? "") !== "";
    state = set
      ? { state: "found", path: null, version: null, detected_by: `environment variable ${detect.name}` }
      : { state: "missing", detected_by: `environment variable ${detect.name} is not set` };
  }
  return { id, kind, severity, required_for, risk, ...state };
}

function status_of(checks: readonly DependencyCheck[]): CapabilityStatus {
  const unmet = checks.filter((check) => check.state !== "found");
  if (unmet.some((check) => check.severity === "required")) return "error";
  return unmet.length > 0 ? "warning" : "ok";
}

/** Every dependency of every capability given, detected read-only. */
export function check_dependencies(manifests: readonly CapabilityManifest[], context: DetectContext): CapabilityDependencies[] {
  return manifests.map((manifest) => {
    const dependencies = manifest.dependencies.map((spec) => detect_dependency(spec, context));
    return { capability_id: manifest.id, status: status_of(dependencies), dependencies };
  });
}

import type { CapabilityManifest } from "../capabilities/manifest.js";
import { air_home as default_air_home } from "../project/layout.js";
import { version_cache_file, VersionCache } from "./cache.js";
import { check_dependencies, type CapabilityDependencies, type VersionSource } from "./detect.js";
import { probe_version } from "./version.js";

export type StartupCheckOptions = {
  readonly manifests: readonly CapabilityManifest[];
  readonly project_root: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly air_home?: string;
  /** Default: run the program (a test counts its calls). */
  readonly probe?: VersionSource;
};

export type StartupCheck = {
  readonly capabilities: readonly CapabilityDependencies[];
  /** Version probes spawned; 0 when no program changed since the last check. */
  readonly probes: number;
  /** The one line to show at startup: set only when a required dependency is missing or too old. */
  readonly line: string | undefined;
};

function startup_line(capabilities: readonly CapabilityDependencies[]): string | undefined {
  const unmet = capabilities.flatMap((capability) =>
    capability.dependencies
      .filter((dependency) => dependency.severity === "required" && dependency.state !== "found")
      .map((dependency) => `${capability.capability_id}: ${dependency.id} ${dependency.state === "too_old" ? "too old" : "missing"}`),
  );
  if (unmet.length === 0) return undefined;
  return `air: required tools are not ready (${unmet.join(", ")}); run \`air doctor --fix\` to install them.`;
}

/**
 * The read-only doctor of every startup (D-045), cached by the programs' files: when nothing changed it
 * stats the candidates on PATH and spawns nothing. Never fails: a broken cache is rebuilt.
 */
export function startup_dependency_check(options: StartupCheckOptions): StartupCheck {
  const env = options.env ?? process.env;
  const cache = VersionCache.load(version_cache_file(options.air_home ?? default_air_home(env)));
  const versions = cache.source(options.probe ?? probe_version);
  const capabilities = check_dependencies(options.manifests, { env, project_root: options.project_root, versions });
  cache.save();
  return { capabilities, probes: cache.probes, line: startup_line(capabilities) };
}

/** For the capability lifecycle's `doctor_checked` step: how many of the manifest's dependencies are not ready. */
export function dependency_issues(
  manifest: CapabilityManifest,
  options: Omit<StartupCheckOptions, "manifests"> = { project_root: process.cwd() },
): { issues: number } {
  const [checked] = startup_dependency_check({ ...options, manifests: [manifest] }).capabilities;
  return { issues: checked?.dependencies.filter((dependency) => dependency.state !== "found").length ?? 0 };
}

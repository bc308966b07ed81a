import path from "node:path";
import { air_failure, to_air_error, type AirError } from "../contracts/errors.js";
import type { CapabilityTrust } from "../contracts/events/capability.js";
import type { Session } from "../project/session-manager.js";
import { dependency_issues } from "../doctor/startup.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { CapabilityTools } from "./builtin.js";
import { read_choices, type CapabilityChoices } from "./choices.js";
import {
  discover_capabilities,
  place_trust,
  type CapabilityProblem,
  type CapabilitySource,
  type DiscoveredCapability,
  type Discovery,
  type DiscoveryOptions,
} from "./discover.js";
import { CapabilityLifecycle } from "./lifecycle.js";
import type { CapabilityManifest } from "./manifest.js";
import { make_tools, verdict_of } from "./plan.js";

type CapabilityStatus = "enabled" | "disabled" | "failed" | "does_not_apply";

/** One capability as `air capability list` shows it and a session ended up with it. */
export type CapabilityEntry = {
  readonly id: string;
  readonly version?: string;
  readonly trust: CapabilityTrust;
  readonly source: CapabilitySource;
  readonly status: CapabilityStatus;
  readonly tools: readonly string[];
  readonly reason?: string;
  readonly error?: AirError;
};

export type CapabilityRegistryOptions = DiscoveryOptions & {
  /** The doctor's read-only check of a capability's dependencies (default: doctor's, cached by the tools' files). */
  readonly check_dependencies?: (manifest: CapabilityManifest) => { issues: number };
};

function entry_of(capability: DiscoveredCapability, status: CapabilityStatus, more: Partial<CapabilityEntry> = {}): CapabilityEntry {
  const { manifest } = capability;
  return {
    id: manifest.id,
    version: manifest.version,
    trust: capability.trust,
    source: capability.source,
    status,
    tools: manifest.tools.map((tool) => tool.name),
    ...more,
  };
}

function problem_entry(problem: CapabilityProblem): CapabilityEntry {
  const source: CapabilitySource = problem.place === "built_in" ? "built_in" : { place: problem.place, file: problem.file };
  return {
    id: problem.id ?? path.basename(path.dirname(problem.file)),
    trust: place_trust(problem.place),
    source,
    status: "failed",
    tools: [],
    error: problem.error,
  };
}

/**
 * The CapabilityRegistry (seeds 000 §9.5): what was discovered for a project, what trust and the project's choices
 * make of it, and — for a session — each capability driven through its lifecycle with its tools in the
 * ToolRegistry, where they are judged by the PermissionEngine like any other tool.
 */
export class CapabilityRegistry {
  readonly discovery: Discovery;
  readonly choices: CapabilityChoices;
  readonly #project_root: string;
  readonly #check_dependencies: (manifest: CapabilityManifest) => { issues: number };
  readonly #open: CapabilityTools[] = [];

  /** Discovers now; a broken `.air/shared/capabilities.yaml` is an AirError naming it. */
  constructor(options: CapabilityRegistryOptions) {
    this.#project_root = options.project_root;
    this.#check_dependencies =
      options.check_dependencies ?? ((manifest) => dependency_issues(manifest, { project_root: options.project_root, air_home: options.air_home }));
    this.choices = read_choices(options.project_root);
    this.discovery = discover_capabilities(options);
  }

  /** Every capability and problem with the status a session would give it; tools made to check them are closed again. */
  async entries(): Promise<CapabilityEntry[]> {
    const entries: CapabilityEntry[] = [];
    for (const capability of this.discovery.capabilities) {
      const verdict = verdict_of(capability, this.#project_root, this.choices);
      if (!verdict.on) {
        entries.push(entry_of(capability, verdict.status, { reason: verdict.reason }));
        continue;
      }
      try {
        await make_tools(capability).close();
        entries.push(entry_of(capability, "enabled"));
      } catch (error) {
        entries.push(entry_of(capability, "failed", { error: to_air_error(error, "user_error") }));
      }
    }
    return [...entries, ...this.discovery.problems.map(problem_entry)];
  }

  /** The manifests of the capabilities a session would enable here: what doctor checks and fixes. */
  enabled_manifests(): CapabilityManifest[] {
    return this.discovery.capabilities
      .filter((capability) => verdict_of(capability, this.#project_root, this.choices).on)
      .map((capability) => capability.manifest);
  }

  /**
   * Records every capability's lifecycle in the session and registers the tools of each enabled, applicable one:
   * discovered → validated → doctor_checked → enabled → tools_registered → activated, or disabled with the reason,
   * or failed with the error. A broken manifest is recorded as discovered, then failed.
   */
  activate(session: Session, tools: ToolRegistry): CapabilityEntry[] {
    const entries = this.discovery.capabilities.map((capability) => this.#activate_one(session, tools, capability));
    for (const problem of this.discovery.problems) {
      const entry = problem_entry(problem);
      const lifecycle = new CapabilityLifecycle(session, { name: entry.id, version: "unknown", trust_level: entry.trust });
      lifecycle.step("capability.failed", { error: problem.error });
      entries.push(entry);
    }
    return entries;
  }

  /** Closes the tools of every capability this registry activated (clangd and the like stop with the session). */
  async close(): Promise<void> {
    const open = this.#open.splice(0);
    await Promise.allSettled(open.map((capability) => capability.close()));
  }

  #activate_one(session: Session, tools: ToolRegistry, capability: DiscoveredCapability): CapabilityEntry {
    const { manifest } = capability;
    const lifecycle = new CapabilityLifecycle(session, { name: manifest.id, version: manifest.version, trust_level: capability.trust });
    const failed = (error: unknown) => {
      const air_error = to_air_error(error, "user_error");
      lifecycle.step("capability.failed", { error: air_error });
      return entry_of(capability, "failed", { error: air_error });
    };
    lifecycle.step("capability.validated", {});
    const verdict = verdict_of(capability, this.#project_root, this.choices);
    if (!verdict.on) {
      lifecycle.step("capability.disabled", { reason: verdict.reason });
      return entry_of(capability, verdict.status, { reason: verdict.reason });
    }
    let issues: number;
    try {
      issues = this.#check_dependencies(manifest).issues;
    } catch (error) {
      return failed(error);
    }
    lifecycle.step("capability.doctor_checked", { issues });
    let made: CapabilityTools;
    try {
      made = make_tools(capability);
    } catch (error) {
      return failed(error);
    }
    this.#open.push(made);
    lifecycle.step("capability.enabled", {});
    const taken = made.definitions.find((definition) => tools.get(definition.name) !== undefined);
    if (taken !== undefined) {
      return failed(
        air_failure({
          kind: "user_error",
          message: `the tool ${taken.name} of ${manifest.id} is already registered by another part of air`,
          retryability: "retryable_after_change",
          user_action: `Rename the tool in ${manifest.id}'s manifest, or disable it (air capability disable ${manifest.id}).`,
        }),
      );
    }
    for (const definition of made.definitions) tools.register(definition);
    const tool_names = made.definitions.map((definition) => definition.name);
    lifecycle.step("capability.tools_registered", { tool_names });
    lifecycle.step("capability.activated", {});
    return entry_of(capability, "enabled", { tools: tool_names });
  }
}

import fs from "node:fs";
import type { CapabilityManifest, DependencyRisk, DependencySpec } from "../capabilities/manifest.js";
import type { CapabilityDependencies } from "./detect.js";

export type Platform = "debian" | "other";

/** Debian (and its derivatives) when `/etc/debian_version` exists; only `any` commands apply elsewhere. */
export function current_platform(): Platform {
  return fs.existsSync("/etc/debian_version") ? "debian" : "other";
}

/**
 * How a step may run (D-045): `confirm` needs an explicit yes at a terminal, whatever the flags; `ask` takes a
 * yes from the terminal or `--yes`; `announce` is shown, then runs; `run` runs.
 */
type Consent = "run" | "announce" | "ask" | "confirm";

/** Low permission: the default and accept-edits modes; high: bypass (announce_then_run allowed after the first fix). */
type Posture = "low" | "high";

export type FixStep = {
  readonly command: string;
  /** `capability/dependency` for each dependency the command installs (one `apt-get` may serve several). */
  readonly fixes: readonly string[];
  readonly risk: DependencyRisk;
  readonly consent: Consent;
  readonly why: string;
};

/** A dependency doctor cannot install: no command for this platform, or its manifest says never. */
type ManualFix = { readonly fixes: string; readonly reason: string; readonly docs?: string };

export type FixPlan = { readonly steps: readonly FixStep[]; readonly manual: readonly ManualFix[] };

export type PlanOptions = { readonly platform: Platform; readonly posture: Posture; readonly first_fix: boolean };

const ALWAYS_CONFIRM = new Set<DependencyRisk>(["credentials", "system_sensitive"]);
const ASKS = new Set<DependencyRisk>(["needs_root", "downloads_code"]);
const CONSENT_RANK: Record<Consent, number> = { run: 0, announce: 1, ask: 2, confirm: 3 };

function consent_of(spec: DependencySpec, policy: "prompt" | "safe_cache" | "announce_then_run", first_fix: boolean): { consent: Consent; why: string } {
  if (ALWAYS_CONFIRM.has(spec.risk)) return { consent: "confirm", why: `${spec.risk} risk: always confirmed explicitly` };
  if (first_fix) return { consent: "ask", why: "the first fix on this machine always asks" };
  if (ASKS.has(spec.risk)) return { consent: "ask", why: `${spec.risk} risk` };
  if (policy === "prompt") return { consent: "ask", why: "the manifest asks before installing" };
  if (policy === "announce_then_run") return { consent: "announce", why: "announced, then run (high permission)" };
  return { consent: "run", why: "a safe cache install" };
}

function applies(platform: Platform, command: { platform: "debian" | "any" }): boolean {
  return command.platform === "any" || command.platform === platform;
}

/** The install commands for every dependency that is missing or too old, each command once, in manifest order. */
export function plan_fixes(manifests: readonly CapabilityManifest[], checked: readonly CapabilityDependencies[], options: PlanOptions): FixPlan {
  const steps = new Map<string, FixStep>();
  const manual: ManualFix[] = [];
  for (const manifest of manifests) {
    const report = checked.find((entry) => entry.capability_id === manifest.id);
    for (const spec of manifest.dependencies) {
      const state = report?.dependencies.find((dependency) => dependency.id === spec.id)?.state;
      if (state === undefined || state === "found") continue;
      const label = `${manifest.id}/${spec.id}`;
      const install = spec.install;
      const policy = install === undefined ? "never" : options.posture === "high" ? install.high_permission : install.low_permission;
      const commands = install?.commands.filter((command) => applies(options.platform, command)) ?? [];
      if (policy === "never" || commands.length === 0) {
        const reason = policy === "never" ? "its manifest says doctor never installs it" : `no install command for this platform (${options.platform})`;
        manual.push({ fixes: label, reason, ...(install?.docs === undefined ? {} : { docs: install.docs }) });
        continue;
      }
      const { consent, why } = consent_of(spec, policy, options.first_fix);
      for (const { command } of commands) {
        const earlier = steps.get(command);
        const stricter = earlier === undefined || CONSENT_RANK[consent] > CONSENT_RANK[earlier.consent];
        steps.set(command, {
          command,
          fixes: [...(earlier?.fixes ?? []), label],
          risk: stricter ? spec.risk : (earlier?.risk ?? spec.risk),
          consent: stricter ? consent : (earlier?.consent ?? consent),
          why: stricter ? why : (earlier?.why ?? why),
        });
      }
    }
  }
  return { steps: [...steps.values()], manual };
}

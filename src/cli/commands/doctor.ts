import fs from "node:fs";
import path from "node:path";
import { air_failure, make_air_error, to_air_error, type AirError } from "../../contracts/errors.js";
import { check_dependencies, type CapabilityDependencies } from "../../doctor/detect.js";
import { doctor_manifests } from "../../doctor/manifests.js";
import { probe_version } from "../../doctor/version.js";
import { air_home } from "../../project/layout.js";
import { locate_project_root } from "../../project/project-store.js";
import { load_provider_settings, no_provider_action } from "../../providers/config.js";
import { BWRAP_ACTION, choose_sandbox } from "../../tools/shell/sandbox.js";
import { render_error, table, type Io } from "../output.js";
import { mcp_checks } from "./doctor-mcp.js";

/** The oldest Node air runs on (package.json `engines`). */
const MIN_NODE: readonly [number, number] = [20, 12];

export type CheckStatus = "ok" | "warning" | "error";

export type DoctorCheck = {
  readonly id: string;
  readonly status: CheckStatus;
  readonly summary: string;
  /** For a warning: what to do about it. */
  readonly user_action?: string;
  /** For an error: what is wrong and what to do, as everywhere in air. */
  readonly error?: AirError;
  readonly detail?: Record<string, string | number | boolean | null>;
};

/**
 * `healthy`: air itself can run here. A capability's missing required dependency is that capability's error
 * (it cannot work), not air's: air needs none of them to run, so it leaves `healthy` and the exit code alone.
 */
export type DoctorReport = { readonly healthy: boolean; readonly checks: readonly DoctorCheck[]; readonly capabilities: readonly CapabilityDependencies[] };

function failed(id: string, summary: string, message: string, user_action: string): DoctorCheck {
  return { id, status: "error", summary, error: make_air_error({ kind: "env_error", message, retryability: "retryable_after_change", user_action }) };
}

/** The first line `program --version` prints, or undefined when it cannot run. */
function version_of(program: string): string | undefined {
  return probe_version(program, ["--version"]);
}

function check_node(): DoctorCheck {
  const version = process.versions.node;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const needed = `${MIN_NODE[0]}.${MIN_NODE[1]}`;
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return { id: "node", status: "ok", summary: `v${version}`, detail: { version } };
  return failed(
    "node",
    `v${version}, older than ${needed}`,
    `Node ${version} is older than ${needed}, the oldest air runs on`,
    `Install Node ${needed} or newer (e.g. with nvm).`,
  );
}

function check_git(): DoctorCheck {
  const version = version_of("git");
  if (version !== undefined) return { id: "git", status: "ok", summary: version, detail: { version } };
  return failed(
    "git",
    "not found",
    "git is not installed (no `git` on PATH); air's git tools and change tracking need it",
    "Install git (e.g. `apt-get install git`) and make sure it is on PATH.",
  );
}

/** cmake and ctest build and test C++ projects (and `air e2e cpp-fix-fixture`); other projects do without. */
function check_optional(program: string): DoctorCheck {
  const version = version_of(program);
  if (version !== undefined) return { id: program, status: "ok", summary: version, detail: { version } };
  return {
    id: program,
    status: "warning",
    summary: "not found: C++ projects cannot be built or tested",
    user_action: "Install cmake (e.g. `apt-get install cmake g++ make`) to work on CMake projects.",
    detail: { version: null },
  };
}

function check_sandbox(env: NodeJS.ProcessEnv): DoctorCheck {
  let choice: ReturnType<typeof choose_sandbox>;
  try {
    choice = choose_sandbox(env);
  } catch (error) {
    return { id: "sandbox", status: "error", summary: "AIR_SANDBOX is invalid", error: to_air_error(error) };
  }
  const probe = choice.probe;
  const detail = {
    setting: choice.setting,
    mode: choice.mode,
    bwrap: probe?.path ?? null,
    probe: probe === undefined ? null : probe.ok ? "ok" : probe.error,
  };
  if (!choice.usable) return { ...failed("sandbox", `required but unavailable: ${choice.reason}`, choice.reason, BWRAP_ACTION), detail };
  if (choice.mode === "bwrap") return { id: "sandbox", status: "ok", summary: `bwrap — ${choice.reason}`, detail };
  return { id: "sandbox", status: "warning", summary: `none: commands run unsandboxed — ${choice.reason}`, user_action: BWRAP_ACTION, detail };
}

function check_air_home(env: NodeJS.ProcessEnv): DoctorCheck {
  const home = air_home(env);
  const detail = { path: home, exists: fs.existsSync(home) };
  const writable = (folder: string) => {
    try {
      fs.accessSync(folder, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (detail.exists && !fs.statSync(home).isDirectory()) {
    return { ...failed("air_home", `${home} is not a folder`, `the air home ${home} is not a folder`, "Remove it or point AIR_HOME at a folder."), detail };
  }
  const folder = detail.exists ? home : path.dirname(home);
  if (!writable(folder)) {
    return {
      ...failed(
        "air_home",
        `${home} is not writable`,
        `the air home ${home} cannot be written`,
        "Fix its permissions, or point AIR_HOME at a writable folder.",
      ),
      detail,
    };
  }
  return { id: "air_home", status: "ok", summary: detail.exists ? home : `${home} (created on first use)`, detail };
}

/** Whether a model provider is configured, and from where — never the key itself. */
function check_provider(env: NodeJS.ProcessEnv): DoctorCheck {
  let settings: ReturnType<typeof load_provider_settings>;
  try {
    settings = load_provider_settings({ env });
  } catch (error) {
    return { id: "provider", status: "error", summary: "the provider configuration is broken", error: to_air_error(error) };
  }
  const detail = {
    provider: settings.provider_id,
    model: settings.model_id,
    api_key: settings.sources.api_key,
    base_url: settings.sources.base_url,
    models_file: settings.models_file,
  };
  if (settings.api_key === undefined && settings.key_required) {
    const places = `${settings.key_variables.join(", ") || "the environment"} or ${settings.models_file}`;
    return {
      ...failed(
        "provider",
        "no API key configured",
        `no model provider is configured: no key for ${settings.provider_id} in ${places}`,
        no_provider_action(settings.models_file, settings.provider_id, settings.key_variables),
      ),
      detail,
    };
  }
  const key = settings.api_key === undefined ? "no key needed" : `key from ${settings.sources.api_key}`;
  return { id: "provider", status: "ok", summary: `${settings.provider_id}, model ${settings.model_id}, ${key}`, detail };
}

/** The machine's checks, then one per configured MCP server (doctor-mcp.ts). */
async function doctor_report(env: NodeJS.ProcessEnv, project_root: string): Promise<DoctorReport> {
  const checks = [
    check_node(),
    check_git(),
    check_optional("cmake"),
    check_optional("ctest"),
    check_sandbox(env),
    check_air_home(env),
    check_provider(env),
    ...(await mcp_checks(project_root, env)),
  ];
  const capabilities = check_dependencies(doctor_manifests(project_root, air_home(env)), { env, project_root, versions: probe_version });
  return { healthy: checks.every((check) => check.status !== "error"), checks, capabilities };
}

function dependency_detail(dependency: CapabilityDependencies["dependencies"][number]): string {
  if (dependency.state === "missing") return dependency.detected_by;
  const version = dependency.version ?? "no version";
  if (dependency.state === "too_old") return `${version}, older than ${dependency.min_version} (${dependency.detected_by})`;
  return dependency.version === null ? dependency.detected_by : `${version} (${dependency.detected_by})`;
}

/** Each capability's dependencies, and what to run when one is not ready. */
function render_capabilities(io: Io, capabilities: readonly CapabilityDependencies[]): void {
  const rows = capabilities.flatMap((capability) =>
    capability.dependencies.map((dependency) => [
      capability.capability_id,
      dependency.id,
      dependency.severity,
      dependency.state,
      dependency_detail(dependency),
    ]),
  );
  if (rows.length === 0) return;
  io.out(table([["CAPABILITY", "DEPENDENCY", "SEVERITY", "STATE", "DETAIL"], ...rows]));
  for (const capability of capabilities) {
    const unmet = capability.dependencies.filter((dependency) => dependency.state !== "found").map((dependency) => dependency.id);
    if (capability.status === "error") io.out(`  ${capability.capability_id}: cannot work until ${unmet.join(", ")} are ready; run \`air doctor --fix\`.\n`);
    else if (capability.status === "warning")
      io.out(`  ${capability.capability_id}: works with less (${unmet.join(", ")} not ready); \`air doctor --fix\` installs them.\n`);
  }
}

export type DoctorOptions = {
  readonly json: boolean;
  readonly fix?: boolean;
  readonly dry_run?: boolean;
  readonly yes?: boolean;
  readonly bundle?: boolean;
  readonly out?: string;
};

function usage_failure(message: string, user_action: string): Error {
  return air_failure({ kind: "user_error", message, retryability: "not_retryable", user_action });
}

/**
 * `air doctor [--json] [--fix [--dry-run] [--yes] | --bundle [--out PATH]]`: what air and each capability need
 * from this machine; exit 1 when air itself cannot run. `--fix` installs what capabilities miss
 * (doctor-fix.ts); `--bundle` writes a local archive for a bug report (doctor-bundle.ts).
 */
export async function run_doctor(io: Io, options: DoctorOptions): Promise<number> {
  if (options.out !== undefined && options.bundle !== true) {
    throw usage_failure("--out goes with --bundle", "Run `air doctor --bundle --out PATH` to choose where the bundle is written.");
  }
  if (options.bundle === true && options.fix === true) {
    throw usage_failure("--bundle and --fix are separate runs", "Run `air doctor --fix` first, then `air doctor --bundle`.");
  }
  const project_root = locate_project_root(io.cwd) ?? io.cwd;
  if (options.bundle === true) {
    const report = await doctor_report(process.env, project_root);
    return (await import("./doctor-bundle.js")).run_doctor_bundle(io, report, {
      json: options.json,
      project_root,
      ...(options.out === undefined ? {} : { out: options.out }),
    });
  }
  if (options.fix !== true && (options.dry_run === true || options.yes === true)) {
    throw air_failure({
      kind: "user_error",
      message: "--dry-run and --yes go with --fix",
      retryability: "not_retryable",
      user_action: "Run `air doctor --fix --dry-run` to see what would be installed, or `air doctor --fix` to install it.",
    });
  }
  if (options.fix === true)
    return (await import("./doctor-fix.js")).run_doctor_fix(io, { json: options.json, dry_run: options.dry_run === true, yes: options.yes === true });
  const report = await doctor_report(process.env, project_root);
  if (options.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report.healthy ? 0 : 1;
  }
  io.out(table([["CHECK", "STATUS", "DETAIL"], ...report.checks.map((check) => [check.id, check.status, check.summary])]));
  for (const check of report.checks) {
    if (check.status === "warning" && check.user_action !== undefined) io.out(`  ${check.id}: ${check.user_action}\n`);
  }
  for (const check of report.checks) if (check.error !== undefined) io.err(render_error(check.error));
  render_capabilities(io, report.capabilities);
  io.out(report.healthy ? "air can run here.\n" : "air cannot run here until the errors are fixed.\n");
  return report.healthy ? 0 : 1;
}

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";

/**
 * Which sandbox `shell.run` commands get (DESIGN §6, issue 4 "Execution hardening"): bubblewrap where it
 * works, else none. `AIR_SANDBOX` picks: `auto` (default) uses bwrap when the probe succeeds, `bwrap`
 * requires it (a command fails rather than run unsandboxed), `off` never uses it.
 */
const SANDBOX_SETTINGS = ["auto", "bwrap", "off"] as const;
export type SandboxSetting = (typeof SANDBOX_SETTINGS)[number];
export type SandboxMode = "bwrap" | "none";

/**
 * The namespaces and privileges every sandboxed command runs with; the probe runs exactly these, so a
 * container that forbids one of them (user or pid namespaces, usually) is found before a command runs.
 */
export const BWRAP_ISOLATION = ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL"] as const;
const PROBE_ARGS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-net", ...BWRAP_ISOLATION, "--", "true"];
const PROBE_TIMEOUT_MS = 10_000;

export type BwrapProbe = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly path: string | undefined; readonly error: string };

export type SandboxChoice = {
  readonly setting: SandboxSetting;
  readonly mode: SandboxMode;
  /** False when `AIR_SANDBOX=bwrap` and bwrap does not work: commands must not run. */
  readonly usable: boolean;
  /** Why this mode, in words for `air doctor` and error messages. */
  readonly reason: string;
  /** Undefined when `AIR_SANDBOX=off` (bwrap is not looked for). */
  readonly probe: BwrapProbe | undefined;
};

export function sandbox_setting(env: NodeJS.ProcessEnv = process.env): SandboxSetting {
  const value = env.AIR_SANDBOX?.trim() ?? "";
  if (value === "") return "auto";
  if ((SANDBOX_SETTINGS as readonly string[]).includes(value)) return value as SandboxSetting;
  throw air_failure({
    kind: "env_error",
    message: `AIR_SANDBOX=${JSON.stringify(value)} is not one of ${SANDBOX_SETTINGS.join(", ")}`,
    retryability: "retryable_after_change",
    user_action: "Set AIR_SANDBOX to auto (bwrap when it works), bwrap (required) or off, or unset it.",
  });
}

/** Whether `file` is a regular file this process may execute. */
export function is_executable_file(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, as an absolute path (so a later PATH change cannot swap it). */
export function find_on_path(name: string, search_path: string | undefined): string | undefined {
  for (const folder of (search_path ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, name);
    if (is_executable_file(candidate)) return candidate;
  }
  return undefined;
}

/** Runs bwrap once with the sandbox's namespaces: present on PATH is not enough inside many containers. */
export function run_bwrap_probe(search_path: string | undefined): BwrapProbe {
  const bwrap = find_on_path("bwrap", search_path);
  if (bwrap === undefined) return { ok: false, path: undefined, error: "bwrap is not on PATH" };
  const result = spawnSync(bwrap, PROBE_ARGS, { stdio: ["ignore", "ignore", "pipe"], timeout: PROBE_TIMEOUT_MS, env: { PATH: search_path ?? "" } });
  if (result.error !== undefined) return { ok: false, path: bwrap, error: result.error.message };
  if (result.status === 0) return { ok: true, path: bwrap };
  const stderr = result.stderr.toString("utf8").trim();
  const status = result.status === null ? `was killed by ${result.signal}` : `exited with ${result.status}`;
  return { ok: false, path: bwrap, error: stderr === "" ? `the probe ${status}` : stderr };
}

let cached_probe: BwrapProbe | undefined;

/** The probe's result, run once per process. */
export function bwrap_probe(): BwrapProbe {
  cached_probe ??= run_bwrap_probe(process.env.PATH);
  return cached_probe;
}

export function choose_sandbox(env: NodeJS.ProcessEnv = process.env, probe: () => BwrapProbe = bwrap_probe): SandboxChoice {
  const setting = sandbox_setting(env);
  if (setting === "off") return { setting, mode: "none", usable: true, reason: "AIR_SANDBOX=off", probe: undefined };
  const result = probe();
  if (result.ok) return { setting, mode: "bwrap", usable: true, reason: `bwrap works here (${result.path})`, probe: result };
  const why = `bwrap cannot be used: ${result.error}`;
  if (setting === "bwrap") return { setting, mode: "none", usable: false, reason: `AIR_SANDBOX=bwrap but ${why}`, probe: result };
  return { setting, mode: "none", usable: true, reason: why, probe: result };
}

/** What to do when bwrap is missing or broken, for errors and `air doctor`. */
export const BWRAP_ACTION =
  "Install bubblewrap (`apt-get install -y bubblewrap`); inside a container, allow user namespaces " +
  "(e.g. docker --security-opt seccomp=unconfined, or run privileged). Or set AIR_SANDBOX=off to run commands unsandboxed.";

/** The sandbox for the next command; throws when `AIR_SANDBOX=bwrap` cannot be honoured. */
export function require_sandbox(env: NodeJS.ProcessEnv = process.env): SandboxChoice {
  const choice = choose_sandbox(env);
  if (!choice.usable) {
    throw air_failure({
      kind: "env_error",
      message: choice.reason,
      retryability: "retryable_after_change",
      user_action: BWRAP_ACTION,
      metadata: { setting: choice.setting },
    });
  }
  return choice;
}

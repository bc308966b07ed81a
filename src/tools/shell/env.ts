import { is_credential_variable } from "../../permissions/credentials.js";

/**
 * The environment a command gets (DESIGN §6): the parent's, minus credentials and minus variables that
 * inject behaviour into the shell or the tools it runs. Nothing is added.
 */
const DROPPED_PATTERNS: readonly RegExp[] = [
  // git and npm configuration injected through the environment
  /^GIT_/i,
  /^npm_config_/i,
  /^npm_package_/i,
  /^npm_lifecycle_/i,
  // code injected into every bash / dynamic linker / node process
  /^BASH_FUNC_/,
];
const DROPPED_NAMES = new Set([
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "CDPATH",
  "GLOBIGNORE",
  "PROMPT_COMMAND",
  "PS4",
  "IFS",
  "LD_PRELOAD",
  "LD_AUDIT",
  "LD_LIBRARY_PATH",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "NODE_OPTIONS",
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "PWD",
  "OLDPWD",
]);

export function is_dropped_variable(name: string): boolean {
  return is_credential_variable(name) || DROPPED_NAMES.has(name) || DROPPED_PATTERNS.some((pattern) => pattern.test(name));
}

export function scrub_env(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || is_dropped_variable(name)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}

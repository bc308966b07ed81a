import { is_credential_variable } from "../../permissions/credentials.js";
import { neutral_git_env } from "../git/neutral-config.js";

/**
 * Variables that make a program run code or load configuration the command line does not show: a
 * tool's config injected through the environment, or code injected into every process of a language
 * runtime, the dynamic linker or the shell. The CommandRiskAnalyzer judges the command it reads; these
 * would change what that command does behind its back.
 */
const DROPPED_PATTERNS: readonly RegExp[] = [
  // git, npm, yarn and pnpm configuration (yarn's YARN_YARN_PATH runs any script as "yarn")
  /^GIT_/i,
  /^npm_/i,
  /^YARN_/i,
  /^PNPM_/i,
  // every dynamic linker knob (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH …)
  /^LD_/,
  /^DYLD_/,
  // exported bash functions run under the name of any command
  /^BASH_FUNC_/,
  // programs run to ask for a password (SSH_ASKPASS, SUDO_ASKPASS)
  /ASKPASS$/,
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
  "NODE_OPTIONS",
  "PYTHONSTARTUP",
  "PYTHONWARNINGS",
  "PYTHONBREAKPOINT",
  "PYTHONINSPECT",
  "PERL5OPT",
  "PERL5DB",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "GCONV_PATH",
  "LESSOPEN",
  "LESSCLOSE",
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "PWD",
  "OLDPWD",
]);

export function is_dropped_variable(name: string): boolean {
  return is_credential_variable(name) || DROPPED_NAMES.has(name) || DROPPED_PATTERNS.some((pattern) => pattern.test(name));
}

/** The parent's environment minus credentials and every variable above. Nothing is added. */
export function scrub_env(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || is_dropped_variable(name)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}

/**
 * The environment of a `shell.run` command (DESIGN §6): scrubbed, then the neutral git configuration,
 * so a `git status` inside the command runs no fsmonitor, hook, pager or ssh command a repository names.
 */
export function shell_env(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { ...scrub_env(env), ...neutral_git_env() };
}

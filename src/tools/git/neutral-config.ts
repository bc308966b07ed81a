/**
 * Git configuration that executes code (seeds 003 §12, DESIGN §6): a hook, an fsmonitor, an SSH
 * command, a pager or an editor set in a repository's config runs whatever it names the next time a
 * harmless-looking `git status` or `git commit` runs. Every git that air starts — its own git tools
 * and any git inside `shell.run` — gets these values at command-line precedence, through
 * `GIT_CONFIG_COUNT`, so no repository, global or system setting can bring them back.
 */
const NEUTRAL_GIT_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.sshCommand", "ssh"],
  ["core.pager", "cat"],
  ["core.editor", "true"],
  ["sequence.editor", "true"],
  // An empty value resets the list: no credential helper program runs.
  ["credential.helper", ""],
  ["protocol.ext.allow", "never"],
  // Signing runs gpg.program; an askpass program runs when git wants a password.
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["gpg.program", "gpg"],
  ["core.askPass", ""],
];

/** Environment variables that pin the pager and editor whatever the configuration says. */
const NEUTRAL_GIT_VARIABLES: Readonly<Record<string, string>> = {
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
};

/**
 * The variables to add to an already scrubbed environment (one with no `GIT_*` left) so that every git
 * started under it runs with `NEUTRAL_GIT_CONFIG`.
 */
export function neutral_git_env(): Record<string, string> {
  const env: Record<string, string> = { ...NEUTRAL_GIT_VARIABLES, GIT_CONFIG_COUNT: String(NEUTRAL_GIT_CONFIG.length) };
  NEUTRAL_GIT_CONFIG.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

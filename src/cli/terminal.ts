/** CI set to anything but "0"/"false" means nobody is there to answer. */
export function in_ci(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Whether a person can answer prompts: a terminal on both ends and not CI. */
export function is_interactive(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true && !in_ci(env);
}

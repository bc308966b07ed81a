import path from "node:path";
import { require_sandbox, find_on_path, type SandboxChoice } from "../tools/shell/sandbox.js";
import { bwrap_args, plan_sandbox } from "../tools/shell/sandbox-plan.js";
import { air_failure } from "../contracts/errors.js";
import type { McpTransport } from "./config.js";

type StdioTransport = Extract<McpTransport, { kind: "stdio" }>;

/** The program and arguments that start a stdio server: wrapped so it sees exactly the environment it is given. */
export type Launch = { readonly command: string; readonly args: readonly string[]; readonly sandboxed: boolean };

/**
 * The PATH a server gets when its entry names none: the system's folders, after the folder of the node that runs
 * air — so `npx`/`node` servers, the common kind, find the same node.
 */
export function minimal_path(): string {
  return [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].filter((folder, index, all) => all.indexOf(folder) === index).join(":");
}

/** A server's whole environment: what its entry declares, and PATH. Provider keys and the user's variables stay out. */
function server_env(transport: StdioTransport): Record<string, string> {
  return { PATH: minimal_path(), ...transport.env };
}

/**
 * How to start a stdio server in the project folder. The SDK's transport adds HOME, USER, PATH and a few more
 * of the parent's variables to any environment it is given, so the environment is replaced one step later: by
 * bubblewrap's `--clearenv` inside the shell sandbox (the project writable, air's home and the home's credential
 * folders masked, the network kept — a server is a network tool), or by `env -i` where bwrap cannot run.
 */
export function launch_of(transport: StdioTransport, project_root: string, sandbox: SandboxChoice = require_sandbox()): Launch {
  const env = server_env(transport);
  const assignments = Object.entries(env);
  if (sandbox.mode === "bwrap" && sandbox.probe?.ok === true) {
    const plan = plan_sandbox({ project_root, cwd: project_root, network: true });
    const setenv = assignments.flatMap(([name, value]) => ["--setenv", name, value]);
    return { command: sandbox.probe.path, args: [...bwrap_args(plan), "--clearenv", ...setenv, "--", transport.command, ...transport.args], sandboxed: true };
  }
  const env_program = find_on_path("env", "/usr/bin:/bin");
  if (env_program === undefined) {
    throw air_failure({
      kind: "env_error",
      message: "cannot start an MCP server: neither bubblewrap nor env(1) is usable to give it a clean environment",
      retryability: "retryable_after_change",
      user_action: "Install coreutils (env) or bubblewrap.",
    });
  }
  return {
    command: env_program,
    args: ["-i", "--", ...assignments.map(([name, value]) => `${name}=${value}`), transport.command, ...transport.args],
    sandboxed: false,
  };
}

import path from "node:path";
import { make_air_error, to_air_error, type AirError } from "../../contracts/errors.js";
import { expand_transport, read_mcp_config, type McpServerConfig, type McpTransport } from "../../mcp/config.js";
import { minimal_path } from "../../mcp/launch.js";
import { air_home } from "../../project/layout.js";
import { find_on_path, is_executable_file } from "../../tools/shell/sandbox.js";
import type { DoctorCheck } from "./doctor.js";

type StdioTransport = Extract<McpTransport, { kind: "stdio" }>;
type Detail = NonNullable<DoctorCheck["detail"]>;

/** The PATH the server gets: its entry's own, or the minimal one (launch.ts). */
function search_path(transport: StdioTransport): string {
  return transport.env.PATH ?? minimal_path();
}

/** Where the server's command is, as its launch would find it: a path from the project folder, or on the PATH the server gets. */
function locate_command(transport: StdioTransport, project_root: string): string | undefined {
  if (transport.command.includes("/")) {
    const file = path.resolve(project_root, transport.command);
    return is_executable_file(file) ? file : undefined;
  }
  return find_on_path(transport.command, search_path(transport));
}

/**
 * A server that cannot work is a warning, not an error: air runs without it, as it runs without a capability
 * whose dependency is missing; the session only lacks that server's tools.
 */
function failed_server(id: string, detail: Detail, error: AirError): DoctorCheck {
  return {
    id,
    status: "warning",
    summary: `failed: ${error.message}`,
    ...(error.user_action === undefined ? {} : { user_action: error.user_action }),
    detail: { ...detail, state: "failed", error: error.message },
  };
}

/** The command as written (an expanded `${VAR}` could be a secret), and where it was looked for. */
function command_missing(server: McpServerConfig, transport: StdioTransport, project_root: string): AirError {
  const written = server.transport.kind === "stdio" ? server.transport.command : transport.command;
  const { command } = transport;
  const searched = path.isAbsolute(command) ? "" : command.includes("/") ? ` from ${project_root}` : ` on the PATH it gets (${search_path(transport)})`;
  return make_air_error({
    kind: "env_error",
    message: `MCP server "${server.name}": its command ${written} is not found${searched}`,
    retryability: "retryable_after_change",
    user_action: `Install it, or give its absolute path in ${server.file}.`,
  });
}

/**
 * One server's check: its command found (stdio); then, if air may start it without asking, a start that lists
 * its tools and stops it. A project server not yet approved is only looked at: starting it is what approval is for.
 */
async function server_check(server: McpServerConfig, project_root: string, may_start: boolean, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const id = `mcp:${server.name}`;
  const detail: Detail = { scope: server.scope, file: server.file, transport: server.transport.kind };
  let transport: McpTransport;
  try {
    transport = expand_transport(server, env);
  } catch (error) {
    return failed_server(id, detail, to_air_error(error));
  }
  if (transport.kind === "stdio") {
    const command = locate_command(transport, project_root);
    if (command === undefined) return failed_server(id, detail, command_missing(server, transport, project_root));
    detail.command = command;
  }
  if (!may_start) {
    return { id, status: "ok", summary: "needs approval: the first session that starts it asks you", detail: { ...detail, state: "needs_approval" } };
  }
  const { probe_server } = await import("../../mcp/probe.js");
  const result = await probe_server(server, project_root);
  if (result.state === "failed") return failed_server(id, detail, result.error);
  const tools = result.listing.tools.length;
  return { id, status: "ok", summary: `running, ${tools} tool${tools === 1 ? "" : "s"}`, detail: { ...detail, state: "running", tools } };
}

/**
 * A check for each configured MCP server, started in parallel. A config (or permissions) file that cannot be
 * read is one failed check naming it: a session starts none of the servers until it is fixed.
 */
export async function mcp_checks(project_root: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  let servers: McpServerConfig[];
  let approved: ReadonlySet<McpServerConfig>;
  try {
    servers = read_mcp_config({ project_root, air_home: air_home(env) });
    if (servers.length === 0) return [];
    approved = (await import("../../mcp/probe.js")).approved_servers(project_root, servers);
  } catch (error) {
    const air_error = to_air_error(error);
    const file = air_error.metadata?.file;
    return [{ id: "mcp", status: "error", summary: `${typeof file === "string" ? file : "the MCP configuration"} is invalid`, error: air_error }];
  }
  return Promise.all(servers.map((server) => server_check(server, project_root, approved.has(server), env)));
}

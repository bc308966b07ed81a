import { to_air_error, type AirError } from "../contracts/errors.js";
import { project_layout } from "../project/layout.js";
import { permissions_for_project } from "../permissions/session-permissions.js";
import type { McpServerConfig } from "./config.js";
import { McpConnection, type McpListing } from "./connection.js";

/** What a one-off start of a server found: what it offers, or why it did not start. */
export type ProbeResult = { readonly state: "running"; readonly listing: McpListing } | { readonly state: "failed"; readonly error: AirError };

/**
 * Which servers `air mcp list` and `air doctor` may start: a user's own always; a project's only once the
 * project approved this very entry. A session asks the first time it starts one, and a cloned repository's
 * `.mcp.json` must not get to run a command merely because someone looked at the list.
 */
export function approved_servers(project_root: string, servers: readonly McpServerConfig[]): Set<McpServerConfig> {
  const project = servers.filter((server) => server.scope === "project");
  // The permissions files are read only when there is a project server to ask about.
  const grants = project.length === 0 ? undefined : permissions_for_project(project_layout(project_root), {}).grants;
  const approved = project.filter((server) => grants?.find({ kind: "mcp_server", server: server.name, fingerprint: server.fingerprint })?.effect === "allow");
  return new Set([...servers.filter((server) => server.scope === "user"), ...approved]);
}

/** Starts a server, lists what it offers and stops it again, whatever happened: no process outlives the look. */
export async function probe_server(server: McpServerConfig, project_root: string): Promise<ProbeResult> {
  const connection = new McpConnection(server, { project_root });
  try {
    return { state: "running", listing: await connection.listing() };
  } catch (error) {
    return { state: "failed", error: to_air_error(error) };
  } finally {
    await connection.close();
  }
}

import { CapabilityLifecycle } from "../capabilities/lifecycle.js";
import { to_air_error } from "../contracts/errors.js";
import type { PermissionEngine } from "../permissions/engine.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { McpServerEntry, McpServersOptions } from "./activation.js";
import { read_mcp_config, type McpServerConfig } from "./config.js";
import type { McpConnection } from "./connection.js";

export type { McpServerEntry, McpServersOptions } from "./activation.js";

/** The command line or address a server is reached by, as the approval question shows it (never its env values). */
function reached_by(server: McpServerConfig): string {
  const { transport } = server;
  return transport.kind === "stdio" ? [transport.command, ...transport.args].join(" ") : `${transport.kind} ${transport.url}`;
}

/**
 * The MCP servers of one session (issue 16): each configured server is a capability — discovered, validated, for a
 * project's own server approved by the user, its tools registered in the ToolRegistry (where every call is judged by
 * the PermissionEngine like any tool) — started on first use (or at once, when its tools are not known yet), and
 * every server is stopped with the session.
 */
export class McpServers {
  readonly #connections: McpConnection[] = [];

  constructor(
    private readonly session: Session,
    private readonly options: McpServersOptions,
  ) {}

  /** Each server's connection, started or not (tests check that none outlives the session). */
  get connections(): readonly McpConnection[] {
    return this.#connections;
  }

  /**
   * Reads the configuration and brings every server up, in parallel, recording each one's lifecycle. A broken
   * configuration starts nothing: it is recorded as a failed capability and returned as the one entry.
   */
  async activate(tools: ToolRegistry, permissions: PermissionEngine): Promise<McpServerEntry[]> {
    let servers: McpServerConfig[];
    try {
      servers = read_mcp_config({ project_root: this.session.project.layout.root, air_home: this.options.air_home });
    } catch (error) {
      const air_error = to_air_error(error, "user_error");
      const lifecycle = new CapabilityLifecycle(this.session, { name: "mcp", version: "unknown", trust_level: "project_local" });
      lifecycle.step("capability.failed", { error: air_error });
      return [{ name: "mcp", capability_id: lifecycle.capability_id, scope: "project", status: "failed", tools: [], skipped: [], error: air_error }];
    }
    if (servers.length === 0) return [];
    const approvals = new Map<McpServerConfig, string | undefined>();
    // One question at a time, before anything starts: a prompt is never raced by a server's output.
    for (const server of servers) approvals.set(server, await this.#refusal(server, permissions));
    // The MCP SDK and the JSON Schema validator cost a few hundred ms to load: only a project with servers pays it.
    const { McpActivation } = await import("./activation.js");
    const activation = new McpActivation(this.session, this.options, (connection) => this.#connections.push(connection));
    return Promise.all(servers.map((server) => activation.activate(server, approvals.get(server), tools)));
  }

  /** Stops every server this session started; none outlives it. */
  async close(): Promise<void> {
    const open = this.#connections.splice(0);
    await Promise.allSettled(open.map((connection) => connection.close()));
  }

  /** Why a server may not start (a project's server the user did not approve), or undefined when it may. */
  async #refusal(server: McpServerConfig, permissions: PermissionEngine): Promise<string | undefined> {
    if (server.scope !== "project") return undefined;
    const verdict = await permissions.approve(
      {
        subject: `mcp.${server.segment}`,
        question: `Start the MCP server "${server.name}" from this project's .mcp.json? It runs: ${reached_by(server)}`,
        reason: `${server.file} is the project's, not yours: its servers run only once you approve them`,
        risk_level: "medium",
        subjects: [{ kind: "mcp_server", server: server.name, fingerprint: server.fingerprint }],
        commands: server.transport.kind === "stdio" ? [reached_by(server)] : [],
      },
      this.session,
    );
    return verdict.allowed ? undefined : `not approved: ${verdict.reason}`;
  }
}

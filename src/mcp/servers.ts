import { CapabilityLifecycle } from "../capabilities/lifecycle.js";
import { to_air_error, type AirError } from "../contracts/errors.js";
import type { PermissionEngine } from "../permissions/engine.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import { read_mcp_config, type McpServerConfig } from "./config.js";
import { McpConnection, type McpConnectionOptions, type McpListing } from "./connection.js";
import { McpToolCache } from "./tool-cache.js";
import { mcp_tools, type SkippedTool } from "./tools.js";

/** How one configured server ended up in a session. */
export type McpServerEntry = {
  readonly name: string;
  readonly capability_id: string;
  readonly scope: McpServerConfig["scope"];
  readonly status: "enabled" | "disabled" | "failed";
  readonly tools: readonly string[];
  readonly skipped: readonly SkippedTool[];
  readonly reason?: string;
  readonly error?: AirError;
};

export type McpServersOptions = Omit<McpConnectionOptions, "project_root" | "on_listing"> & { readonly air_home: string };

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
  readonly #cache: McpToolCache;

  constructor(
    private readonly session: Session,
    private readonly options: McpServersOptions,
  ) {
    this.#cache = new McpToolCache(session.project.layout.mcp_tools);
  }

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
    const approvals = new Map<McpServerConfig, string | undefined>();
    // One question at a time, before anything starts: a prompt is never raced by a server's output.
    for (const server of servers) approvals.set(server, await this.#refusal(server, permissions));
    return Promise.all(servers.map((server) => this.#activate_one(server, approvals.get(server), tools)));
  }

  /** Keeps a server's tool list for the next session; a cache that cannot be written only means that one lists again. */
  #remember(server: McpServerConfig): (listing: McpListing) => void {
    return (listing) => {
      try {
        this.#cache.remember(server, listing.tools);
      } catch {
        // the next session starts the server to list its tools, as if it had never run
      }
    };
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

  async #activate_one(server: McpServerConfig, refusal: string | undefined, tools: ToolRegistry): Promise<McpServerEntry> {
    const capability_id = `mcp.${server.segment}`;
    const lifecycle = new CapabilityLifecycle(this.session, { name: capability_id, version: server.fingerprint.slice(0, 12), trust_level: server.trust });
    const entry = { name: server.name, capability_id, scope: server.scope, tools: [], skipped: [] };
    lifecycle.step("capability.validated", {});
    if (refusal !== undefined) {
      lifecycle.step("capability.disabled", { reason: refusal });
      return { ...entry, status: "disabled", reason: refusal };
    }
    const connection = new McpConnection(server, { ...this.options, project_root: this.session.project.layout.root, on_listing: this.#remember(server) });
    this.#connections.push(connection);
    let tools_listed = this.#cache.tools_of(server);
    try {
      // A server whose tools are known starts on the first call to one of them; an unknown one starts now to list them.
      tools_listed ??= [...(await connection.listing()).tools];
    } catch (error) {
      const air_error = to_air_error(error, "tool_error");
      lifecycle.step("capability.failed", { error: air_error });
      return { ...entry, status: "failed", error: air_error };
    }
    lifecycle.step("capability.doctor_checked", { issues: 0 });
    lifecycle.step("capability.enabled", {});
    const made = mcp_tools(connection, tools_listed);
    const skipped = [...made.skipped];
    const tool_names: string[] = [];
    for (const definition of made.definitions) {
      if (tools.get(definition.name) === undefined) {
        tools.register(definition);
        tool_names.push(definition.name);
      } else skipped.push({ tool: definition.name, reason: "another part of air already has a tool of that name" });
    }
    lifecycle.step("capability.tools_registered", { tool_names });
    lifecycle.step("capability.activated", {});
    return { ...entry, status: "enabled", tools: tool_names, skipped };
  }
}

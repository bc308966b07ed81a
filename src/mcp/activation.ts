import { CapabilityLifecycle } from "../capabilities/lifecycle.js";
import { to_air_error, type AirError } from "../contracts/errors.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { McpServerConfig } from "./config.js";
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

/**
 * One session's servers brought up, each through the capability lifecycle: the module that holds the MCP SDK and
 * the JSON Schema validator, loaded only where a server is configured.
 */
export class McpActivation {
  readonly #cache: McpToolCache;

  constructor(
    private readonly session: Session,
    private readonly options: McpServersOptions,
    private readonly opened: (connection: McpConnection) => void,
  ) {
    this.#cache = new McpToolCache(session.project.layout.mcp_tools);
  }

  /**
   * A server's tools in the registry, its lifecycle recorded: disabled when it was refused, failed when it does not
   * start. A server whose tools are known starts on the first call to one of them; an unknown one starts now to list them.
   */
  async activate(server: McpServerConfig, refusal: string | undefined, tools: ToolRegistry): Promise<McpServerEntry> {
    const capability_id = `mcp.${server.segment}`;
    const lifecycle = new CapabilityLifecycle(this.session, { name: capability_id, version: server.fingerprint.slice(0, 12), trust_level: server.trust });
    const entry = { name: server.name, capability_id, scope: server.scope, tools: [], skipped: [] };
    lifecycle.step("capability.validated", {});
    if (refusal !== undefined) {
      lifecycle.step("capability.disabled", { reason: refusal });
      return { ...entry, status: "disabled", reason: refusal };
    }
    const connection = new McpConnection(server, { ...this.options, project_root: this.session.project.layout.root, on_listing: this.#remember(server) });
    this.opened(connection);
    let tools_listed = this.#cache.tools_of(server);
    try {
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
}

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import type { CapabilityTrust } from "../contracts/events/capability.js";

/**
 * MCP server configuration in the shape Claude Code reads (`.mcp.json`), so the servers a user already runs
 * work unchanged: `{"mcpServers": {"name": {"command", "args", "env"} | {"type": "http"|"sse", "url", "headers"}}}`.
 * `${VAR}` and `${VAR:-default}` are expanded from the user's environment when a server starts, never written back.
 */

const Text = v.pipe(v.string(), v.maxLength(100_000));
const NonEmptyText = v.pipe(Text, v.minLength(1, "a non-empty string"));
const VariableName = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,254}$/, "an environment variable name"));
const HeaderName = v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, "an HTTP header name"));

const StdioEntry = v.strictObject({
  type: v.optional(v.literal("stdio")),
  command: NonEmptyText,
  args: v.optional(v.array(Text), () => []),
  env: v.optional(v.record(VariableName, Text), () => ({})),
});

const RemoteEntry = v.strictObject({
  /** A `url` without a `type` is a streamable-HTTP server, the transport current MCP servers speak. */
  type: v.optional(v.picklist(["http", "sse"]), "http"),
  url: NonEmptyText,
  headers: v.optional(v.record(HeaderName, Text), () => ({})),
});

/** One server's entry: a command makes it a stdio server, a url a remote one; never both, never neither. */
const ServerEntry = v.pipe(
  v.record(v.string(), v.unknown()),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const entry = dataset.value;
    const has_command = "command" in entry;
    const has_url = "url" in entry;
    if (has_command === has_url) {
      addIssue({
        message: has_command ? "either command or url, not both" : "a command (a stdio server) or a url (an http or sse server)",
      });
      return NEVER;
    }
    const parsed = v.safeParse(has_command ? StdioEntry : RemoteEntry, entry);
    if (!parsed.success) {
      for (const issue of parsed.issues) addIssue({ message: issue.message, path: issue.path, expected: issue.expected ?? null, received: "" });
      return NEVER;
    }
    return parsed.output;
  }),
);
type ServerEntry = v.InferOutput<typeof ServerEntry>;

/** A server name as the peers accept it: letters, digits, `-` and `_`. */
const ServerName = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, - and _ (at most 64)"));

const McpConfigFile = v.strictObject({ mcpServers: v.optional(v.record(ServerName, ServerEntry), () => ({})) });

/** Where a server was configured: the project's `.mcp.json` (project-local trust) or the user's `~/.air/mcp.json`. */
export type McpScope = "project" | "user";

export type McpTransport =
  | { readonly kind: "stdio"; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> }
  | { readonly kind: "http" | "sse"; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** One configured server, as written (references unexpanded). */
export type McpServerConfig = {
  readonly name: string;
  /** The name's segment in tool names: `mcp.<segment>.<tool>`. */
  readonly segment: string;
  readonly scope: McpScope;
  readonly file: string;
  readonly trust: CapabilityTrust;
  readonly transport: McpTransport;
  /** sha256 of the entry as written: an approval covers this entry, so a changed command is asked about again. */
  readonly fingerprint: string;
};

export function project_mcp_file(project_root: string): string {
  return path.join(project_root, ".mcp.json");
}

export function user_mcp_file(air_home: string): string {
  return path.join(air_home, "mcp.json");
}

const EXAMPLE = JSON.stringify(
  {
    mcpServers: {
      files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { LOG_LEVEL: "info" } },
      docs: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
    },
  },
  null,
  2,
);

function broken(file: string, why: string, entry?: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `${file} is invalid${entry === undefined ? "" : ` (server "${entry}")`}: ${why}`,
    retryability: "not_retryable",
    user_action: `Fix or remove ${file}. It should look like:\n\n${EXAMPLE}\n`,
    metadata: { file, ...(entry === undefined ? {} : { server: entry }) },
  });
}

/** Where an issue is and what was wanted — never the value, which could be a token. */
function describe_issue(issue: v.BaseIssue<unknown>): { entry?: string; why: string } {
  const keys = issue.path?.map((item) => String(item.key)) ?? [];
  const [top, name, ...rest] = keys;
  const entry = top === "mcpServers" ? name : undefined;
  const where = (entry === undefined ? keys : rest).join(".") || "(top level)";
  const wanted =
    issue.expected === "never" ? "unknown key" : `expected ${issue.kind === "validation" || issue.expected === null ? issue.message : issue.expected}`;
  return entry === undefined ? { why: `${where}: ${wanted}` } : { entry, why: `${where}: ${wanted}` };
}

/** A file's raw JSON (undefined when there is none); a file that is there but not JSON is an error naming it. */
export function read_raw_config(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw broken(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Only where: V8's message quotes the text around the fault, which could be a token.
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw broken(file, `it is not JSON${at === undefined ? "" : ` (at character ${at})`}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw broken(file, "the top level must be an object");
  return value as Record<string, unknown>;
}

/** The tool-name segment of a name: lowercase, `[a-z0-9_]`, starting with a letter. */
export function name_segment(name: string): string {
  const lowered = name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return /^[a-z]/.test(lowered) ? lowered : `x${lowered}`;
}

function transport_of(entry: ServerEntry): McpTransport {
  if ("command" in entry) return { kind: "stdio", command: entry.command, args: entry.args, env: entry.env };
  return { kind: entry.type, url: entry.url, headers: entry.headers };
}

/** The servers of one file, checked; a broken file is an AirError naming it (and the entry, when one is at fault). */
function read_config_file(file: string, scope: McpScope): McpServerConfig[] {
  const raw = read_raw_config(file);
  return raw === undefined ? [] : parse_config(file, scope, raw);
}

/** The servers of a file's raw JSON, checked as `read_config_file` checks them: `air mcp add` checks its result before writing it. */
export function parse_config(file: string, scope: McpScope, raw: Record<string, unknown>): McpServerConfig[] {
  const parsed = v.safeParse(McpConfigFile, raw);
  if (!parsed.success) {
    const [first] = parsed.issues;
    const described = describe_issue(first);
    throw broken(file, parsed.issues.map((issue) => describe_issue(issue).why).join("; "), described.entry);
  }
  const servers: McpServerConfig[] = [];
  const raw_servers = raw.mcpServers as Record<string, unknown>;
  for (const [name, entry] of Object.entries(parsed.output.mcpServers)) {
    const segment = name_segment(name);
    const clash = servers.find((server) => server.segment === segment);
    if (clash !== undefined) throw broken(file, `its tools would share the prefix mcp.${segment} with server "${clash.name}"`, name);
    servers.push({
      name,
      segment,
      scope,
      file,
      trust: scope === "project" ? "project_local" : "user_installed",
      transport: transport_of(entry),
      fingerprint: createHash("sha256").update(JSON.stringify(raw_servers[name])).digest("hex"),
    });
  }
  return servers;
}

/**
 * Every server a project sees: the user's, then the project's; a project entry of the same name replaces the
 * user's (as in the peers), and is project-local — so it is asked about before it starts.
 */
export function read_mcp_config(options: { project_root: string; air_home: string }): McpServerConfig[] {
  const user = read_config_file(user_mcp_file(options.air_home), "user");
  const project = read_config_file(project_mcp_file(options.project_root), "project");
  const merged = [...user.filter((server) => !project.some((other) => other.segment === server.segment)), ...project];
  return merged;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` and `${VAR:-default}` in one value; a variable unset and without a default is an error naming it. */
function expand(value: string, env: NodeJS.ProcessEnv, server: McpServerConfig, where: string): string {
  return value.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    throw air_failure({
      kind: "user_error",
      message: `the MCP server "${server.name}" in ${server.file} uses \${${name}} in ${where}, and ${name} is not set`,
      retryability: "retryable_after_change",
      user_action: `Set ${name} in the environment air runs in, or give a default in ${server.file}: \${${name}:-value}.`,
      metadata: { file: server.file, server: server.name, variable: name },
    });
  });
}

function expand_map(map: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv, server: McpServerConfig, what: string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, env, server, `${what} ${key}`)]));
}

/** The server's transport with every reference expanded from `env`: held in memory for the start, never stored. */
export function expand_transport(server: McpServerConfig, env: NodeJS.ProcessEnv = process.env): McpTransport {
  const { transport } = server;
  if (transport.kind === "stdio") {
    return {
      kind: "stdio",
      command: expand(transport.command, env, server, "command"),
      args: transport.args.map((arg, index) => expand(arg, env, server, `args[${index}]`)),
      env: expand_map(transport.env, env, server, "env"),
    };
  }
  return { kind: transport.kind, url: expand(transport.url, env, server, "url"), headers: expand_map(transport.headers, env, server, "header") };
}

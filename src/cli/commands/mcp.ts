import fs from "node:fs";
import path from "node:path";
import { air_failure, AirFailure, type AirError } from "../../contracts/errors.js";
import {
  parse_config,
  project_mcp_file,
  read_mcp_config,
  read_raw_config,
  user_mcp_file,
  type McpScope,
  type McpServerConfig,
  type McpTransport,
} from "../../mcp/config.js";
import { approved_servers, probe_server, type ProbeResult } from "../../mcp/probe.js";
import { tool_names } from "../../mcp/tools.js";
import { write_file_atomic } from "../../project/atomic-write.js";
import { shell_quote } from "../../tools/git/output.js";
import { air_home } from "../../project/layout.js";
import { locate_project_root } from "../../project/project-store.js";
import { render_error, table, type Io } from "../output.js";

/** A transport as shown: env and header values may be tokens, so only their names are. */
type TransportView = {
  readonly kind: McpTransport["kind"];
  readonly command?: string;
  readonly args?: readonly string[];
  readonly url?: string;
  readonly env_names?: readonly string[];
  readonly header_names?: readonly string[];
};

type ServerView = {
  readonly name: string;
  readonly scope: McpScope;
  readonly file: string;
  readonly trust: McpServerConfig["trust"];
  readonly transport: TransportView;
  readonly state: "running" | "failed" | "needs_approval";
  readonly tools: readonly { readonly name: string; readonly mcp_name: string; readonly read_only: boolean }[];
  readonly resources: readonly string[];
  readonly prompts: readonly string[];
  readonly error?: AirError;
};

const ADD_USAGE =
  'air mcp add NAME [--scope project|user] [--env KEY=VALUE]... -- COMMAND [ARGS...], or air mcp add NAME URL --transport http|sse [--header "Key: Value"]...';

/** The project at or above the working folder; outside one, the folder itself (as `claude mcp add` writes `.mcp.json` there). */
function project_root(io: Io): string {
  return locate_project_root(io.cwd) ?? path.resolve(io.cwd);
}

function transport_view(transport: McpTransport): TransportView {
  if (transport.kind === "stdio") return { kind: "stdio", command: transport.command, args: transport.args, env_names: Object.keys(transport.env) };
  return { kind: transport.kind, url: transport.url, header_names: Object.keys(transport.headers) };
}

function server_view(server: McpServerConfig, result: ProbeResult | undefined): ServerView {
  const base = { name: server.name, scope: server.scope, file: server.file, trust: server.trust, transport: transport_view(server.transport) };
  const empty = { tools: [], resources: [], prompts: [] };
  if (result === undefined) return { ...base, state: "needs_approval", ...empty };
  if (result.state === "failed") return { ...base, state: "failed", ...empty, error: result.error };
  const { listing } = result;
  return {
    ...base,
    state: "running",
    tools: [...tool_names(server, listing.tools)].map(([tool, name]) => ({ name, mcp_name: tool.name, read_only: tool.annotations?.readOnlyHint === true })),
    resources: listing.resources.map((resource) => resource.uri),
    prompts: listing.prompts.map((prompt) => prompt.name),
  };
}

function transport_text(view: TransportView): string {
  const names = view.kind === "stdio" ? view.env_names : view.header_names;
  const what = view.kind === "stdio" ? [view.command ?? "", ...(view.args ?? [])].map(shell_quote).join(" ") : (view.url ?? "");
  const secrets = names === undefined || names.length === 0 ? "" : ` (${view.kind === "stdio" ? "env" : "headers"}: ${names.join(", ")})`;
  return `${view.kind}: ${what}${secrets}`;
}

/** What each running server offers, under the table: one line per tool, resource and prompt; a failure as its error. */
function render_details(io: Io, views: readonly ServerView[]): void {
  for (const view of views) {
    if (view.state === "needs_approval") continue;
    io.out(`\n${view.name} (${view.file}):\n`);
    if (view.error !== undefined) io.out(render_error(view.error));
    for (const tool of view.tools) {
      const own = tool.name.endsWith(`.${tool.mcp_name}`) ? "" : ` (${tool.mcp_name})`;
      io.out(`  tool ${tool.name}${own}${tool.read_only ? " read-only" : ""}\n`);
    }
    for (const uri of view.resources) io.out(`  resource ${uri}\n`);
    for (const prompt of view.prompts) io.out(`  prompt ${prompt}\n`);
  }
}

/**
 * `air mcp list [--json]`: every configured server, and what each one that may start offers — started in
 * parallel, each stopped again. A project server the project has not approved is not started.
 */
export async function run_mcp_list(io: Io, options: { json: boolean }): Promise<number> {
  const root = project_root(io);
  const servers = read_mcp_config({ project_root: root, air_home: air_home() });
  const approved = approved_servers(root, servers);
  const views = await Promise.all(servers.map(async (server) => server_view(server, approved.has(server) ? await probe_server(server, root) : undefined)));
  if (options.json) {
    io.out(`${JSON.stringify({ servers: views }, null, 2)}\n`);
    return 0;
  }
  if (views.length === 0) {
    io.out(`No MCP servers are configured (${project_mcp_file(root)}, ${user_mcp_file(air_home())}); add one with \`air mcp add\`.\n`);
    return 0;
  }
  const rows = views.map((view) => [
    view.name,
    view.scope,
    view.trust,
    view.state.replaceAll("_", " "),
    String(view.tools.length),
    transport_text(view.transport),
  ]);
  io.out(table([["NAME", "SCOPE", "TRUST", "STATE", "TOOLS", "TRANSPORT"], ...rows]));
  if (views.some((view) => view.state === "needs_approval")) {
    io.out("needs approval: a project's server is not started until approved; the first session that starts it asks you.\n");
  }
  render_details(io, views);
  return 0;
}

function user_failure(message: string, user_action: string, metadata?: Record<string, string>): AirFailure {
  return air_failure({ kind: "user_error", message, retryability: "retryable_after_change", user_action, ...(metadata === undefined ? {} : { metadata }) });
}

function scope_of(scope: string | undefined): McpScope | undefined {
  if (scope === undefined || scope === "project" || scope === "user") return scope;
  throw user_failure(
    `--scope is project or user, not "${scope}"`,
    "project writes the project's .mcp.json (shared with the repository); user writes ~/.air/mcp.json.",
  );
}

function config_file(scope: McpScope, root: string): string {
  return scope === "project" ? project_mcp_file(root) : user_mcp_file(air_home());
}

/** A file's `mcpServers`, as written: the entries are edited raw so every other key and entry stays as it is. */
function entries_of(file: string, raw: Record<string, unknown>): Record<string, unknown> {
  const servers = raw.mcpServers ?? {};
  if (typeof servers === "object" && servers !== null && !Array.isArray(servers)) return servers as Record<string, unknown>;
  throw user_failure(`${file} is invalid: mcpServers must be an object`, `Fix ${file}: {"mcpServers": {"name": {...}}}.`, { file });
}

/** The rewrite keeps the file's permissions: a file holding tokens may have been made private on purpose. */
function write_config(file: string, raw: Record<string, unknown>): void {
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  write_file_atomic(file, `${JSON.stringify(raw, null, 2)}\n`, mode === undefined ? undefined : mode & 0o7777);
}

/** `KEY=VALUE` or `Key: Value` pairs; a malformed one is named by its position, since its text could be a token. */
function pairs_of(items: readonly string[], separator: string, flag: string, shape: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const [index, item] of items.entries()) {
    const at = item.indexOf(separator);
    const key = at < 0 ? "" : item.slice(0, at).trim();
    if (key === "") throw user_failure(`${flag} number ${index + 1} is not ${shape}`, `Give each ${flag} as ${shape}.`);
    pairs[key] = separator === ":" ? item.slice(at + 1).trim() : item.slice(at + 1);
  }
  return pairs;
}

export type McpAddOptions = {
  readonly name?: string;
  /** The stdio server's command and arguments, or the remote server's URL. */
  readonly target: readonly string[];
  readonly scope?: string;
  readonly transport?: string;
  readonly env: readonly string[];
  readonly header: readonly string[];
};

function stdio_entry(options: McpAddOptions): Record<string, unknown> {
  const [command, ...args] = options.target;
  if (options.header.length > 0) throw user_failure("--header is for http and sse servers; a stdio server gets --env", ADD_USAGE);
  if (command === undefined) throw user_failure("name the server's command after --", ADD_USAGE);
  if (options.transport === undefined && args.length === 0 && /^https?:\/\//.test(command)) {
    throw user_failure(`${command} is a URL, and a server without --transport is a stdio command`, "Add --transport http (or sse) for a remote server.");
  }
  const env = pairs_of(options.env, "=", "--env", "KEY=VALUE");
  return { type: "stdio", command, args, ...(Object.keys(env).length === 0 ? {} : { env }) };
}

function remote_entry(options: McpAddOptions, type: "http" | "sse"): Record<string, unknown> {
  if (options.env.length > 0) throw user_failure("--env is for stdio servers; an http or sse server gets --header", ADD_USAGE);
  const [url, ...extra] = options.target;
  if (url === undefined || extra.length > 0) throw user_failure(`an ${type} server takes one URL after its name`, ADD_USAGE);
  const headers = pairs_of(options.header, ":", "--header", '"Key: Value"');
  return { type, url, ...(Object.keys(headers).length === 0 ? {} : { headers }) };
}

/** The entry as `claude mcp add` writes it; values as typed, so `${TOKEN}` stays a reference until a server starts. */
function entry_of(options: McpAddOptions): Record<string, unknown> {
  const transport = options.transport ?? "stdio";
  if (transport === "stdio") return stdio_entry(options);
  if (transport === "http" || transport === "sse") return remote_entry(options, transport);
  throw user_failure(`--transport is stdio, http or sse, not "${transport}"`, ADD_USAGE);
}

function required_name(name: string | undefined, usage: string): string {
  if (name === undefined) throw user_failure("name the server", usage);
  return name;
}

/**
 * `air mcp add`: one entry added to the project's `.mcp.json` (the default, as `claude mcp add --scope project`:
 * a server the repository shares, run only once approved) or to `~/.air/mcp.json` (`--scope user`). The file is
 * checked as a session reads it before it is written; a name already there is refused.
 */
export async function run_mcp_add(io: Io, options: McpAddOptions): Promise<number> {
  const name = required_name(options.name, ADD_USAGE);
  const scope = scope_of(options.scope) ?? "project";
  const file = config_file(scope, project_root(io));
  const raw = read_raw_config(file) ?? {};
  // A file already broken is reported as it is, not as a fault of the new entry.
  parse_config(file, scope, raw);
  const entries = entries_of(file, raw);
  if (Object.hasOwn(entries, name)) {
    throw user_failure(
      `${file} already has an MCP server "${name}"`,
      `Run \`air mcp remove ${name}${scope === "user" ? " --scope user" : ""}\` first, or pick another name.`,
      {
        file,
        server: name,
      },
    );
  }
  const next = { ...raw, mcpServers: { ...entries, [name]: entry_of(options) } };
  try {
    parse_config(file, scope, next);
  } catch (error) {
    if (!(error instanceof AirFailure)) throw error;
    throw user_failure(`"${name}" was not added, since with it ${error.message}`, `Change the flags of air mcp add; ${file} was not changed.`, {
      file,
      server: name,
    });
  }
  write_config(file, next);
  const approval = scope === "project" ? " The first session that starts it asks you to approve it." : "";
  io.out(`Added the MCP server "${name}" to ${file}.${approval}\n`);
  return 0;
}

/** `air mcp remove NAME [--scope project|user]`: the entry removed from the file that has it, the rest kept as written. */
export async function run_mcp_remove(io: Io, options: { name?: string; scope?: string }): Promise<number> {
  const name = required_name(options.name, "air mcp remove NAME [--scope project|user]");
  const root = project_root(io);
  const scope = scope_of(options.scope);
  const files = (scope === undefined ? (["project", "user"] as const) : [scope]).map((each) => {
    const file = config_file(each, root);
    const raw = read_raw_config(file) ?? {};
    return { scope: each, file, raw, entries: entries_of(file, raw) };
  });
  const holding = files.filter((each) => Object.hasOwn(each.entries, name));
  const [found] = holding;
  if (holding.length > 1) {
    throw user_failure(
      `"${name}" is in both ${files.map((each) => each.file).join(" and ")}`,
      `Say which: air mcp remove ${name} --scope project (or --scope user).`,
    );
  }
  if (found === undefined) {
    const names = [...new Set(files.flatMap((each) => Object.keys(each.entries)))];
    throw user_failure(`there is no MCP server "${name}" in ${files.map((each) => each.file).join(" or ")}`, `Name one of: ${names.join(", ") || "(none)"}.`, {
      server: name,
    });
  }
  const { [name]: _removed, ...rest } = found.entries;
  write_config(found.file, { ...found.raw, mcpServers: rest });
  io.out(`Removed the MCP server "${name}" from ${found.file}.\n`);
  return 0;
}

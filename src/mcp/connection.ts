import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type CallToolResult, type Prompt, type Resource, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { createActor, type SnapshotFrom } from "xstate";
import { AirFailure, make_air_error } from "../contracts/errors.js";
import { mcp_server_machine, restart_delay_ms } from "../machines/mcp-server.js";
import type { SandboxChoice } from "../tools/shell/sandbox.js";
import { expand_transport, type McpServerConfig, type McpTransport } from "./config.js";
import { limited_fetch } from "./http-limits.js";
import { launch_of } from "./launch.js";

export type McpConnectionOptions = {
  /** The folder a stdio server runs in. */
  readonly project_root: string;
  /** Where `${VAR}` references are expanded from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** How long one call may take before the server counts as hung (default 60 s, as the SDK's own default). */
  readonly call_timeout_ms?: number;
  /** How long a start (spawn or connect, then `initialize` and `tools/list`) may take (default 30 s). */
  readonly start_timeout_ms?: number;
  /** The largest message a server may send: a stdio line, an HTTP response body (default 16 MiB). */
  readonly max_message_bytes?: number;
  /** Default: the shell sandbox's choice for this machine (`AIR_SANDBOX`). */
  readonly sandbox?: SandboxChoice;
  /** Told what the server offers each time it starts (the session keeps its tool list for the next one). */
  readonly on_listing?: (listing: McpListing) => void;
};

/** What a running server offers, read once per start. */
export type McpListing = {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly prompts: readonly Prompt[];
  readonly server_version?: { readonly name: string; readonly version: string };
};

export type McpServerState = SnapshotFrom<typeof mcp_server_machine>["value"];

const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const DEFAULT_START_TIMEOUT_MS = 30_000;
/**
 * 16 MiB: the SDK's stdio reader copies its whole buffer for every chunk that arrives, so a 50 MB line took 12 s
 * to read here (0.8 s over HTTP). A larger answer is refused as a tool error; one under it but past
 * `LARGE_RESULT_CHARS` is kept whole as an artifact.
 */
const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const STDERR_TAIL_CHARS = 16_384;
const MAX_TOOL_PAGES = 100;

/**
 * A server that failed — did not start, crashed, hung — and was stopped: unlike a refusal it answered, its stderr
 * says why, so a call that meets one keeps that.
 */
export class McpServerStopped extends AirFailure {}

/** A server failure as an AirError: a tool error the model can read, the server named, what to do. */
export function server_failure(server: McpServerConfig, message: string, cause?: unknown, stopped = false): AirFailure {
  const error = make_air_error({
    kind: "tool_error",
    message: `MCP server "${server.name}": ${message}`,
    retryability: "retryable",
    user_action: `Check the server's entry in ${server.file}, run it by hand to see its output, or remove it (air mcp remove ${server.name}).`,
    metadata: { server: server.name, file: server.file },
  });
  const options = cause === undefined ? undefined : { cause };
  return stopped ? new McpServerStopped(error, options) : new AirFailure(error, options);
}

/**
 * An error the server sent (unknown tool, invalid params), or the SDK's refusal of a result that breaks the tool's
 * output schema: the server is alive and answered. A timeout or a closed connection is the server failing.
 */
function answered(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed;
}

/** What a server lists of something it may not offer: nothing when it does not say it does, or when listing fails. */
async function optional<T>(offered: object | undefined, list: () => Promise<T[]>): Promise<T[]> {
  return offered === undefined ? [] : list().catch(() => []);
}

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One configured MCP server, spoken to through the SDK's client: started on first use (a stdio server as a
 * child process with only its declared environment, in the sandbox where it works; a remote one with timeouts
 * and a size limit), restarted after a crash or hang with backoff, stopped by `close`. Its lifecycle is the
 * `mcp-server` machine; this class does the I/O the machine's states call for.
 */
export class McpConnection {
  readonly server: McpServerConfig;
  readonly #options: McpConnectionOptions;
  readonly #lifecycle = createActor(mcp_server_machine);
  #client: Client | undefined;
  #transport: Transport | undefined;
  #starting: Promise<McpListing> | undefined;
  #listing: McpListing | undefined;
  #stderr = "";
  #pid: number | undefined;
  #transport_error: string | undefined;

  constructor(server: McpServerConfig, options: McpConnectionOptions) {
    this.server = server;
    this.#options = options;
    this.#lifecycle.start();
  }

  get state(): McpServerState {
    return this.#lifecycle.getSnapshot().value;
  }

  /** The last failure's message, while the server is crashed. */
  get last_error(): string | undefined {
    return this.#lifecycle.getSnapshot().context.last_error;
  }

  /** The stdio server's process id while it runs (tests check that none outlives the session). */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** The end of what a stdio server wrote to stderr, across its restarts. */
  stderr_tail(): string {
    return this.#stderr;
  }

  /** Starts the server if it is not running (waiting out the backoff after a failure) and lists what it offers. */
  async listing(): Promise<McpListing> {
    if (this.state === "running" && this.#listing !== undefined) return this.#listing;
    if (this.state === "closed") throw server_failure(this.server, "the session has ended, so the server is stopped");
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * One tool call. A timeout or a dropped connection counts as the server failing: it is stopped, and the next
   * call starts it again. A tool's own error result (`isError`) is an answer, not a failure of the server.
   */
  async call_tool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    await this.listing();
    const client = this.#client;
    if (client === undefined) throw server_failure(this.server, "the server is not running");
    const timeout = this.#options.call_timeout_ms ?? DEFAULT_CALL_TIMEOUT_MS;
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, { signal, timeout, maxTotalTimeout: timeout })) as CallToolResult;
      this.#lifecycle.send({ type: "mcp.call_succeeded" });
      return result;
    } catch (error) {
      if (signal.aborted) throw error;
      if (answered(error)) throw server_failure(this.server, `${name} was refused: ${message_of(error)}`, error);
      const why = this.#why();
      await this.#fail(`${name} failed: ${message_of(error)}${why}`);
      throw server_failure(this.server, `${name} did not complete: ${message_of(error)}${why}; it is started again on the next call`, error, true);
    }
  }

  /** Stops the server for good (the session ends): a stdio server's process is ended, a remote session closed. */
  async close(): Promise<void> {
    this.#lifecycle.send({ type: "mcp.close" });
    await this.#disconnect();
  }

  async #start(): Promise<McpListing> {
    const wait = restart_delay_ms(this.#lifecycle.getSnapshot().context, Date.now());
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.state === "closed") throw server_failure(this.server, "the session has ended, so the server is stopped");
    this.#lifecycle.send({ type: "mcp.start" });
    this.#transport_error = undefined;
    const timeout = this.#options.start_timeout_ms ?? DEFAULT_START_TIMEOUT_MS;
    try {
      const transport = this.#transport_of(expand_transport(this.server, this.#options.env));
      const client = new Client({ name: "air", version: "1" }, { capabilities: {} });
      this.#client = client;
      this.#transport = transport;
      await client.connect(transport, { timeout });
      const listing = await this.#list(client, timeout);
      // The connection may have dropped while listing; a crash handler has then already counted it.
      if (this.state !== "starting") throw server_failure(this.server, this.last_error ?? "the server stopped while starting");
      this.#listing = listing;
      this.#lifecycle.send({ type: "mcp.started" });
      this.#options.on_listing?.(listing);
      return listing;
    } catch (error) {
      if (this.state === "starting") await this.#fail(`it did not start: ${message_of(error)}`);
      else await this.#disconnect();
      if (error instanceof AirFailure) throw error;
      throw server_failure(this.server, `it did not start: ${message_of(error)}${this.#why()}`, error, true);
    }
  }

  async #list(client: Client, timeout: number): Promise<McpListing> {
    const capabilities = client.getServerCapabilities() ?? {};
    const tools: Tool[] = [];
    if (capabilities.tools !== undefined) {
      let cursor: string | undefined;
      // A server that hands out cursors forever must not hold the start forever.
      for (let page_count = 0; page_count < MAX_TOOL_PAGES; page_count += 1) {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (cursor === undefined) break;
      }
    }
    // Resources and prompts are shown by `air mcp list`, never needed to call a tool: a server that fails them still runs.
    const [resources, prompts] = await Promise.all([
      optional(capabilities.resources, () => client.listResources({}, { timeout }).then((page) => page.resources)),
      optional(capabilities.prompts, () => client.listPrompts({}, { timeout }).then((page) => page.prompts)),
    ]);
    const version = client.getServerVersion();
    return { tools, resources, prompts, ...(version === undefined ? {} : { server_version: { name: version.name, version: version.version } }) };
  }

  #transport_of(transport: McpTransport): Transport {
    const max_bytes = this.#options.max_message_bytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (transport.kind === "stdio") {
      const launch = launch_of(transport, this.#options.project_root, this.#options.sandbox);
      const stdio = new StdioClientTransport({
        command: launch.command,
        args: [...launch.args],
        cwd: this.#options.project_root,
        stderr: "pipe",
        maxBufferSize: max_bytes,
      });
      stdio.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      const start = stdio.start.bind(stdio);
      stdio.start = async () => {
        await start();
        this.#pid = stdio.pid ?? undefined;
      };
      this.#watch(stdio);
      return stdio;
    }
    const url = new URL(transport.url);
    const fetch = limited_fetch(max_bytes);
    const init: RequestInit = { headers: { ...transport.headers } };
    const remote =
      transport.kind === "http"
        ? new StreamableHTTPClientTransport(url, { requestInit: init, fetch })
        : new SSEClientTransport(url, { requestInit: init, eventSourceInit: { fetch }, fetch });
    this.#watch(remote);
    return remote;
  }

  /**
   * A transport that closes by itself (the process exited, the stream broke, a message was too large) is a crash,
   * unless we closed it; what the transport last complained of says why.
   */
  #watch(transport: Transport): void {
    transport.onerror = (error) => {
      if (this.#transport === transport) this.#transport_error = error.message;
    };
    // Set before `connect`, which chains the client's own handler after this one.
    transport.onclose = () => {
      if (this.#transport !== transport) return;
      this.#transport = undefined;
      this.#client = undefined;
      this.#pid = undefined;
      if (this.state === "running" || this.state === "starting") {
        this.#lifecycle.send({ type: "mcp.failed", error: `the connection closed${this.#why()}`, at: Date.now() });
      }
    };
  }

  /** The server failed (start, crash, hang): counted by the machine, then stopped so the next call starts afresh. */
  async #fail(error: string): Promise<void> {
    if (this.state === "running" || this.state === "starting") this.#lifecycle.send({ type: "mcp.failed", error, at: Date.now() });
    await this.#disconnect();
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    this.#listing = undefined;
    this.#pid = undefined;
    await client?.close().catch(() => undefined);
  }

  /** What the transport last reported and the end of the server's stderr, as a note for an error message. */
  #why(): string {
    const notes: string[] = [];
    if (this.#transport_error !== undefined) notes.push(this.#transport_error);
    const tail = this.#stderr.trim().split("\n").slice(-3).join(" | ");
    if (tail !== "") notes.push(`stderr: ${tail.slice(-500)}`);
    return notes.length === 0 ? "" : ` (${notes.join("; ")})`;
  }
}

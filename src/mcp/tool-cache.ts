import fs from "node:fs";
import path from "node:path";
import { ToolSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { JsonObject } from "../contracts/entity.js";
import { write_file_atomic } from "../project/atomic-write.js";
import type { McpServerConfig } from "./config.js";

const CachedServer = v.strictObject({ fingerprint: v.string(), listed_at: v.string(), tools: v.array(JsonObject) });
const CacheFile = v.strictObject({ version: v.literal(1), servers: v.record(v.string(), CachedServer) });
type CacheFile = v.InferOutput<typeof CacheFile>;

/**
 * `.air/local/mcp-tools.json`: the tools each server listed the last time it ran, under its entry's fingerprint. A
 * session offers a known server's tools from here and starts the server on the first call to one of them, so a
 * session does not wait for its servers, and one that never uses a server never starts it. A changed entry is a
 * miss; a server's new tools reach the next session, once it has run again.
 */
export class McpToolCache {
  #known: CacheFile | undefined;

  constructor(private readonly file: string) {}

  /** The tools a server listed under this very entry, or undefined when it never ran so (or the file is unreadable). */
  tools_of(server: McpServerConfig): Tool[] | undefined {
    // Read once for all of a session's servers; `remember` reads afresh, to keep what other sessions wrote.
    this.#known ??= this.#read();
    const cached = this.#known.servers[server.name];
    if (cached === undefined || cached.fingerprint !== server.fingerprint) return undefined;
    const tools: Tool[] = [];
    for (const tool of cached.tools) {
      const parsed = ToolSchema.safeParse(tool);
      if (!parsed.success) return undefined;
      tools.push(parsed.data);
    }
    return tools;
  }

  /** Keeps what a server listed when it started. */
  remember(server: McpServerConfig, tools: readonly Tool[]): void {
    const current = this.#read();
    const entry = { fingerprint: server.fingerprint, listed_at: new Date().toISOString(), tools: tools.map((tool) => ({ ...tool })) };
    const next: CacheFile = { version: 1, servers: { ...current.servers, [server.name]: entry } };
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    write_file_atomic(this.file, `${JSON.stringify(next, null, 1)}\n`);
  }

  /** A cache that is missing or broken is empty: it is rebuilt from the servers themselves, never trusted half-read. */
  #read(): CacheFile {
    try {
      const parsed = v.safeParse(CacheFile, JSON.parse(fs.readFileSync(this.file, "utf8")));
      if (parsed.success) return parsed.output;
    } catch {
      // missing or not JSON: empty, like a broken one
    }
    return { version: 1, servers: {} };
  }
}

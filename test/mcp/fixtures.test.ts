import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { TempDirs } from "../fixtures/processes.js";
import { STDIO_SERVER, start_http_server, stdio_entry } from "../fixtures/mcp/servers.js";

const EXPECTED_TOOLS = [
  "Get-Weather",
  "add",
  "bad_output",
  "big",
  "echo",
  "env",
  "exit",
  "fails",
  "garbage",
  "hang",
  "image",
  "injected",
  "lookup",
  "resource",
];

const dirs = new TempDirs();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  dirs.cleanup();
});

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(EXPECTED_TOOLS);
  expect(await client.callTool({ name: "echo", arguments: { text: "hello" } })).toEqual({ content: [{ type: "text", text: "hello" }] });
  const added = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  expect(added.structuredContent).toEqual({ sum: 5 });
}

describe("fixture MCP servers", () => {
  it("stdio: runs from a temp project with only the SDK's default environment", async () => {
    const entry = stdio_entry();
    expect(entry.args).toContain(STDIO_SERVER);
    const transport = new StdioClientTransport({ ...entry, cwd: dirs.make("air-mcp-"), stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const client = new Client({ name: "air-test", version: "0.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toEqual({ name: "air-fixture", version: "1.0.0" });
    await exercise(client);
    expect(stderr).toMatch(/air-fixture stdio server started pid=\d+/);
  });

  it("streamable http: one session per client", async () => {
    const server = await start_http_server();
    cleanups.push(() => server.stop());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "air-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    cleanups.push(() => client.close());
    await exercise(client);
  });

  it("legacy http+sse: on the same port, messages posted to the endpoint its stream names", async () => {
    const server = await start_http_server();
    cleanups.push(() => server.stop());
    expect(server.sse_url).toBe(server.url.replace(/\/mcp$/, "/sse"));
    const client = new Client({ name: "air-test", version: "0.0.0" });
    await client.connect(new SSEClientTransport(new URL(server.sse_url)));
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toEqual({ name: "air-fixture", version: "1.0.0" });
    await exercise(client);
    expect(await client.callTool({ name: "garbage", arguments: {} })).toMatchObject({ isError: true });
  });
});

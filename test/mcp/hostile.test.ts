/**
 * Hostile MCP servers (issue 16): invalid JSON-RPC, an answer over the size limit, a hang, an exit mid-call, a
 * result that breaks its output schema. Each ends as a clear tool error or a bounded, recorded result; the server
 * is started again on the next call, with backoff; the session keeps going; no server outlives it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolOutcome } from "../../src/contracts/tool.js";
import { read_mcp_config } from "../../src/mcp/config.js";
import { McpConnection } from "../../src/mcp/connection.js";
import type { McpServersOptions } from "../../src/mcp/servers.js";
import { air_home } from "../../src/project/layout.js";
import { process_alive } from "../../src/project/process-alive.js";
import { write_project_servers, write_user_servers } from "../fixtures/mcp/config.js";
import { stdio_entry } from "../fixtures/mcp/servers.js";
import { bypass, call, mcp_harness, type Up } from "../fixtures/mcp/harness.js";
import type { TempSession } from "../fixtures/session.js";

const harness = mcp_harness();
const { session } = harness;

/** Everything allowed, and a short call timeout: these servers hang on purpose. */
function bring_up(temp: TempSession, options: Partial<McpServersOptions> = {}): Promise<Up> {
  return harness.bring_up(temp, bypass(), { call_timeout_ms: 1_500, ...options });
}

/** A project `.mcp.json` with exactly this text, broken or not. */
function write_project_file(temp: TempSession, text: string): string {
  const file = path.join(temp.project.layout.root, ".mcp.json");
  fs.writeFileSync(file, text);
  return file;
}

function failed(outcome: ToolOutcome): string {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.output).slice(0, 200)}`);
  return outcome.error.message;
}

function stdio_pid(up: Up): number {
  const pid = up.servers.connections[0]?.pid;
  if (pid === undefined) throw new Error("the server is not running");
  return pid;
}

describe("a hostile stdio MCP server", () => {
  it("writes invalid JSON-RPC and never answers: a tool error after the timeout, then a fresh server", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp);
    const first = stdio_pid(up);
    expect(failed(await call(up, temp, "mcp.fixture.garbage"))).toMatch(/MCP server "fixture": garbage did not complete: .*timed out/i);
    expect(await call(up, temp, "mcp.fixture.echo", { text: "after garbage" })).toMatchObject({ ok: true });
    expect(stdio_pid(up)).not.toBe(first);
    expect(process_alive(first)).toBe(false);
  });

  it("hangs: the call fails at its timeout with the server's stderr saved as an artifact, and the hung process is ended", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp);
    const hung = stdio_pid(up);
    const outcome = await call(up, temp, "mcp.fixture.hang");
    expect(failed(outcome)).toMatch(/hang did not complete/);
    if (outcome.ok) return;
    const stderr_id = outcome.error.metadata?.stderr_artifact_id;
    expect(stderr_id).toMatch(/^art_/);
    const [saved] = temp.session.store
      .query({ types: ["artifact.created"] })
      .map(({ event }) => event.payload as { artifact: { id: string; type: string }; tool_run_id?: string });
    expect(saved).toMatchObject({ artifact: { id: stderr_id, type: "command_log" }, tool_run_id: outcome.tool_run_id });
    const [created] = temp.session.store.query({ types: ["artifact.created"] }).map(({ event }) => event.payload as { path: string });
    expect(fs.readFileSync(temp.session.artifacts.path_of(created?.path ?? ""), "utf8")).toContain("air-fixture stdio server started");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(process_alive(hung)).toBe(false);
  });

  it("exits mid-call: a tool error naming the crash with its stderr, and the next call starts it again", async () => {
    const temp = session();
    // Inside the project: the sandbox lets a server write there and nowhere else.
    const counter = path.join(temp.project.layout.root, "starts.txt");
    write_user_servers({ fixture: stdio_entry(["--counter-file", counter]) });
    const up = await bring_up(temp);
    expect(failed(await call(up, temp, "mcp.fixture.exit"))).toMatch(/exit did not complete: .*fixture server exiting mid-call/s);
    expect(up.servers.connections[0]?.state).toBe("crashed");
    expect(await call(up, temp, "mcp.fixture.echo", { text: "back" })).toMatchObject({ ok: true });
    expect(fs.readFileSync(counter, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("answers with 50 MB, past the size limit: a clear tool error, and the session keeps going", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, { call_timeout_ms: 20_000 });
    expect(failed(await call(up, temp, "mcp.fixture.big", { bytes: 50_000_000 }))).toMatch(/exceeded maximum size of 16777216 bytes/);
    expect(await call(up, temp, "mcp.fixture.echo", { text: "still here" })).toMatchObject({ ok: true });
  });

  it("returns structured content that breaks its output schema: refused as a tool error, the server kept", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp);
    const pid = stdio_pid(up);
    expect(failed(await call(up, temp, "mcp.fixture.bad_output"))).toMatch(/does not match the tool's output schema/);
    expect(stdio_pid(up)).toBe(pid);
  });

  it("reports a tool error of its own as a tool error, the server kept", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp);
    expect(failed(await call(up, temp, "mcp.fixture.fails"))).toContain("the fixture tool failed on purpose");
  });

  it("is not a program at all: the capability fails with the reason, and the others still come up", async () => {
    const temp = session();
    write_user_servers({ missing: { command: "/nonexistent/mcp-server" }, fixture: stdio_entry() });
    const { entries } = await bring_up(temp);
    expect(entries.map((entry) => [entry.name, entry.status])).toEqual([
      ["missing", "failed"],
      ["fixture", "enabled"],
    ]);
    expect(entries[0]?.error?.message).toContain('MCP server "missing": it did not start');
  });
});

describe("McpConnection restarts", () => {
  it("waits longer before each restart while the server keeps failing", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const [server] = read_mcp_config({ project_root: temp.project.layout.root, air_home: air_home() });
    if (server === undefined) throw new Error("no server configured");
    const connection = new McpConnection(server, { project_root: temp.project.layout.root, call_timeout_ms: 5_000 });
    harness.defer(() => connection.close());
    const signal = new AbortController().signal;
    const waits: number[] = [];
    for (let crash = 0; crash < 3; crash += 1) {
      const started = performance.now();
      await expect(connection.call_tool("exit", {}, signal)).rejects.toThrow(/did not complete/);
      waits.push(performance.now() - started);
    }
    // The first start is immediate; the second waits out 0.5 s after the first crash, the third 1 s.
    expect(waits[1]).toBeGreaterThanOrEqual(450);
    expect(waits[2]).toBeGreaterThanOrEqual(950);
  });
});

describe("a hostile streamable-HTTP MCP server", () => {
  it("exits mid-call: the call fails at its timeout, and the session keeps going without it", async () => {
    const temp = session();
    const http = await harness.http_server();
    write_user_servers({ remote: { type: "http", url: http.url }, fixture: stdio_entry() });
    const up = await bring_up(temp);
    expect(failed(await call(up, temp, "mcp.remote.exit"))).toMatch(/MCP server "remote"/);
    expect(await call(up, temp, "mcp.fixture.echo", { text: "others still work" })).toMatchObject({ ok: true });
    expect(failed(await call(up, temp, "mcp.remote.echo", { text: "gone" }))).toMatch(/MCP server "remote"/);
  });
});

describe("bad MCP configuration", () => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", "{ mcpServers: ", /\.mcp\.json is invalid: it is not JSON/],
    ["an unknown key", JSON.stringify({ mcpServers: { x: { command: "node", argz: [] } } }), /\(server "x"\): argz: unknown key/],
    ["neither command nor url", JSON.stringify({ mcpServers: { x: { env: {} } } }), /\(server "x"\): .*a command \(a stdio server\) or a url/],
    ["both command and url", JSON.stringify({ mcpServers: { x: { command: "node", url: "http://127.0.0.1:1/mcp" } } }), /either command or url, not both/],
    ["a top-level typo", JSON.stringify({ mcpServer: {} }), /mcpServer: unknown key/],
  ];
  for (const [what, text, message] of cases) {
    it(`${what}: one failed capability naming the file, nothing started`, async () => {
      const temp = session();
      const file = write_project_file(temp, text);
      const { servers, registry, entries } = await bring_up(temp);
      expect(entries).toHaveLength(1);
      expect(entries[0]?.status).toBe("failed");
      expect(entries[0]?.error?.message).toMatch(message);
      expect(entries[0]?.error?.message).toContain(file);
      expect(entries[0]?.error?.user_action).toContain("It should look like");
      expect(servers.connections).toHaveLength(0);
      expect(registry.schemas().some((schema) => schema.name.startsWith("mcp."))).toBe(false);
    });
  }

  it("a file that is not JSON is named without quoting its text, which could hold a token", async () => {
    const temp = session();
    write_project_file(temp, "ghp-not-json-but-a-token-0123456789");
    const {
      entries: [entry],
    } = await bring_up(temp);
    expect(entry?.error?.message).toMatch(/is invalid: it is not JSON$/);
    expect(JSON.stringify(entry?.error)).not.toContain("0123456789");
  });

  it("an unset ${VAR} without a default names the variable and the server, and nothing of its value", async () => {
    const temp = session();
    write_project_servers(temp.project.layout.root, {
      remote: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${AIR_TEST_UNSET_TOKEN}" } },
    });
    const {
      entries: [entry],
    } = await bring_up(temp);
    expect(entry?.status).toBe("failed");
    expect(entry?.error?.message).toContain("uses ${AIR_TEST_UNSET_TOKEN} in header Authorization, and AIR_TEST_UNSET_TOKEN is not set");
  });
});

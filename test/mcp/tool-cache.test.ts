/**
 * Servers start on first use: a session offers the tools a server listed last time (`.air/local/mcp-tools.json`) and
 * starts it when one of them is called; a server it does not know yet starts at once so its tools can be listed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { write_user_servers } from "../fixtures/mcp/config.js";
import { stdio_entry } from "../fixtures/mcp/servers.js";
import { mcp_harness } from "../fixtures/mcp/harness.js";
import type { TempSession } from "../fixtures/session.js";

const harness = mcp_harness();
const { session, bring_up } = harness;

/** How many times the fixture server started: it appends a line per start (inside the project, where the sandbox lets it write). */
function starts(temp: TempSession): number {
  const file = path.join(temp.project.layout.root, "starts.txt");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").length : 0;
}

function known_server(temp: TempSession, env: Record<string, string> = {}): void {
  write_user_servers({ fixture: { ...stdio_entry(["--counter-file", path.join(temp.project.layout.root, "starts.txt")]), env } });
}

describe("MCP servers start on first use", () => {
  it("offers a known server's tools without starting it, and starts it at the first call", async () => {
    const temp = session();
    known_server(temp);
    const first = await bring_up(temp);
    expect(starts(temp)).toBe(1);
    await first.servers.close();

    const second = await bring_up(temp);
    expect(second.entries).toMatchObject([{ name: "fixture", status: "enabled" }]);
    expect(second.registry.schemas().map((schema) => schema.name)).toContain("mcp.fixture.add");
    expect(starts(temp)).toBe(1);
    expect(second.servers.connections[0]?.state).toBe("stopped");

    const outcome = await second.registry.call({ tool_name: "mcp.fixture.add", input: { a: 1, b: 1 } }, { session: temp.session });
    expect(outcome).toMatchObject({ ok: true, output: { structured: { sum: 2 } } });
    expect(starts(temp)).toBe(2);
  });

  it("checks a cached tool's output against its schema once the server has started", async () => {
    const temp = session();
    known_server(temp);
    await (await bring_up(temp)).servers.close();
    const second = await bring_up(temp);
    const outcome = await second.registry.call({ tool_name: "mcp.fixture.bad_output", input: {} }, { session: temp.session });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toMatch(/does not match the tool's output schema/);
  });

  it("starts a server at once when its entry changed since its tools were listed", async () => {
    const temp = session();
    known_server(temp);
    await (await bring_up(temp)).servers.close();
    known_server(temp, { FIXTURE_CHANGED: "1" });
    expect((await bring_up(temp)).entries).toMatchObject([{ status: "enabled" }]);
    expect(starts(temp)).toBe(2);
  });

  it("treats a broken cache as empty: the server starts to list its tools and the cache is written anew", async () => {
    const temp = session();
    known_server(temp);
    fs.mkdirSync(path.dirname(temp.project.layout.mcp_tools), { recursive: true });
    fs.writeFileSync(temp.project.layout.mcp_tools, "{ not json");
    const up = await bring_up(temp);
    expect(up.entries).toMatchObject([{ status: "enabled" }]);
    expect(starts(temp)).toBe(1);
    expect(JSON.parse(fs.readFileSync(temp.project.layout.mcp_tools, "utf8"))).toMatchObject({
      version: 1,
      servers: { fixture: { tools: expect.any(Array) } },
    });
  });
});

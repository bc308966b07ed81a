import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { user_mcp_file } from "../src/mcp/config.js";
import { launch_of } from "../src/mcp/launch.js";
import { McpServers } from "../src/mcp/servers.js";
import { PermissionEngine } from "../src/permissions/engine.js";
import { init_project } from "../src/project/project-store.js";
import { open_session, type Session } from "../src/project/session-manager.js";
import { create_tool_registry } from "../src/tools/builtin.js";
import type { ToolRegistry } from "../src/tools/registry.js";
import { stdio_entry } from "../test/fixtures/mcp/servers.js";
import { format_info_line, us } from "./report-info.js";
import { median } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * Round trips of the stdio fixture MCP server's `echo` tool (test/fixtures/mcp/stdio-server.ts) through air, in
 * process: `ToolRegistry.call` of `mcp.fixture.echo` — input checked against the server's JSON Schema, the
 * PermissionEngine (bypass mode) with its `permission.decision.recorded`, `tool.started`, the SDK client over the
 * server's stdio, the result turned into canonical blocks, `tool.completed` — all into a real session DB. Beside it,
 * in the same run and call for call in alternating order, the ceiling: a bare SDK `Client` calling `echo` on its
 * own copy of the same server over stdio. air's server runs as a session's does (in bubblewrap where it works,
 * else under `env -i`); the bare one is spawned directly.
 */
export type McpCallResult = {
  readonly calls: number;
  readonly air_p50_us: number;
  readonly air_p95_us: number;
  readonly bare_p50_us: number;
  readonly bare_p95_us: number;
  /** Whether air's server ran in bubblewrap (else under `env -i`). */
  readonly sandboxed: boolean;
};

const TOOL = "mcp.fixture.echo";

/** Nearest rank: the smallest value at or above `p` percent of the values. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function elapsed_us(started: number): number {
  return (performance.now() - started) * 1000;
}

type Air = { readonly session: Session; readonly registry: ToolRegistry; readonly servers: McpServers };

/** A project and session of their own, the fixture server in the user's mcp.json, activated as a runtime does. */
async function air_side(work: string): Promise<Air> {
  const home = path.join(work, "air-home");
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(user_mcp_file(home), JSON.stringify({ mcpServers: { fixture: stdio_entry() } }));
  const root = path.join(work, "project");
  fs.mkdirSync(root);
  const { project } = init_project(root, { name: "mcp-call" });
  const session = open_session(project, { title: "bench mcp call" });
  const permissions = new PermissionEngine({ policy: { mode: "bypass", rules: [] } });
  const registry = create_tool_registry({ permissions });
  const servers = new McpServers(session, { air_home: home });
  const entries = await servers.activate(registry, permissions);
  if (entries[0]?.status !== "enabled" || registry.get(TOOL) === undefined) {
    await servers.close();
    session.close();
    throw new VerificationError(`the fixture server did not come up in air: ${JSON.stringify(entries)}`);
  }
  return { session, registry, servers };
}

async function bare_side(cwd: string): Promise<Client> {
  const entry = stdio_entry();
  const client = new Client({ name: "bench-bare", version: "1" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd, stderr: "ignore" }));
  return client;
}

async function air_call(air: Air, text: string): Promise<number> {
  const started = performance.now();
  const outcome = await air.registry.call({ tool_name: TOOL, input: { text } }, { session: air.session });
  const took = elapsed_us(started);
  const blocks = outcome.ok ? (outcome.output as { blocks?: { type: string; text?: string }[] }).blocks : undefined;
  if (blocks?.[0]?.text !== text) throw new VerificationError(`air's ${TOOL} answered ${JSON.stringify(outcome)}, not ${JSON.stringify(text)}`);
  return took;
}

async function bare_call(client: Client, text: string): Promise<number> {
  const started = performance.now();
  const result = (await client.callTool({ name: "echo", arguments: { text } })) as CallToolResult;
  const took = elapsed_us(started);
  const [first] = result.content;
  if (first?.type !== "text" || first.text !== text) throw new VerificationError(`the bare echo answered ${JSON.stringify(result)}`);
  return took;
}

function count(session: Session, sql: string): number {
  const row = session.connection.client.prepare(sql).raw(true).get(TOOL) as [number | bigint];
  return Number(row[0]);
}

/** Every call, warm-up included, went through the registry into the session DB: its decision, its run, its events. */
function verify_recorded(session: Session, total: number): void {
  const per_type = (type: string) =>
    count(session, `SELECT count(*) FROM events e JOIN tool_runs r ON e.tool_run_id = r.id WHERE r.tool_name = ? AND e.type = '${type}'`);
  const found = {
    runs: count(session, "SELECT count(*) FROM tool_runs WHERE tool_name = ? AND status = 'ok'"),
    decisions: per_type("permission.decision.recorded"),
    started: per_type("tool.started"),
    completed: per_type("tool.completed"),
  };
  if (Object.values(found).some((n) => n !== total)) throw new VerificationError(`${TOOL} recorded ${JSON.stringify(found)}, expected ${total} of each`);
}

export async function bench_mcp_call(warmup: number, calls: number): Promise<McpCallResult> {
  const work = temp_dir("mcp-call");
  const previous_home = process.env.AIR_HOME;
  process.env.AIR_HOME = path.join(work, "air-home");
  let air: Air | undefined;
  let bare: Client | undefined;
  try {
    air = await air_side(work);
    bare = await bare_side(air.session.project.layout.root);
    const ours: number[] = [];
    const ceiling: number[] = [];
    for (let i = 0; i < warmup + calls; i++) {
      const text = `ping ${i}`;
      // Alternating which goes first, so neither side always runs right after the other's garbage or wake-up.
      let air_us: number;
      let bare_us: number;
      if (i % 2 === 0) {
        air_us = await air_call(air, text);
        bare_us = await bare_call(bare, text);
      } else {
        bare_us = await bare_call(bare, text);
        air_us = await air_call(air, text);
      }
      if (i < warmup) continue;
      ours.push(air_us);
      ceiling.push(bare_us);
    }
    verify_recorded(air.session, warmup + calls);
    const sandboxed = launch_of({ kind: "stdio", command: process.execPath, args: [], env: {} }, air.session.project.layout.root).sandboxed;
    return {
      calls,
      air_p50_us: median(ours),
      air_p95_us: percentile(ours, 95),
      bare_p50_us: median(ceiling),
      bare_p95_us: percentile(ceiling, 95),
      sandboxed,
    };
  } finally {
    await bare?.close();
    await air?.servers.close();
    air?.session.close();
    if (previous_home === undefined) delete process.env.AIR_HOME;
    else process.env.AIR_HOME = previous_home;
    remove_dir(work);
  }
}

/** The two printed lines, p50 and p95, each beside the bare SDK client's. */
export function format_mcp_call(result: McpCallResult): string[] {
  const note = `${result.calls} echo calls, registry + permissions + session DB; server ${result.sandboxed ? "in bwrap" : "under env -i"}`;
  const lines: [string, number, number][] = [
    ["mcp call p50", result.air_p50_us, result.bare_p50_us],
    ["mcp call p95", result.air_p95_us, result.bare_p95_us],
  ];
  return lines.map(([name, ours, bare]) =>
    format_info_line({ name, ours: us(ours), ceiling_name: "bare SDK Client", ceiling: us(bare), ratio: ours / bare, note }),
  );
}

/** `node --import tsx bench/mcp-call.ts [calls] [warm-up]`: the two lines. */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const calls = Number(process.argv[2] ?? 200);
  const warmup = Number(process.argv[3] ?? 20);
  const started = performance.now();
  for (const line of format_mcp_call(await bench_mcp_call(warmup, calls))) process.stdout.write(`${line}\n`);
  process.stdout.write(`(${calls} calls each after ${warmup} warm-up, alternating order; ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

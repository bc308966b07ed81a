/**
 * MCP servers in a session (issue 16): real fixture servers built with the SDK's server side, a stdio one as a child
 * process and a streamable-HTTP one, brought up through the capability lifecycle, their tools called through the
 * ToolRegistry and the PermissionEngine, recorded as `tool.*` events.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolOutcome } from "../../src/contracts/tool.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import { GrantStore, grants_file } from "../../src/permissions/grants.js";
import { process_alive } from "../../src/project/process-alive.js";
import { write_project_servers, write_user_servers } from "../fixtures/mcp/config.js";
import { stdio_entry } from "../fixtures/mcp/servers.js";
import { scripted_answers } from "../fixtures/permissions.js";
import { bypass, call, mcp_harness } from "../fixtures/mcp/harness.js";
import type { TempSession } from "../fixtures/session.js";

const harness = mcp_harness();
const { session, bring_up } = harness;

function events(temp: TempSession, type: string): Record<string, unknown>[] {
  return temp.session.store.query({ types: [type] as never }).map(({ event }) => event.payload as Record<string, unknown>);
}

function texts(outcome: ToolOutcome): string {
  if (!outcome.ok) return `error: ${outcome.error.message}`;
  const output = outcome.output as { blocks: { type: string; text?: string }[] };
  return output.blocks.map((block) => block.text ?? `[${block.type}]`).join("\n");
}

describe("McpServers with a user-installed stdio server", () => {
  it("registers each tool as mcp.<server>.<tool> with its JSON Schema and records the capability lifecycle", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    expect(up.entries).toMatchObject([{ name: "fixture", status: "enabled", scope: "user" }]);
    const names = up.registry.schemas().map((schema) => schema.name);
    expect(names).toEqual(expect.arrayContaining(["mcp.fixture.echo", "mcp.fixture.add", "mcp.fixture.get_weather", "mcp.fixture.lookup"]));
    const echo = up.registry.schemas().find((schema) => schema.name === "mcp.fixture.echo");
    expect(echo?.input_schema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    const steps = temp.session.store.query({
      types: [
        "capability.discovered",
        "capability.validated",
        "capability.doctor_checked",
        "capability.enabled",
        "capability.tools_registered",
        "capability.activated",
      ],
    });
    expect(steps.map(({ event }) => event.type)).toEqual([
      "capability.discovered",
      "capability.validated",
      "capability.doctor_checked",
      "capability.enabled",
      "capability.tools_registered",
      "capability.activated",
    ]);
    expect(events(temp, "capability.discovered")[0]).toMatchObject({ name: "mcp.fixture", trust_level: "user_installed" });
  });

  it("calls a tool through the registry: permission decision, tool.started, tool.completed with canonical blocks", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const outcome = await call(up, temp, "mcp.fixture.echo", { text: "hello over stdio" });
    expect(outcome).toMatchObject({ ok: true, output: { kind: "tool_result_blocks", blocks: [{ type: "text", text: "hello over stdio" }] } });
    expect(events(temp, "permission.decision.recorded").at(-1)).toMatchObject({ tool_name: "mcp.fixture.echo", action: "allow" });
    expect(events(temp, "tool.started").at(-1)).toMatchObject({ tool_name: "mcp.fixture.echo" });
    expect(events(temp, "tool.completed").at(-1)).toMatchObject({ output: { kind: "tool_result_blocks" } });
    const sum = await call(up, temp, "mcp.fixture.add", { a: 2, b: 3 });
    expect(sum).toMatchObject({ ok: true, output: { structured: { sum: 5 } } });
    const image = await call(up, temp, "mcp.fixture.image");
    expect(image).toMatchObject({ ok: true, output: { blocks: [{ type: "image", source: { type: "base64", media_type: "image/png" } }, { type: "text" }] } });
    const resource = await call(up, temp, "mcp.fixture.resource");
    expect(texts(resource)).toContain("resource text");
  });

  it("refuses a call whose input breaks the tool's schema before anything is sent", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const outcome = await call(up, temp, "mcp.fixture.add", { a: "two", b: 3 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toContain("/a must be number");
    expect(events(temp, "tool.started")).toEqual([]);
  });

  it("saves a large result whole as an artifact and gives the model its beginning", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const outcome = await call(up, temp, "mcp.fixture.big", { bytes: 1_000_000 });
    expect(outcome.ok).toBe(true);
    expect(texts(outcome)).toMatch(/the result is 1000000 characters; .* saved as artifact:\/\//);
    const completed = events(temp, "tool.completed").at(-1) as { artifact_ids: string[] };
    expect(completed.artifact_ids).toHaveLength(1);
    const [created] = temp.session.store.query({ types: ["artifact.created"] }).map(({ event }) => event.payload as { artifact: { size_bytes: number } });
    expect(created?.artifact.size_bytes).toBe(1_000_000);
    expect(JSON.stringify(completed).length).toBeLessThan(20_000);
  });

  it("gives the server only the environment its entry declares, plus PATH: no provider key, nothing of the user's", async () => {
    const temp = session();
    process.env.ANTHROPIC_API_KEY_FOR_MCP_TEST = "sk-ant-must-not-leak";
    harness.defer(() => {
      delete process.env.ANTHROPIC_API_KEY_FOR_MCP_TEST;
    });
    write_user_servers({ fixture: { ...stdio_entry(), env: { FIXTURE_MODE: "declared", FROM_USER: "${ANTHROPIC_API_KEY_FOR_MCP_TEST:-x}" } } });
    const up = await bring_up(temp, bypass());
    const outcome = await call(up, temp, "mcp.fixture.env");
    const env = JSON.parse(texts(outcome)) as Record<string, string>;
    // PWD is the project folder, set by the sandbox's chdir.
    expect(
      Object.keys(env)
        .filter((name) => name !== "PWD")
        .sort(),
    ).toEqual(["FIXTURE_MODE", "FROM_USER", "PATH"]);
    expect(env.FIXTURE_MODE).toBe("declared");
    expect(env.FROM_USER).toBe("sk-ant-must-not-leak");
    expect(Object.values(env).filter((value) => value.includes("sk-ant"))).toHaveLength(1);
  });

  it("stops every server with the session: no process outlives close()", async () => {
    const temp = session();
    write_user_servers({ one: stdio_entry(), two: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const pids = up.servers.connections.map((connection) => connection.pid);
    expect(pids.every((pid) => pid !== undefined && process_alive(pid))).toBe(true);
    await up.servers.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const pid of pids) expect(process_alive(pid ?? 0)).toBe(false);
  });
});

describe("McpServers with a streamable-HTTP server", () => {
  it("lists and calls its tools, recorded like any tool", async () => {
    const temp = session();
    const http = await harness.http_server();
    write_user_servers({ remote: { type: "http", url: http.url } });
    const up = await bring_up(temp, bypass());
    expect(up.entries).toMatchObject([{ name: "remote", status: "enabled" }]);
    expect(await call(up, temp, "mcp.remote.add", { a: 40, b: 2 })).toMatchObject({ ok: true, output: { structured: { sum: 42 } } });
    expect(events(temp, "tool.completed").at(-1)).toMatchObject({ output: { structured: { sum: 42 } } });
  });

  it("refuses a response past the size limit as a tool error and keeps going", async () => {
    const temp = session();
    const http = await harness.http_server();
    write_user_servers({ remote: { type: "http", url: http.url } });
    const up = await bring_up(temp, bypass(), { max_message_bytes: 256 * 1024, call_timeout_ms: 5_000 });
    const outcome = await call(up, temp, "mcp.remote.big", { bytes: 1_000_000 });
    expect(outcome.ok).toBe(false);
    expect(await call(up, temp, "mcp.remote.echo", { text: "still here" })).toMatchObject({ ok: true });
  });
});

describe("McpServers permissions", () => {
  it("asks before a call in default mode, once per tool, and a session grant covers the next call", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const answers = scripted_answers({ answer: "allow", grant_scope: "session", resolved_by: "user" });
    const up = await bring_up(temp, new PermissionEngine({ answerer: answers }));
    expect(await call(up, temp, "mcp.fixture.echo", { text: "a" })).toMatchObject({ ok: true });
    expect(await call(up, temp, "mcp.fixture.echo", { text: "b" })).toMatchObject({ ok: true });
    expect(answers.asked).toHaveLength(1);
    expect(answers.asked[0]?.subjects).toEqual([{ kind: "network", tool_name: "mcp.fixture.echo" }]);
    expect(answers.asked[0]?.offered_scopes).toEqual(["once", "session", "project", "global"]);
  });

  it("lets a user-installed server's readOnlyHint tool run unasked, but not the same tool of a project server", async () => {
    const temp = session();
    write_user_servers({ mine: stdio_entry() });
    write_project_servers(temp.project.layout.root, { theirs: stdio_entry() });
    const answers = scripted_answers(
      { answer: "allow", grant_scope: "session", resolved_by: "user" },
      { answer: "deny", grant_scope: "once", resolved_by: "user" },
    );
    const up = await bring_up(temp, new PermissionEngine({ answerer: answers }));
    expect(await call(up, temp, "mcp.mine.lookup", { key: "k" })).toMatchObject({ ok: true });
    expect(answers.asked).toHaveLength(1);
    const theirs = await call(up, temp, "mcp.theirs.lookup", { key: "k" });
    expect(theirs.ok).toBe(false);
    expect(answers.asked.map((prompt) => prompt.tool_name)).toEqual(["mcp.theirs", "mcp.theirs.lookup"]);
  });

  it("refuses every MCP call to a read-only agent, whatever the mode", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const outcome = await up.registry.call({ tool_name: "mcp.fixture.echo", input: { text: "x" } }, { session: temp.session, access: "read_only" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "policy_error", metadata: { action: "refuse" } } });
  });
});

describe("a project's .mcp.json server", () => {
  it("does not start before approval; a denied approval leaves it stopped and its tools unoffered", async () => {
    const temp = session();
    const counter = path.join(temp.root, "starts.txt");
    write_project_servers(temp.project.layout.root, { theirs: stdio_entry(["--counter-file", counter]) });
    const answers = scripted_answers({ answer: "deny", grant_scope: "once", resolved_by: "user" });
    const up = await bring_up(temp, new PermissionEngine({ answerer: answers }));
    expect(answers.asked[0]).toMatchObject({
      tool_name: "mcp.theirs",
      offered_scopes: ["project", "session"],
      subjects: [{ kind: "mcp_server", server: "theirs" }],
    });
    expect(answers.asked[0]?.question).toContain("stdio-server.ts");
    expect(up.entries).toMatchObject([{ name: "theirs", status: "disabled" }]);
    expect(up.registry.schemas().some((schema) => schema.name.startsWith("mcp."))).toBe(false);
    expect(fs.existsSync(counter)).toBe(false);
    expect(events(temp, "capability.disabled")).toHaveLength(1);
  });

  it("keeps a project approval as a grant: a later session starts the server without asking", async () => {
    const temp = session();
    write_project_servers(temp.project.layout.root, { theirs: stdio_entry() });
    const grants = () => new GrantStore({ project: grants_file(temp.project.layout.local) });
    const first = scripted_answers({ answer: "allow", grant_scope: "project", resolved_by: "user" });
    const up = await bring_up(temp, new PermissionEngine({ answerer: first, grants: grants() }));
    expect(up.entries).toMatchObject([{ status: "enabled" }]);
    await up.servers.close();
    const second = scripted_answers();
    const again = await bring_up(temp, new PermissionEngine({ answerer: second, grants: grants() }));
    expect(again.entries).toMatchObject([{ status: "enabled" }]);
    expect(second.asked).toEqual([]);
  });

  it("asks again when the entry's command changes after it was approved", async () => {
    const temp = session();
    write_project_servers(temp.project.layout.root, { theirs: stdio_entry() });
    const grants = new GrantStore({ project: grants_file(temp.project.layout.local) });
    const first = scripted_answers({ answer: "allow", grant_scope: "project", resolved_by: "user" });
    await bring_up(temp, new PermissionEngine({ answerer: first, grants }));
    write_project_servers(temp.project.layout.root, { theirs: stdio_entry(["--changed"]) });
    const second = scripted_answers({ answer: "deny", grant_scope: "once", resolved_by: "user" });
    const again = await bring_up(temp, new PermissionEngine({ answerer: second, grants: new GrantStore({ project: grants_file(temp.project.layout.local) }) }));
    expect(second.asked).toHaveLength(1);
    expect(again.entries).toMatchObject([{ status: "disabled" }]);
  });
});

describe("McpServers with a legacy SSE server", () => {
  it("lists and calls its tools over the deprecated HTTP+SSE transport", async () => {
    const temp = session();
    const http = await harness.http_server();
    write_user_servers({ legacy: { type: "sse", url: http.sse_url } });
    const up = await bring_up(temp, bypass());
    expect(up.entries).toMatchObject([{ name: "legacy", status: "enabled" }]);
    const names = up.registry.schemas().map((schema) => schema.name);
    expect(names).toEqual(expect.arrayContaining(["mcp.legacy.echo", "mcp.legacy.add", "mcp.legacy.big", "mcp.legacy.lookup"]));
    expect(await call(up, temp, "mcp.legacy.add", { a: 1, b: 2 })).toMatchObject({ ok: true, output: { structured: { sum: 3 } } });
    expect(events(temp, "tool.completed").at(-1)).toMatchObject({ output: { structured: { sum: 3 } } });
  });

  it("limits each message on the session's one event stream, not the stream as a whole", async () => {
    const temp = session();
    const http = await harness.http_server();
    write_user_servers({ legacy: { type: "sse", url: http.sse_url } });
    const up = await bring_up(temp, bypass(), { max_message_bytes: 256 * 1024, call_timeout_ms: 3_000 });
    for (let round = 0; round < 4; round += 1) expect(await call(up, temp, "mcp.legacy.big", { bytes: 100_000 })).toMatchObject({ ok: true });
    expect(await call(up, temp, "mcp.legacy.big", { bytes: 1_000_000 })).toMatchObject({ ok: false });
  });
});

describe("MCP results and secrets", () => {
  // Built from parts so no key-shaped literal sits in the source; the shape of an Anthropic API key.
  const key = ["sk", "ant", "api03", `${"Xq7vR2mK9pL4".repeat(7)}Ab_cD`].join("-");
  const mark = "[REDACTED:anthropic_key]";

  it("redacts secrets in results before the model or the session log sees them", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const outcome = await call(up, temp, "mcp.fixture.echo", { text: `the config says ANTHROPIC=${key} and nothing else` });
    expect(outcome.ok).toBe(true);
    expect(texts(outcome)).not.toContain(key);
    expect(texts(outcome)).toContain(mark);
    expect(texts(outcome)).toContain("and nothing else");
    const completed = events(temp, "tool.completed").at(-1);
    expect(JSON.stringify(completed)).not.toContain(key);
    expect(JSON.stringify(completed)).toContain(mark);
  });

  it("redacts secrets in the artifact that keeps a large result whole", async () => {
    const temp = session();
    write_user_servers({ fixture: stdio_entry() });
    const up = await bring_up(temp, bypass());
    const filler = "lorem ipsum dolor sit amet ".repeat(8);
    const text = Array.from({ length: 200 }, (_, line) => `line ${line}: ${filler}key=${key} ${filler}`).join("\n");
    expect(text.length).toBeGreaterThan(40 * 1024);
    const outcome = await call(up, temp, "mcp.fixture.echo", { text });
    expect(outcome.ok).toBe(true);
    expect(texts(outcome)).toMatch(/saved as artifact:\/\//);
    expect(texts(outcome)).not.toContain(key);
    const completed = events(temp, "tool.completed").at(-1) as { artifact_ids: string[] };
    expect(completed.artifact_ids).toHaveLength(1);
    expect(JSON.stringify(completed)).not.toContain(key);
    const created = events(temp, "artifact.created") as { artifact: { id: string }; path: string }[];
    expect(created.map(({ artifact }) => artifact.id)).toEqual(completed.artifact_ids);
    const saved = fs.readFileSync(temp.session.artifacts.path_of(created[0]?.path ?? ""), "utf8");
    expect(saved).not.toContain(key);
    expect(saved.split(mark)).toHaveLength(201);
    expect(saved).toContain(`line 199: ${filler}`);
  });
});

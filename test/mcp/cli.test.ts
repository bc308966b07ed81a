/**
 * `air mcp list|add|remove` and the MCP lines of `air doctor`, against the real fixture servers: a project server
 * the project approved is started and listed, one it has not approved is never started, a user server always is;
 * a broken config names its file and entry; env and header values are never printed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/output.js";
import { read_mcp_config } from "../../src/mcp/config.js";
import { grants_file, GrantStore } from "../../src/permissions/grants.js";
import { project_layout } from "../../src/project/layout.js";
import { TempDirs } from "../fixtures/processes.js";
import { type HttpFixtureServer, start_http_server, stdio_entry } from "../fixtures/mcp/servers.js";

const SECRET = "sk-planted-secret-0123456789";
const HEADER_SECRET = "Bearer hdr-planted-secret-9876543210";
const VARIABLES = ["AIR_HOME", "AIR_SANDBOX", "ANTHROPIC_API_KEY"];

const dirs = new TempDirs();
let root: string;
let home: string;
let saved: Record<string, string | undefined>;
let http_server: HttpFixtureServer | undefined;

beforeEach(() => {
  root = dirs.make("air-mcp-cli-");
  home = path.join(dirs.make("air-mcp-home-"), ".air");
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
  process.env.AIR_HOME = home;
});

afterEach(async () => {
  await http_server?.stop();
  http_server = undefined;
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  dirs.cleanup();
});

async function air(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (text) => (out += text), err: (text) => (err += text), cwd: root };
  const code = await main(argv, io);
  return { code, out, err };
}

function write_json(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

const project_file = () => path.join(root, ".mcp.json");
const user_file = () => path.join(home, "mcp.json");
const read_json = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as { mcpServers: Record<string, Record<string, unknown>> };

/** The project's approval of its server `name`, as a session's "allow for the project" answer writes it. */
function approve(name: string): void {
  const server = read_mcp_config({ project_root: root, air_home: home }).find((each) => each.name === name);
  if (server === undefined) throw new Error(`no server ${name}`);
  new GrantStore({ project: grants_file(project_layout(root).local) }).add("allow", "project", [
    { kind: "mcp_server", server: name, fingerprint: server.fingerprint },
  ]);
}

const lines_of = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

/**
 * The processes whose command line mentions `text`. A server's own pid tells nothing: in the sandbox it is
 * a pid of its own namespace, so the server is found by its unique counter-file argument instead.
 */
function processes_mentioning(text: string): string[] {
  return fs.readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text);
    } catch {
      return false;
    }
  });
}

type Listed = {
  servers: {
    name: string;
    scope: string;
    file: string;
    trust: string;
    state: string;
    transport: { kind: string; command?: string; url?: string; env_names?: string[]; header_names?: string[] };
    tools: { name: string; mcp_name: string; read_only: boolean }[];
    resources: string[];
    prompts: string[];
    error?: { kind: string; message: string };
  }[];
};

/** An approved and an unapproved project server (each counting its starts), and an HTTP and a broken user server. */
async function configure(): Promise<{ approved_starts: string; pending_starts: string }> {
  const approved_starts = path.join(root, "approved-starts");
  const pending_starts = path.join(root, "pending-starts");
  write_json(project_file(), {
    mcpServers: {
      approved: { ...stdio_entry(["--counter-file", approved_starts]), env: { SECRET_TOKEN: SECRET } },
      pending: stdio_entry(["--counter-file", pending_starts]),
    },
  });
  http_server = await start_http_server();
  write_json(user_file(), {
    mcpServers: {
      remote: { type: "http", url: http_server.url, headers: { Authorization: HEADER_SECRET } },
      missing: { command: "/nonexistent/air-mcp-server" },
    },
  });
  approve("approved");
  return { approved_starts, pending_starts };
}

describe("air mcp list", () => {
  it("--json: starts the approved and the user servers (and stops them), not the unapproved one; names, never values", async () => {
    const { approved_starts, pending_starts } = await configure();
    const { code, out, err } = await air("mcp", "list", "--json");
    expect(code, err).toBe(0);
    const listed = JSON.parse(out) as Listed;
    const by_name = Object.fromEntries(listed.servers.map((server) => [server.name, server]));
    expect(Object.keys(by_name).sort()).toEqual(["approved", "missing", "pending", "remote"]);

    expect(by_name.approved).toMatchObject({ scope: "project", file: project_file(), trust: "project_local", state: "running" });
    expect(by_name.approved?.transport).toMatchObject({ kind: "stdio", command: process.execPath, env_names: ["SECRET_TOKEN"] });
    expect(by_name.approved?.tools).toContainEqual({ name: "mcp.approved.echo", mcp_name: "echo", read_only: false });
    expect(by_name.approved?.tools).toContainEqual(expect.objectContaining({ name: "mcp.approved.get_weather", mcp_name: "Get-Weather" }));
    expect(by_name.approved?.resources).toContain("fixture://readme");
    expect(by_name.approved?.prompts.length).toBeGreaterThan(0);

    expect(by_name.pending).toMatchObject({ scope: "project", state: "needs_approval", tools: [] });
    expect(lines_of(pending_starts)).toEqual([]);

    expect(by_name.remote).toMatchObject({ scope: "user", trust: "user_installed", state: "running" });
    expect(by_name.remote?.transport).toEqual({ kind: "http", url: http_server?.url, header_names: ["Authorization"] });
    expect(by_name.remote?.tools.map((tool) => tool.name)).toContain("mcp.remote.echo");

    expect(by_name.missing).toMatchObject({ scope: "user", state: "failed", error: { kind: "tool_error" } });
    expect(by_name.missing?.error?.message).toContain('MCP server "missing"');

    expect(out).not.toContain(SECRET);
    expect(out).not.toContain("hdr-planted-secret");
    expect(lines_of(approved_starts)).toHaveLength(1);
    expect(processes_mentioning(approved_starts)).toEqual([]);
  });

  it("text: a row per server, the approval note, what each running one offers, and no secret", async () => {
    const { pending_starts } = await configure();
    const { code, out, err } = await air("mcp", "list");
    expect(code, err).toBe(0);
    expect(out).toMatch(/^NAME\s+SCOPE\s+TRUST\s+STATE\s+TOOLS\s+TRANSPORT$/m);
    expect(out).toMatch(/^approved\s+project\s+project_local\s+running\s+\d+\s+stdio: \S+ .*\(env: SECRET_TOKEN\)$/m);
    expect(out).toMatch(/^pending\s+project\s+project_local\s+needs approval\s+0\s+stdio: /m);
    expect(out).toMatch(/^remote\s+user\s+user_installed\s+running\s+\d+\s+http: http:\/\/127\.0\.0\.1:\d+\/mcp \(headers: Authorization\)$/m);
    expect(out).toMatch(/^missing\s+user\s+user_installed\s+failed\s+0\s+stdio: \/nonexistent\/air-mcp-server$/m);
    expect(out).toContain("needs approval: a project's server is not started until approved; the first session that starts it asks you.");
    expect(out).toMatch(/^ {2}tool mcp\.approved\.get_weather \(Get-Weather\)/m);
    expect(out).toMatch(/^ {2}resource fixture:\/\/readme$/m);
    expect(out).toMatch(/^air: tool_error: MCP server "missing"/m);
    expect(out + err).not.toContain(SECRET);
    expect(out + err).not.toContain("hdr-planted-secret");
    expect(lines_of(pending_starts)).toEqual([]);
  });

  it("a changed entry is no longer approved: it is not started", async () => {
    const starts = path.join(root, "starts");
    write_json(project_file(), { mcpServers: { tool: stdio_entry(["--counter-file", starts]) } });
    approve("tool");
    write_json(project_file(), { mcpServers: { tool: stdio_entry(["--counter-file", starts, "--changed"]) } });
    const listed = JSON.parse((await air("mcp", "list", "--json")).out) as Listed;
    expect(listed.servers[0]?.state).toBe("needs_approval");
    expect(lines_of(starts)).toEqual([]);
  });

  it.each([
    ["not JSON", "{ not json", undefined, "it is not JSON"],
    ["an unknown key", { mcpServers: { odd: { command: "x", bogus: 1 } } }, "odd", "unknown key"],
    ["neither command nor url", { mcpServers: { empty: { args: ["a"] } } }, "empty", "a command (a stdio server) or a url"],
  ])("a config with %s: exit 1, naming the file and the entry", async (_, content, entry, why) => {
    if (typeof content === "string") fs.writeFileSync(project_file(), content);
    else write_json(project_file(), content);
    const { code, out, err } = await air("mcp", "list");
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toContain(`air: user_error: ${project_file()} is invalid`);
    if (entry !== undefined) expect(err).toContain(`(server "${entry}")`);
    expect(err).toContain(why);
    expect(err).toContain(`→ Fix or remove ${project_file()}`);
  });

  it("with no servers: says where they would be", async () => {
    const { code, out } = await air("mcp", "list");
    expect(code).toBe(0);
    expect(out).toContain("No MCP servers are configured");
    expect(out).toContain(project_file());
  });
});

describe("air mcp add and remove", () => {
  const KEEP = { command: "keep-server", args: ["--port", "1"], env: { KEEP_TOKEN: "${KEEP_TOKEN:-x}" } };

  it("round trip: entries added as typed (references unexpanded), the other entry kept, then removed", async () => {
    write_json(project_file(), { mcpServers: { keep: KEEP } });
    const stdio = await air("mcp", "add", "tool", "-e", "TOOL_TOKEN=${TOOL_TOKEN}", "--env", "MODE=fast", "--", "npx", "-y", "some-server", "--flag");
    expect(stdio.code, stdio.err).toBe(0);
    expect(stdio.out).toContain(`Added the MCP server "tool" to ${project_file()}.`);
    const remote = await air("mcp", "add", "--transport", "http", "api", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer ${API_TOKEN}");
    expect(remote.code, remote.err).toBe(0);
    expect(read_json(project_file()).mcpServers).toEqual({
      keep: KEEP,
      tool: { type: "stdio", command: "npx", args: ["-y", "some-server", "--flag"], env: { TOOL_TOKEN: "${TOOL_TOKEN}", MODE: "fast" } },
      api: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
    });
    expect(read_mcp_config({ project_root: root, air_home: home }).map((server) => server.name)).toEqual(["keep", "tool", "api"]);

    const again = await air("mcp", "add", "api", "https://other.example.com/mcp", "--transport", "sse");
    expect(again.code).toBe(1);
    expect(again.err).toContain(`${project_file()} already has an MCP server "api"`);
    expect(again.err).toContain("air mcp remove api");

    expect((await air("mcp", "remove", "api")).code).toBe(0);
    expect((await air("mcp", "remove", "tool")).code).toBe(0);
    expect(read_json(project_file()).mcpServers).toEqual({ keep: KEEP });
  });

  it("keeps a private file private: the rewrite has the file's mode from its first byte", async () => {
    write_json(project_file(), { mcpServers: { keep: KEEP } });
    fs.chmodSync(project_file(), 0o600);
    expect((await air("mcp", "add", "tool", "--", "npx", "some-server")).code).toBe(0);
    expect(fs.statSync(project_file()).mode & 0o777).toBe(0o600);
    expect((await air("mcp", "remove", "tool")).code).toBe(0);
    expect(fs.statSync(project_file()).mode & 0o777).toBe(0o600);
  });

  it("--scope user writes the air home's mcp.json; a name in both files needs --scope to be removed", async () => {
    write_json(project_file(), { mcpServers: { both: { command: "project-one" } } });
    const added = await air("mcp", "add", "both", "--scope", "user", "--", "user-one");
    expect(added.code, added.err).toBe(0);
    expect(read_json(user_file()).mcpServers).toEqual({ both: { type: "stdio", command: "user-one", args: [] } });
    const ambiguous = await air("mcp", "remove", "both");
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toContain("--scope project (or --scope user)");
    expect((await air("mcp", "remove", "both", "-s", "user")).code).toBe(0);
    expect(read_json(user_file()).mcpServers).toEqual({});
    expect(read_json(project_file()).mcpServers).toEqual({ both: { command: "project-one" } });
  });

  it("an unknown name is a user_error listing the names there are", async () => {
    write_json(project_file(), { mcpServers: { one: { command: "a" } } });
    write_json(user_file(), { mcpServers: { two: { url: "https://x.example/mcp" } } });
    const { code, err } = await air("mcp", "remove", "three");
    expect(code).toBe(1);
    expect(err).toContain('air: user_error: there is no MCP server "three"');
    expect(err).toContain("Name one of: one, two.");
  });

  it("an entry that would break the file is refused, and nothing is written", async () => {
    write_json(project_file(), { mcpServers: { keep: { command: "a" } } });
    const before = fs.readFileSync(project_file(), "utf8");
    const bad_name = await air("mcp", "add", "bad name", "--", "x");
    expect(bad_name.code).toBe(1);
    expect(bad_name.err).toContain('"bad name" was not added');
    const bad_env = await air("mcp", "add", "ok", "-e", `1BAD=${SECRET}`, "--", "x");
    expect(bad_env.code).toBe(1);
    expect(bad_env.err).toContain('(server "ok"): env.1BAD: expected');
    expect(bad_env.err).not.toContain(SECRET);
    const no_separator = await air("mcp", "add", "ok", "-e", SECRET, "--", "x");
    expect(no_separator.code).toBe(1);
    expect(no_separator.err).toContain("--env number 1 is not KEY=VALUE");
    expect(no_separator.err).not.toContain(SECRET);
    const url_as_command = await air("mcp", "add", "ok", "https://x.example/mcp");
    expect(url_as_command.err).toContain("Add --transport http");
    expect(fs.readFileSync(project_file(), "utf8")).toBe(before);
  });
});

describe("air doctor and MCP servers", () => {
  it("a line per server: running with its tool count, needs approval (not started), a command not found", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-doctor-mcp-0123456789";
    const pending_starts = path.join(root, "pending-starts");
    write_json(project_file(), {
      mcpServers: {
        approved: { ...stdio_entry(), env: { SECRET_TOKEN: SECRET } },
        pending: stdio_entry(["--counter-file", pending_starts]),
        absent: { command: "air-no-such-mcp-server" },
      },
    });
    approve("approved");
    approve("absent");
    const plain = await air("doctor");
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toMatch(/^mcp:approved\s+ok\s+running, \d+ tools$/m);
    expect(plain.out).toMatch(/^mcp:pending\s+ok\s+needs approval: the first session that starts it asks you$/m);
    expect(plain.out).toMatch(/^mcp:absent\s+warning\s+failed: MCP server "absent": its command air-no-such-mcp-server is not found on the PATH/m);
    expect(plain.out).toContain("air can run here.");
    expect(plain.out + plain.err).not.toContain(SECRET);
    expect(lines_of(pending_starts)).toEqual([]);

    const report = JSON.parse((await air("doctor", "--json")).out) as { checks: { id: string; status: string; detail?: Record<string, unknown> }[] };
    const approved = report.checks.find((check) => check.id === "mcp:approved");
    expect(approved).toMatchObject({ status: "ok", detail: { scope: "project", state: "running", transport: "stdio", command: process.execPath } });
    expect(approved?.detail?.tools).toBeGreaterThan(0);
  });

  it("a broken .mcp.json is a failed check naming the file", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-doctor-mcp-0123456789";
    fs.writeFileSync(project_file(), "{ not json");
    const plain = await air("doctor");
    expect(plain.code).toBe(1);
    expect(plain.out).toMatch(new RegExp(`^mcp\\s+error\\s+${project_file().replaceAll(".", "\\.")} is invalid$`, "m"));
    expect(plain.err).toContain(`${project_file()} is invalid`);
  });
});

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HELP_WIDTH } from "../../src/cli/help.js";
import { REPO_ROOT, run_air, run_air_async, spawn_fixture, temp_workspace } from "../fixtures/cli.js";
import { import_log_of, loaded_modules } from "../fixtures/loaded-modules.js";

let workspace: ReturnType<typeof temp_workspace>;
beforeEach(() => {
  workspace = temp_workspace();
});
afterEach(() => workspace.cleanup());

const air = (...args: string[]) => run_air(args, { cwd: workspace.root, env: workspace.env });

describe("air --version and --help", () => {
  it("prints the package version", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const result = air("--version");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it("lists every command in --help", () => {
    const result = air("--help");
    expect(result.status).toBe(0);
    for (const command of ["air init", "air session list", "air history"]) expect(result.stdout).toContain(command);
  });

  it("lays --help out in two columns: every line of the second starts at one offset, no line is wider than HELP_WIDTH", () => {
    const lines = air("--help").stdout.split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(HELP_WIDTH);
    const start = lines.indexOf("Commands:") + 1;
    const block = lines.slice(start, lines.indexOf("", start));
    for (const name of ["air init", "air session list", "air run", "air permissions check", "air history", "air --help"]) {
      expect(block.some((line) => line.startsWith(`  ${name}  `))).toBe(true);
    }
    // A name's line: the name, then at least two spaces; a continuation line: spaces only, up to the column.
    const offsets = block.map((line) => (/^ {2}air(?: \S+)+? {2,}(?=\S)/.exec(line) ?? /^ +(?=\S)/.exec(line))?.[0].length);
    expect(new Set(offsets)).toEqual(new Set([offsets[0]]));
    expect(offsets[0]).toBeGreaterThan("  air permissions check".length);
  });

  it("keeps a command's own --help within HELP_WIDTH", () => {
    const result = air("run", "--help");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("air run");
    for (const line of result.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(HELP_WIDTH);
  });

  it("exits 2 with usage on an unknown command or option", () => {
    expect(air("frobnicate").status).toBe(2);
    const inherited = air("toString");
    expect(inherited.status).toBe(2);
    expect(inherited.stderr).toContain('unknown command "toString"');
    const bad_option = air("session", "list", "--colour");
    expect(bad_option.status).toBe(2);
    expect(bad_option.stderr).toContain("air session list");
  });
});

describe("air init", () => {
  it("creates the project tree and is idempotent", () => {
    const first = air("init", "--yes");
    expect(first.status).toBe(0);
    const project = JSON.parse(fs.readFileSync(path.join(workspace.root, ".air/shared/project.json"), "utf8"));
    expect(first.stdout).toContain(project.project_id);
    const second = air("init", "--yes");
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("Already an air project");
    expect(JSON.parse(fs.readFileSync(path.join(workspace.root, ".air/shared/project.json"), "utf8"))).toEqual(project);
  });

  it("refuses a corrupt project.json with a user action and leaves it untouched", () => {
    fs.mkdirSync(path.join(workspace.root, ".air/shared"), { recursive: true });
    const file = path.join(workspace.root, ".air/shared/project.json");
    fs.writeFileSync(file, "{ not json");
    const result = air("init", "--yes");
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/project_error: .*project\.json is corrupt/);
    expect(result.stderr).toContain("→");
    expect(fs.readFileSync(file, "utf8")).toBe("{ not json");
    expect(fs.existsSync(path.join(workspace.root, ".air/local"))).toBe(false);
  });
});

describe("air session list", () => {
  it("explains how to start outside a project", () => {
    const result = air("session", "list");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("user_error");
    expect(result.stderr).toContain("air init");
  });

  it("says there are no sessions in a new project", () => {
    air("init", "--yes");
    const result = air("session", "list", "--json");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ sessions: [], unreadable: [] });
  });

  it("loads neither xstate, drizzle, ink nor an LLM SDK", () => {
    air("init", "--yes");
    const log = path.join(workspace.root, "imports.log");
    const recorder = path.join(REPO_ROOT, "test/fixtures/import-recorder.mjs");
    const result = run_air(["session", "list"], {
      cwd: workspace.root,
      env: { ...workspace.env, AIR_IMPORT_LOG: log },
      node_args: ["--import", recorder],
    });
    expect(result.status).toBe(0);
    const loaded = loaded_modules(log).join("\n");
    expect(loaded).toContain("/dist/cli/commands/session-list.js");
    for (const forbidden of ["/node_modules/xstate/", "/node_modules/drizzle-orm/", "/node_modules/ink/", "@anthropic-ai", "/node_modules/openai/"]) {
      expect(loaded).not.toContain(forbidden);
    }
  });
});

/** The modules a Node process loads to import `files` (dist/, unbundled), as the import recorder logs them. */
function modules_loaded_by(files: readonly string[]): string {
  return fs.readFileSync(
    import_log_of(
      files.map((file) => path.join(REPO_ROOT, file)),
      workspace,
    ),
    "utf8",
  );
}

describe("what the TUI loads before its first frame", () => {
  it("loads no MCP SDK and no JSON Schema validator: only a project with MCP servers loads them, when its runtime starts", () => {
    const loaded = modules_loaded_by(["dist/cli/interactive.js"]);
    expect(loaded).toContain("/dist/actors/runtime/runtime.js");
    expect(loaded).toContain("/dist/mcp/servers.js");
    for (const deferred of ["@modelcontextprotocol", "/node_modules/ajv/", "/dist/mcp/activation.js"]) expect(loaded).not.toContain(deferred);
  });

  it("loads no LLM SDK, wizard, inspector or LSP: the provider's SDK loads at its first request, the rest when used", () => {
    const loaded = modules_loaded_by(["dist/cli/commands/run.js", "dist/cli/interactive.js"]);
    expect(loaded).toContain("/dist/providers/manager.js");
    expect(loaded).toContain("/dist/cpp/clangd/pool.js");
    const deferred = [
      "@anthropic-ai",
      "/node_modules/openai/",
      "/dist/providers/anthropic.js",
      "/dist/cli/wizard.js",
      "@clack",
      "@statelyai",
      "/node_modules/ws/",
      "vscode-jsonrpc",
      "vscode-languageserver",
      "/dist/cpp/clangd/client.js",
    ];
    for (const module of deferred) expect(loaded).not.toContain(module);
  });

  it("loads no shell analyzer: the permission engine brings it in at the first command it judges", () => {
    const loaded = modules_loaded_by(["dist/cli/commands/run.js", "dist/cli/interactive.js"]);
    expect(loaded).toContain("/dist/permissions/engine.js");
    expect(loaded).not.toContain("/dist/permissions/command-risk/");
  });
});

describe("readers beside a live writer", () => {
  it("lists and shows history while a session appends, without errors or stalling the writer", async () => {
    air("init", "--yes");
    const writer = spawn_fixture("steady-writer.ts", ["4000"], { cwd: workspace.root, env: workspace.env });
    // Listened for at once: under load the writer can finish and close before the readers' rounds do.
    const closed = new Promise((resolve) => writer.on("close", resolve));
    const lines = readline.createInterface({ input: writer.stdout });
    const iterator = lines[Symbol.asyncIterator]();
    const ready = (await iterator.next()).value as string;
    const session_id = ready.split(" ")[1]!;

    const seen_counts: number[] = [];
    for (let round = 0; round < 6; round++) {
      const [list, history] = await Promise.all([
        run_air_async(["session", "list", "--json"], { cwd: workspace.root, env: workspace.env }),
        run_air_async(["history", "--session", session_id, "--json"], { cwd: workspace.root, env: workspace.env }),
      ]);
      expect(list.stderr).toBe("");
      expect(list.status).toBe(0);
      expect(JSON.parse(list.stdout).sessions.map((s: { id: string }) => s.id)).toContain(session_id);
      expect(history.status).toBe(0);
      seen_counts.push(JSON.parse(history.stdout).events.length);
    }
    const report = JSON.parse((await iterator.next()).value as string) as { appended: number; slowest_ms: number };
    await closed;

    expect(seen_counts.at(-1)!).toBeGreaterThan(seen_counts[0]!);
    expect(report.appended).toBeGreaterThan(0);
    // The busy timeout is 5 s: a reader that held the writer back that long would show here.
    expect(report.slowest_ms).toBeLessThan(5_000);

    const after = JSON.parse(air("history", "--session", session_id, "--json").stdout) as { events: unknown[] };
    expect(after.events.length).toBe(report.appended + 1);
    // Twelve CLI runs beside a writer of 4,000 events: 6 s on a quiet machine, past 30 s under the full suite's load.
  }, 90_000);
});

describe("air history", () => {
  it("shows the latest session's events readably and as JSON with routes intact", async () => {
    air("init", "--yes");
    const writer = spawn_fixture("steady-writer.ts", ["50"], { cwd: workspace.root, env: workspace.env });
    await new Promise((resolve) => writer.on("close", resolve));
    const text = air("history");
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/session\.created\s+runtime/);
    expect(text.stdout).toMatch(/tool\.started .*tool_name=fs\.read/);
    const json = JSON.parse(air("history", "--json").stdout) as { events: { type: string; route: string[]; seq: number }[] };
    expect(json.events[0]).toMatchObject({ type: "session.created", route: ["runtime"], seq: 1 });
  });

  it("names an unknown session and how to find the right one", () => {
    air("init", "--yes");
    const result = air("history", "--session", "ses_01M8MGVSCZGJDBVT7JXKN2Z7ZE");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("no session ses_01M8MGVSCZGJDBVT7JXKN2Z7ZE");
    expect(result.stderr).toContain("air session list");
  });
});

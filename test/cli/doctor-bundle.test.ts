/**
 * `air doctor --bundle [--out PATH]`: one local tar.gz for a bug report — the environment, the doctor's
 * results, the logs, and the configuration with every secret removed. It lists what it holds and uploads
 * nothing; unpacked with the system's tar, no file in it holds a key the test planted anywhere.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run_doctor } from "../../src/cli/commands/doctor.js";
import { require_build } from "../e2e/helpers.js";
import { run_air, temp_workspace } from "../fixtures/cli.js";

const SECRETS = {
  env_key: "sk-ant-api03-bundletest-0123456789abcdefghijklmnop",
  env_token: "plain5512value-of-a-service-token",
  models_key: "models8841key-in-the-yaml",
  models_header: "header7731value-sent-along",
  credential: "sk-ant-api03-credentialsfile-0123456789abcdefghij",
  user_mcp_env: "usermcp2290env-value",
  project_mcp_header: "projmcp6628bearer-value",
  project_mcp_env: "projmcp1170env-value",
};

let workspace: ReturnType<typeof temp_workspace>;
let project: string;
let env: NodeJS.ProcessEnv;
let home: string;

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

beforeAll(() => {
  require_build();
  workspace = temp_workspace("air-bundle-");
  project = path.join(workspace.root, "project");
  fs.mkdirSync(project);
  home = workspace.env.AIR_HOME!;
  env = { ...workspace.env, ANTHROPIC_API_KEY: SECRETS.env_key, MY_SERVICE_TOKEN: SECRETS.env_token };
  expect(run_air(["init", "--yes"], { cwd: project, env }).status).toBe(0);
  write(
    path.join(home, "models.yaml"),
    `providers:\n  anthropic:\n    api_key: ${SECRETS.models_key}\n    headers:\n      X-Proxy-Route: ${SECRETS.models_header}\n`,
  );
  write(path.join(home, "credentials.yaml"), `version: 1\nkeys:\n  spare: ${SECRETS.credential}\n`);
  write(path.join(home, "mcp.json"), JSON.stringify({ mcpServers: { tools: { command: "tools-server", env: { SERVICE: SECRETS.user_mcp_env } } } }));
  write(
    path.join(project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${SECRETS.project_mcp_header}` } },
        local: { command: "local-server", env: { LOCAL_SECRET: SECRETS.project_mcp_env } },
      },
    }),
  );
  // Failures that quote secrets, so the logs have something to leak.
  for (const secret of [SECRETS.env_token, SECRETS.models_key, SECRETS.env_key]) run_air(["tasks", "--session", secret], { cwd: project, env });
});
afterAll(() => workspace.cleanup());

function unpack(archive: string): Map<string, string> {
  const into = path.join(workspace.root, `unpacked-${path.basename(archive)}`);
  fs.mkdirSync(into);
  const untar = spawnSync("tar", ["-xzf", archive, "-C", into], { encoding: "utf8" });
  expect(untar.stderr).toBe("");
  expect(untar.status).toBe(0);
  const files = fs.readdirSync(into, { recursive: true, encoding: "utf8" }).filter((name) => fs.statSync(path.join(into, name)).isFile());
  return new Map(files.map((name) => [name.split(path.sep).join("/"), fs.readFileSync(path.join(into, name), "utf8")]));
}

describe("air doctor --bundle", () => {
  it("writes the archive where --out says, lists what it holds, and no file in it holds a key", () => {
    const out = path.join(workspace.root, "report.tar.gz");
    const run = run_air(["doctor", "--bundle", "--out", out], { cwd: project, env });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Wrote the doctor bundle ${out}`);
    expect(run.stdout).toContain("Nothing was uploaded");

    const files = unpack(out);
    const expected = [
      "environment.json",
      "doctor.json",
      "logs/air.log",
      "logs/air.developer.log",
      "config/home/models.yaml",
      "config/home/credentials.yaml",
      "config/home/mcp.json",
      "config/project/.air/shared/project.json",
      "config/project/.mcp.json",
    ];
    for (const name of expected) {
      expect(files.has(name), name).toBe(true);
      expect(run.stdout).toContain(`  ${name}\n`);
    }
    expect([...files.keys()].every((name) => run.stdout.includes(`  ${name}\n`))).toBe(true);

    for (const [name, text] of files) {
      for (const [which, secret] of Object.entries(SECRETS)) expect(text, `${which} in ${name}`).not.toContain(secret);
    }

    expect(JSON.parse(files.get("environment.json")!)).toMatchObject({
      node: process.version,
      platform: process.platform,
      toolchain: { git: expect.stringMatching(/^git version/) },
    });
    expect(JSON.parse(files.get("doctor.json")!).checks.map((check: { id: string }) => check.id)).toContain("provider");
    expect(files.get("config/home/models.yaml")).toMatch(/api_key: "?\[REMOVED\]"?/);
    expect(files.get("config/home/models.yaml")).toMatch(/X-Proxy-Route: "?\[REMOVED\]"?/);
    expect(JSON.parse(files.get("config/project/.mcp.json")!)).toMatchObject({
      mcpServers: {
        remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "[REMOVED]" } },
        local: { command: "local-server", env: { LOCAL_SECRET: "[REMOVED]" } },
      },
    });
    expect(files.get("logs/air.log")).toMatch(/air tasks failed: user_error: no session \[REDACTED:/);
  });

  it("with --json: the path, the files and that nothing was uploaded; by default in the air home's bundles folder", () => {
    const run = run_air(["doctor", "--bundle", "--json"], { cwd: project, env });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { path: string; files: string[]; uploaded: boolean };
    expect(path.dirname(result.path)).toBe(path.join(home, "bundles"));
    expect(result.uploaded).toBe(false);
    expect([...unpack(result.path).keys()].sort()).toEqual([...result.files].sort());
  });

  it("refuses --out without --bundle, and --bundle with --fix", async () => {
    const io = { out: () => {}, err: () => {}, cwd: project };
    await expect(run_doctor(io, { json: false, out: "x.tar.gz" })).rejects.toMatchObject({
      error: { kind: "user_error", message: "--out goes with --bundle" },
    });
    await expect(run_doctor(io, { json: false, bundle: true, fix: true })).rejects.toMatchObject({ error: { kind: "user_error" } });
  });
});

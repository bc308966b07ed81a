/**
 * With no provider configured `air run -p` fails fast with an AirError that tells the user exactly which
 * environment variable or file to set, and writes nothing. Bad arguments are user errors, also before any write.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { air, air_env, require_build, temp_dir } from "./helpers.js";

let work: ReturnType<typeof temp_dir>;
let project: string;
let air_home: string;

beforeEach(() => {
  require_build();
  work = temp_dir("air-e2e-noprov-");
  project = path.join(work.dir, "project");
  fs.mkdirSync(project);
  air_home = path.join(work.dir, "air-home");
  fs.mkdirSync(air_home);
});
afterEach(() => work.cleanup());

/** Every path under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe("air run with no provider configured", () => {
  it("exits 1 naming ANTHROPIC_API_KEY and the models.yaml path, and writes nothing but its log line", async () => {
    const started = performance.now();
    const run = await air(["run", "-p", "x"], { cwd: project, env: air_env(air_home) });
    const elapsed = performance.now() - started;
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^air: env_error: no model provider is configured/);
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
    expect(run.stderr).toContain(path.join(air_home, "models.yaml"));
    expect(run.stderr).toContain("→"); // the user action
    expect(run.stderr).not.toMatch(/\n\s+at /); // a rendered AirError, not a stack trace
    expect(tree(project)).toEqual([]);
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
    // Only the failure's record in the logs (issue 17): no config, no project index.
    expect(tree(air_home)).toEqual(["logs", "logs/air.developer.log", "logs/air.log"]);
    expect(fs.readFileSync(path.join(air_home, "logs", "air.log"), "utf8")).toContain("no model provider is configured");
    // Fails fast: no runtime, no worker, no model request. Generous for a loaded 2-core CI box.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("also fails when ANTHROPIC_BASE_URL is set but no key is", async () => {
    const run = await air(["run", "-p", "x"], { cwd: project, env: air_env(air_home, { ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }) });
    expect(run.result.code).toBe(1);
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
    expect(run.stderr).toContain("models.yaml");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });
});

describe("air run argument errors", () => {
  it("without -p is a user error saying how to pass a requirement", async () => {
    const run = await air(["run"], { cwd: project, env: air_env(air_home, { ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stderr).toContain("user_error");
    expect(run.stderr).toContain("-p");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });

  it("with an empty -p is the same user error", async () => {
    const run = await air(["run", "-p", "   "], { cwd: project, env: air_env(air_home, { ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(run.result.code).toBe(1);
    expect(run.stderr).toContain("user_error: air run needs a requirement with -p");
  });

  it("--max-turns 0 is a user error", async () => {
    const run = await air(["run", "-p", "x", "--max-turns", "0"], { cwd: project, env: air_env(air_home, { ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stderr).toContain("user_error");
    expect(run.stderr).toContain("--max-turns");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });

  it("an unknown option is a usage error (exit 2)", async () => {
    const run = await air(["run", "-p", "x", "--colour"], { cwd: project, env: air_env(air_home) });
    expect(run.result.code).toBe(2);
    expect(run.stderr).toContain("air run -p");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });

  it("an unknown --permission-mode is a user error, before any write", async () => {
    const run = await air(["run", "-p", "x", "--permission-mode", "yolo"], { cwd: project, env: air_env(air_home, { ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stderr).toContain('user_error: unknown permission mode "yolo"');
    expect(run.stderr).toContain("default, accept-edits, plan, bypass");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });

  it("a broken ~/.air/permissions.yaml stops the run before anything is written, naming the file", async () => {
    fs.writeFileSync(path.join(air_home, "permissions.yaml"), "allow: [{ comand: ls }]\n");
    const run = await air(["run", "-p", "x"], { cwd: project, env: air_env(air_home, { ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stderr).toContain(`user_error: ${path.join(air_home, "permissions.yaml")} is invalid`);
    expect(run.stderr).toContain("It should look like");
    expect(fs.existsSync(path.join(project, ".air"))).toBe(false);
  });
});

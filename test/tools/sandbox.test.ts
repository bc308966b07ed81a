/**
 * The bwrap sandbox of shell.run (DESIGN §6, issue 4 "Execution hardening"): a command writes only the
 * project (or the task's write area) and its build folders, never .git, .air or anything outside, reads
 * no credential folder, and has no network unless it was classified and allowed as network. Tested at
 * two levels: bwrap started directly with the plan's arguments (the sandbox alone, with nothing in front
 * of it), and shell.run end to end. The fallback without bwrap is tested whether or not bwrap works here.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TaskScope } from "../../src/contracts/task.js";
import { shell_env } from "../../src/tools/shell/env.js";
import { bwrap_args, plan_sandbox } from "../../src/tools/shell/sandbox-plan.js";
import { bwrap_probe, choose_sandbox, find_on_path, run_bwrap_probe, sandbox_setting } from "../../src/tools/shell/sandbox.js";
import { ALLOW_ONCE } from "../fixtures/permissions.js";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

const probe = bwrap_probe();
const skip_reason = probe.ok ? "" : ` (skipped: bwrap does not work here: ${probe.error})`;
const has = (program: string) => find_on_path(program, process.env.PATH) !== undefined;

let h: ToolHarness;
/** A folder the host may write, outside /tmp (which the sandbox replaces with its own). */
let host_folder: string;
let saved_setting: string | undefined;
beforeEach(() => {
  h = tool_harness({ answerer: ALLOW_ONCE });
  host_folder = fs.mkdtempSync(path.join(fs.existsSync("/var/tmp") ? "/var/tmp" : os.homedir(), "air-sandbox-test-"));
  saved_setting = process.env.AIR_SANDBOX;
  delete process.env.AIR_SANDBOX;
});
afterEach(() => {
  h.cleanup();
  fs.rmSync(host_folder, { recursive: true, force: true });
  if (saved_setting === undefined) delete process.env.AIR_SANDBOX;
  else process.env.AIR_SANDBOX = saved_setting;
});

type Run = { code: number | null; stdout: string; stderr: string };

/** bash inside bwrap with the arguments of the plan, as shell.run builds them, nothing else in front. */
function in_sandbox(command: string, options: { scope?: TaskScope; network?: boolean; cwd?: string } = {}): Promise<Run> {
  const root = fs.realpathSync(h.root);
  const plan = plan_sandbox({ project_root: root, cwd: options.cwd ?? root, scope: options.scope, network: options.network ?? false });
  const file = probe.ok ? probe.path : "bwrap";
  const child = spawn(file, [...bwrap_args(plan), "--", "bash", "--noprofile", "--norc", "-c", command], {
    cwd: plan.cwd,
    env: { ...shell_env(process.env), TMPDIR: "/tmp" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** A TCP server on the host's loopback that counts its connections. */
async function loopback_server(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    socket.on("error", () => {});
    socket.once("data", () => socket.end("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, connections: () => count, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const CONNECT = [
  "const socket = require('net').connect(Number(process.argv[2]), '127.0.0.1');",
  "socket.on('connect', () => { console.log('connected'); socket.destroy(); });",
  "socket.on('error', (error) => { console.log(error.code); process.exitCode = 3; });",
].join("\n");

describe.skipIf(!probe.ok)(`the sandbox alone (bwrap with the plan's arguments)${skip_reason}`, () => {
  it("cannot write outside the project, even to a path assembled at run time", async () => {
    const target = path.join(host_folder, "outside.txt");
    const [head, tail] = [target.slice(0, 6), target.slice(6)];
    const run = await in_sandbox(`p=${head}; echo x > "\${p}${tail}"`);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("writes to ../ land in the sandbox's private /tmp, never on the host", async () => {
    const run = await in_sandbox("echo x > ../outside.txt; cat ../outside.txt");
    expect(run.stdout).toBe("x\n");
    expect(fs.existsSync(path.join(h.outside, "outside.txt"))).toBe(false);
  });

  it("cannot write .git/config, .git/hooks or air's .air folder", async () => {
    write(h.root, ".git/config", "[core]\n\tbare = false\n");
    fs.mkdirSync(path.join(h.root, ".git/hooks"));
    const before = fs.readFileSync(path.join(h.root, ".git/config"), "utf8");
    const run = await in_sandbox("echo '[core] fsmonitor = /evil' >> .git/config; echo evil > .git/hooks/pre-commit; echo x > .air/planted; echo done");
    expect(run.stdout).toBe("done\n");
    expect(run.stderr.match(/Read-only file system/g)).toHaveLength(3);
    expect(fs.readFileSync(path.join(h.root, ".git/config"), "utf8")).toBe(before);
    expect(fs.existsSync(path.join(h.root, ".git/hooks/pre-commit"))).toBe(false);
    expect(fs.existsSync(path.join(h.root, ".air/planted"))).toBe(false);
  });

  it("cannot reach a server on the host's loopback; with the network allowed it can", async () => {
    const server = await loopback_server();
    try {
      write(h.root, "connect.js", CONNECT);
      const denied = await in_sandbox(`node connect.js ${server.port}`);
      expect(denied.code).toBe(3);
      expect(denied.stdout).toMatch(/ECONNREFUSED|ENETUNREACH/);
      expect(server.connections()).toBe(0);
      const allowed = await in_sandbox(`node connect.js ${server.port}`, { network: true });
      expect(allowed.stdout).toBe("connected\n");
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("writes the project and its build folder", async () => {
    const run = await in_sandbox("mkdir -p build src && echo b > build/out.o && echo s > src/new.c && echo done");
    expect(run).toMatchObject({ code: 0, stdout: "done\n" });
    expect(fs.readFileSync(path.join(h.root, "build/out.o"), "utf8")).toBe("b\n");
    expect(fs.readFileSync(path.join(h.root, "src/new.c"), "utf8")).toBe("s\n");
  });

  it("with a task write area: writes it and the existing build folder, nothing else of the project", async () => {
    fs.mkdirSync(path.join(h.root, "build"));
    write(h.root, "README.md", "keep\n");
    const run = await in_sandbox("echo a > lib/a.c; echo b > build/b.o; echo c > README.md; echo d > lib/private/d.c; echo done", {
      scope: { write_area: ["lib"], denied_paths: ["lib/private"] },
    });
    expect(run.stdout).toBe("done\n");
    expect(fs.readFileSync(path.join(h.root, "lib/a.c"), "utf8")).toBe("a\n");
    expect(fs.readFileSync(path.join(h.root, "build/b.o"), "utf8")).toBe("b\n");
    expect(fs.readFileSync(path.join(h.root, "README.md"), "utf8")).toBe("keep\n");
    expect(run.stderr).toMatch(/README\.md: Read-only file system/);
    // a denied path that does not exist yet cannot be bound read-only; one that exists is
    fs.mkdirSync(path.join(h.root, "lib/private"));
    const again = await in_sandbox("echo d > lib/private/d.c", { scope: { write_area: ["lib"], denied_paths: ["lib/private"] } });
    expect(again.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join(h.root, "lib/private/d.c"))).toBe(false);
  });

  it("with a write area naming a file that does not exist yet: creates it, never a folder in its place", async () => {
    const run = await in_sandbox("echo first > docs/CHANGES.md && echo done", { scope: { write_area: ["docs/CHANGES.md"] } });
    expect(run).toMatchObject({ code: 0, stdout: "done\n" });
    expect(fs.readFileSync(path.join(h.root, "docs/CHANGES.md"), "utf8")).toBe("first\n");
  });

  it("a write area that is a symlink out of the project is refused before anything runs", async () => {
    fs.symlinkSync(host_folder, path.join(h.root, "escape"));
    expect(() => plan_sandbox({ project_root: h.root, cwd: h.root, scope: { write_area: ["escape"] }, network: false })).toThrow(/not a folder of the project/);
    expect(() => plan_sandbox({ project_root: h.root, cwd: h.root, scope: { write_area: [".git"] }, network: false })).toThrow(/project_git_internal/);
  });

  it("cannot read the air home (models.yaml holds the API key) or the home's credential folders", async () => {
    const air_home = process.env.AIR_HOME!;
    write(air_home, "models.yaml", "providers:\n  anthropic:\n    api_key: sk-ant-planted\n");
    const run = await in_sandbox(`cat ${JSON.stringify(path.join(air_home, "models.yaml"))}; ls -A ~/.ssh 2>/dev/null | wc -l`);
    expect(run.stdout).not.toContain("sk-ant-planted");
    expect(run.stdout.trim().split("\n").at(-1)).toBe("0");
  });

  it.skipIf(!has("c++") || !has("make"))("builds C++ with make (the compiler, make and the build folder work inside)", async () => {
    write(h.root, "hello.cpp", '#include <iostream>\nint main() { std::cout << "hello" << std::endl; }\n');
    write(h.root, "Makefile", "build/hello: hello.cpp\n\tmkdir -p build\n\tc++ -o build/hello hello.cpp\n");
    const run = await in_sandbox("c++ --version >/dev/null && make -s && ./build/hello");
    expect(run.stderr).toBe("");
    expect(run).toMatchObject({ code: 0, stdout: "hello\n" });
  });
});

describe.skipIf(!probe.ok)(`shell.run in the sandbox${skip_reason}`, () => {
  it("reports sandbox bwrap, and a write the analyzer could not read (allowed by the user) still cannot leave the project", async () => {
    const target = path.join(host_folder, "outside.txt");
    const output = output_of<{ sandbox: string; exit_code: number; stderr_tail: string }>(
      await h.call("shell.run", { command: `p=${target.slice(0, 6)}; echo x > "\${p}${target.slice(6)}"` }),
    );
    expect(output.sandbox).toBe("bwrap");
    expect(output.exit_code).not.toBe(0);
    expect(output.stderr_tail).toMatch(/Read-only file system/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("git commit cannot write .git from inside: git writes go through the git tools", async () => {
    execFileSync("git", ["init", "-q"], { cwd: h.root, env: shell_env(process.env) });
    const output = output_of<{ exit_code: number; stderr_tail: string }>(
      await h.call("shell.run", { command: "git -c user.name=a -c user.email=a@a commit -q --allow-empty -m x" }),
    );
    expect(output.exit_code).not.toBe(0);
    expect(output.stderr_tail).toMatch(/Read-only file system/);
    expect(execFileSync("git", ["rev-list", "--all"], { cwd: h.root, env: shell_env(process.env) }).toString()).toBe("");
  });

  it("a repository's filter driver, which git runs on git status whatever the configuration, stays inside the sandbox", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: h.root, env: shell_env(process.env) });
    git("init", "-q");
    write(h.root, "file.txt", "one\n");
    git("add", "file.txt");
    const marker = path.join(host_folder, "filter-ran");
    const evil = write(h.root, "evil.sh", `#!/bin/sh\necho ran > ${marker}\ncat\n`);
    fs.chmodSync(evil, 0o755);
    write(h.root, ".gitattributes", "* filter=evil\n");
    git("config", "filter.evil.clean", evil);
    write(h.root, "file.txt", "two\n");
    const output = output_of<{ stderr_tail: string }>(await h.call("shell.run", { command: "git status --porcelain" }));
    expect(output.stderr_tail).toMatch(/Read-only file system/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a command not classified as network has no network", async () => {
    const server = await loopback_server();
    try {
      write(h.root, "connect.js", CONNECT);
      const output = output_of<{ exit_code: number; stdout_tail: string }>(await h.call("shell.run", { command: `node connect.js ${server.port}` }));
      expect(output.exit_code).toBe(3);
      expect(server.connections()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!has("curl"))("a command classified as network and allowed by the user has the network", async () => {
    const server = await loopback_server();
    try {
      const output = output_of<{ exit_code: number; stdout_tail: string }>(await h.call("shell.run", { command: `curl -s http://127.0.0.1:${server.port}/` }));
      expect(output).toMatchObject({ exit_code: 0, stdout_tail: "hello" });
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("AIR_SANDBOX=bwrap runs commands in bwrap", async () => {
    process.env.AIR_SANDBOX = "bwrap";
    expect(output_of<{ sandbox: string }>(await h.call("shell.run", { command: "true" })).sandbox).toBe("bwrap");
  });
});

describe("without the sandbox (AIR_SANDBOX=off)", () => {
  it("runs the command unsandboxed and says so: the permission engine is the only guard", async () => {
    process.env.AIR_SANDBOX = "off";
    const target = path.join(host_folder, "outside.txt");
    const output = output_of<{ sandbox: string; exit_code: number }>(
      await h.call("shell.run", { command: `p=${target.slice(0, 6)}; echo x > "\${p}${target.slice(6)}"` }),
    );
    expect(output).toMatchObject({ sandbox: "none", exit_code: 0 });
    expect(fs.readFileSync(target, "utf8")).toBe("x\n");
  });

  it("the environment is scrubbed and git neutralised there too", async () => {
    process.env.AIR_SANDBOX = "off";
    const output = output_of<{ stdout_tail: string }>(await h.call("shell.run", { command: "printenv GIT_CONFIG_KEY_0 GIT_PAGER" }));
    expect(output.stdout_tail).toBe("core.fsmonitor\ncat\n");
  });
});

describe("choosing the sandbox", () => {
  const working = () => ({ ok: true as const, path: "/usr/bin/bwrap" });
  const broken = () => ({ ok: false as const, path: "/usr/bin/bwrap", error: "bwrap: No permissions to create new namespace" });

  it("auto (the default) uses bwrap when the probe works, and none with the reason when it does not", () => {
    expect(choose_sandbox({}, working)).toMatchObject({ setting: "auto", mode: "bwrap", usable: true });
    expect(choose_sandbox({ AIR_SANDBOX: "auto" }, broken)).toMatchObject({ mode: "none", usable: true, reason: expect.stringContaining("No permissions") });
  });

  it("bwrap is required when asked for: a failing probe makes commands unrunnable, with the reason", async () => {
    expect(choose_sandbox({ AIR_SANDBOX: "bwrap" }, broken)).toMatchObject({
      mode: "none",
      usable: false,
      reason: expect.stringMatching(/^AIR_SANDBOX=bwrap but bwrap cannot be used/),
    });
  });

  it("off never probes", () => {
    expect(
      choose_sandbox({ AIR_SANDBOX: "off" }, () => {
        throw new Error("probed");
      }),
    ).toMatchObject({ mode: "none", usable: true, probe: undefined });
  });

  it("any other AIR_SANDBOX value is an env_error naming the choices", () => {
    expect(() => sandbox_setting({ AIR_SANDBOX: "yes" })).toThrow(/auto, bwrap, off/);
  });

  it("a PATH without bwrap fails the probe with that reason", () => {
    expect(run_bwrap_probe(host_folder)).toEqual({ ok: false, path: undefined, error: "bwrap is not on PATH" });
  });

  it("the probe runs bwrap for real and caches its verdict for the process", () => {
    expect(bwrap_probe()).toBe(probe);
    expect(probe.ok || probe.error.length > 0).toBe(true);
  });

  it.skipIf(probe.ok)("AIR_SANDBOX=bwrap where the probe fails is an env_error before any command starts (runs where bwrap does not work)", async () => {
    process.env.AIR_SANDBOX = "bwrap";
    const error = error_of(await h.call("shell.run", { command: "true" }));
    expect(error).toMatchObject({ kind: "env_error", message: expect.stringMatching(/^AIR_SANDBOX=bwrap but/) });
    expect(h.events("command.started")).toEqual([]);
  });
});

/**
 * `air permissions check` from outside: the adversarial suite of issue 4 through the CLI entry, in
 * `default` mode — zero dangerous commands or paths allowed, every benign one allowed without a prompt —
 * plus the command as a real process (text output and exit codes) and its bad input.
 */
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { COMMAND_CASES, PATH_CASES, temp_case_project } from "../fixtures/permission-cases.js";
import { AIR_BIN } from "../fixtures/cli.js";
import { set_air_home } from "../fixtures/session.js";

type Report = { decision: string; categories: string[]; commands: { argv: string[] }[]; reason: string; findings: unknown[] };

let project: { root: string; cleanup(): void };
let restore_air_home: () => void;
beforeAll(() => {
  project = temp_case_project();
  restore_air_home = set_air_home(path.join(project.root, "..", "air-home"));
});
afterAll(() => {
  restore_air_home();
  project.cleanup();
});

async function check(...args: string[]): Promise<{ code: number; report: Report; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["permissions", "check", "--json", "--cwd", project.root, ...args], {
    out: (text) => (out += text),
    err: (text) => (err += text),
    cwd: project.root,
  });
  return { code, report: (out === "" ? {} : JSON.parse(out)) as Report, err };
}

const ALLOWED = ["allow", "announce_then_run"];

describe("air permissions check: the adversarial suite", () => {
  it("has at least 150 cases, malicious and benign", () => {
    expect(COMMAND_CASES.length + PATH_CASES.length).toBeGreaterThanOrEqual(150);
    expect(COMMAND_CASES.filter((c) => c.expect === "benign").length).toBeGreaterThanOrEqual(40);
  });

  it.each(COMMAND_CASES.filter((c) => c.expect === "dangerous").map((c) => [c.why, c.command]))("never allows (%s): %s", async (_, command) => {
    const { code, report } = await check("--command", command);
    expect(ALLOWED, `${command} → ${report.decision}: ${report.reason}`).not.toContain(report.decision);
    expect(code).toBeGreaterThanOrEqual(3);
  });

  it.each(COMMAND_CASES.filter((c) => c.expect === "benign").map((c) => [c.why, c.command]))("allows without a prompt (%s): %s", async (_, command) => {
    const { code, report } = await check("--command", command);
    expect(ALLOWED, `${command} → ${report.decision}: ${report.reason}`).toContain(report.decision);
    expect(code).toBe(0);
  });

  it.each(PATH_CASES.map((c) => [c.expect, c.op, c.path, c.why]))("%s: %s %s (%s)", async (expected, op, target) => {
    const { report } = await check("--path", target!, "--op", op!);
    if (expected === "benign") expect(ALLOWED, report.reason).toContain(report.decision);
    else expect(ALLOWED, report.reason).not.toContain(report.decision);
  });
});

describe("air permissions check: what it reports", () => {
  it("every command the shell would run, with its categories, and the reason", async () => {
    const { report } = await check("--command", "ls && bash -c 'git push origin main'");
    expect(report.commands.map((run) => run.argv.join(" "))).toEqual(expect.arrayContaining(["ls", "git push origin main"]));
    expect(report.categories).toEqual(expect.arrayContaining(["read_only", "git_write", "network"]));
    expect(report.decision).toBe("ask_user");
    expect(report.reason).toMatch(/git/);
  });

  it("honours --permission-mode", async () => {
    expect((await check("--command", "git push origin main", "--permission-mode", "bypass")).report.decision).toBe("announce_then_run");
    expect((await check("--command", "make", "--permission-mode", "plan")).report.decision).toBe("deny");
    expect((await check("--path", "src/a.ts", "--op", "write")).report.decision).toBe("ask_user");
    expect((await check("--path", "src/a.ts", "--op", "write", "--permission-mode", "accept-edits")).report.decision).toBe("allow");
  });

  it.each([
    [["--command", "ls", "--path", "x", "--op", "read"], /either --command or --path/],
    [["--path", "x"], /--op must be read or write/],
    [["--path", "x", "--op", "append"], /not "append"/],
    [[], /nothing to check/],
    [["--command", "ls", "--permission-mode", "yolo"], /unknown permission mode/],
  ])("bad input %j is a user_error with what to do", async (args, message) => {
    const { code, err } = await check(...(args as string[]));
    expect(code).toBe(1);
    expect(err).toMatch(message);
    expect(err).toContain("user_error");
  });

  it("runs as a real process: text report, exit 0 / 3 / 4, nothing executed", () => {
    const env = { ...process.env, AIR_HOME: path.join(project.root, "..", "air-home") };
    const marker = path.join(project.root, "..", "executed");
    const allowed = spawnSync(process.execPath, [AIR_BIN, "permissions", "check", "--command", "ls -la"], { cwd: project.root, env, encoding: "utf8" });
    expect(allowed.status).toBe(0);
    expect(allowed.stdout).toMatch(/^decision: announce_then_run/);
    expect(allowed.stdout).toContain("ls -la   [read_only]");
    const asks = spawnSync(process.execPath, [AIR_BIN, "permissions", "check", "--command", `git push origin main; touch ${marker}`], {
      cwd: project.root,
      env,
      encoding: "utf8",
    });
    expect(asks.status).toBe(3);
    const refused = spawnSync(process.execPath, [AIR_BIN, "permissions", "check", "--command", `rm -rf / && touch ${marker}`], {
      cwd: project.root,
      env,
      encoding: "utf8",
    });
    expect(refused.status).toBe(4);
    expect(() => execFileSync("test", ["-e", marker])).toThrow();
  });
});

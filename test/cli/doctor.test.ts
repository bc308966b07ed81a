/**
 * `air doctor [--json]`: node, git, cmake/ctest, the sandbox mode and why, the air home and the model
 * provider — never the key. Exit 0 when air can run, 1 with an AirError's guidance when it cannot.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_doctor, type DoctorReport } from "../../src/cli/commands/doctor.js";
import type { Io } from "../../src/cli/output.js";
import { bwrap_probe } from "../../src/tools/shell/sandbox.js";

const VARIABLES = ["AIR_HOME", "AIR_SANDBOX", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AIR_MODEL"];
const KEY = "sk-ant-doctor-planted-0123456789";

let temp: string;
let saved: Record<string, string | undefined>;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-doctor-"));
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
  process.env.AIR_HOME = path.join(temp, "air-home");
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(temp, { recursive: true, force: true });
});

async function doctor(json: boolean): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (text) => (out += text), err: (text) => (err += text), cwd: temp };
  const code = await run_doctor(io, { json });
  return { code, out, err };
}

async function report(): Promise<{ code: number; report: DoctorReport; text: string }> {
  const run = await doctor(true);
  return { code: run.code, report: JSON.parse(run.out) as DoctorReport, text: run.out + run.err };
}

function check(of: DoctorReport, id: string) {
  const found = of.checks.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no check ${id}`);
  return found;
}

describe("air doctor", () => {
  it("with a key configured: exit 0, every check named, and the key printed nowhere", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    const { code, report: result, text } = await report();
    expect(code).toBe(0);
    expect(result.healthy).toBe(true);
    expect(result.checks.map((entry) => entry.id)).toEqual(["node", "git", "cmake", "ctest", "sandbox", "air_home", "provider"]);
    expect(check(result, "node")).toMatchObject({ status: "ok", detail: { version: process.versions.node } });
    expect(check(result, "git")).toMatchObject({ status: "ok", summary: expect.stringMatching(/^git version/) });
    expect(check(result, "provider")).toMatchObject({ status: "ok", detail: { api_key: "env:ANTHROPIC_API_KEY", provider: "anthropic" } });
    expect(check(result, "air_home")).toMatchObject({ status: "ok", detail: { path: path.join(temp, "air-home"), exists: false } });
    expect(text).not.toContain(KEY);

    const plain = await doctor(false);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^CHECK\s+STATUS\s+DETAIL$/m);
    expect(plain.out).toMatch(/^provider\s+ok\s+anthropic, model \S+, key from env:ANTHROPIC_API_KEY$/m);
    expect(plain.out).toContain("air can run here.");
    expect(plain.out + plain.err).not.toContain(KEY);
  });

  it("a key in models.yaml counts, and is not printed either", async () => {
    fs.mkdirSync(process.env.AIR_HOME!, { recursive: true });
    fs.writeFileSync(path.join(process.env.AIR_HOME!, "models.yaml"), `providers:\n  anthropic:\n    api_key: ${KEY}\n`);
    const { code, report: result, text } = await report();
    expect(code).toBe(0);
    expect(check(result, "provider").detail).toMatchObject({ api_key: "models.yaml" });
    expect(text).not.toContain(KEY);
  });

  it("without a provider: exit 1, an env_error and the guidance to configure one", async () => {
    const plain = await doctor(false);
    expect(plain.code).toBe(1);
    expect(plain.out).toMatch(/^provider\s+error\s+no API key configured$/m);
    expect(plain.err).toMatch(/^air: env_error: no model provider is configured/);
    expect(plain.err).toContain("Set ANTHROPIC_API_KEY");
    expect(plain.out).toContain("air cannot run here until the errors are fixed.");
    const { report: result } = await report();
    expect(result.healthy).toBe(false);
    expect(check(result, "provider").error).toMatchObject({ kind: "env_error" });
  });

  it("a broken models.yaml is reported as the error it is", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    fs.mkdirSync(process.env.AIR_HOME!, { recursive: true });
    fs.writeFileSync(path.join(process.env.AIR_HOME!, "models.yaml"), "providers: [not, a, map\n");
    const { code, report: result } = await report();
    expect(code).toBe(1);
    expect(check(result, "provider")).toMatchObject({ status: "error", summary: "the provider configuration is broken" });
  });

  it("AIR_SANDBOX=off: no sandbox, a warning that says why, still healthy", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    process.env.AIR_SANDBOX = "off";
    const { code, report: result } = await report();
    expect(code).toBe(0);
    expect(check(result, "sandbox")).toMatchObject({
      status: "warning",
      detail: { setting: "off", mode: "none", probe: null },
      summary: expect.stringContaining("AIR_SANDBOX=off"),
    });
  });

  it("the default reports the probe: bwrap when it works, else none with the probe's error", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    const probe = bwrap_probe();
    const sandbox = check((await report()).report, "sandbox");
    if (probe.ok) expect(sandbox).toMatchObject({ status: "ok", detail: { setting: "auto", mode: "bwrap", bwrap: probe.path, probe: "ok" } });
    else expect(sandbox).toMatchObject({ status: "warning", detail: { setting: "auto", mode: "none", probe: probe.error } });
  });

  it("AIR_SANDBOX=bwrap is an error exactly when bwrap does not work", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    process.env.AIR_SANDBOX = "bwrap";
    const { code, report: result } = await report();
    expect(code).toBe(bwrap_probe().ok ? 0 : 1);
    expect(check(result, "sandbox").status).toBe(bwrap_probe().ok ? "ok" : "error");
  });

  it("an unknown AIR_SANDBOX value is an error naming the choices", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    process.env.AIR_SANDBOX = "maybe";
    const plain = await doctor(false);
    expect(plain.code).toBe(1);
    expect(plain.err).toMatch(/AIR_SANDBOX="maybe" is not one of auto, bwrap, off/);
  });

  it("an air home that is a file is an error", async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    fs.writeFileSync(process.env.AIR_HOME!, "not a folder");
    const { code, report: result } = await report();
    expect(code).toBe(1);
    expect(check(result, "air_home")).toMatchObject({ status: "error", summary: expect.stringContaining("is not a folder") });
  });
});

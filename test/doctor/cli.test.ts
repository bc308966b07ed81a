/**
 * `air doctor` with the built-in capabilities on a PATH that has git and nothing of the C++ toolchain:
 * the report's `capabilities` section, and `--fix --dry-run`, which lists the install commands and runs none.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_doctor, type DoctorOptions, type DoctorReport } from "../../src/cli/commands/doctor.js";
import type { Io } from "../../src/cli/output.js";
import { first_fix_marker } from "../../src/doctor/consent.js";
import { current_platform } from "../../src/doctor/plan.js";
import { toolchain_cpp } from "../../src/cpp/capability.js";
import { init_project } from "../../src/project/project-store.js";
import { latest_session_id } from "../../src/project/session-catalog.js";
import { open_session } from "../../src/project/session-manager.js";
import type { SessionId } from "../../src/contracts/ids.js";
import { rows_of } from "../fixtures/session.js";

const VARIABLES = ["AIR_HOME", "PATH", "ANTHROPIC_API_KEY", "CI"];

let temp: string;
let saved: Record<string, string | undefined>;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-doctor-cli-"));
  // A C++ project: toolchain-cpp applies, so doctor checks its dependencies.
  fs.writeFileSync(path.join(temp, "CMakeLists.txt"), "project(doctor CXX)\n");
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  const bin = path.join(temp, "bin");
  fs.mkdirSync(bin);
  const git = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
  fs.symlinkSync(git, path.join(bin, "git"));
  process.env.PATH = bin;
  process.env.AIR_HOME = path.join(temp, "air-home");
  process.env.ANTHROPIC_API_KEY = "sk-ant-doctor-cli-0123456789";
  // Nobody at a terminal answers: every question is a no.
  process.env.CI = "1";
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(temp, { recursive: true, force: true });
});

async function doctor(options: DoctorOptions): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (text) => (out += text), err: (text) => (err += text), cwd: temp };
  const code = await run_doctor(io, options);
  return { code, out, err };
}

/** This platform's commands of toolchain-cpp's dependencies that are not found, each once, in manifest order. */
function expected_commands(report: Pick<DoctorReport, "capabilities">): string[] {
  const cpp = report.capabilities.find((capability) => capability.capability_id === "toolchain-cpp");
  const unmet = new Set(cpp?.dependencies.filter((dependency) => dependency.state !== "found").map((dependency) => dependency.id));
  const commands = toolchain_cpp.manifest.dependencies
    .filter((dependency) => unmet.has(dependency.id))
    .flatMap((dependency) => dependency.install?.commands ?? [])
    .filter((command) => command.platform === "any" || current_platform() === "debian")
    .map((command) => command.command);
  return [...new Set(commands)];
}

describe("air doctor, capabilities", () => {
  it("reports each capability's dependencies with how they were detected; a missing required one is the capability's error, not air's", async () => {
    const { code, out } = await doctor({ json: true });
    const report = JSON.parse(out) as DoctorReport;
    expect(code).toBe(0);
    expect(report.healthy).toBe(true);
    const cpp = report.capabilities.find((capability) => capability.capability_id === "toolchain-cpp");
    expect(cpp?.status).toBe("error");
    expect(cpp?.dependencies.find((dependency) => dependency.id === "cmake")).toMatchObject({
      state: "missing",
      severity: "required",
      detected_by: "none of cmake on PATH",
    });
    expect(cpp?.dependencies.map((dependency) => dependency.id)).toEqual(toolchain_cpp.manifest.dependencies.map((dependency) => dependency.id));
  });

  it("prints the dependency table and what to run", async () => {
    const { out } = await doctor({ json: false });
    expect(out).toMatch(/CAPABILITY\s+DEPENDENCY\s+SEVERITY\s+STATE\s+DETAIL/);
    expect(out).toMatch(/toolchain-cpp\s+cmake\s+required\s+missing\s+none of cmake on PATH/);
    expect(out).toContain("toolchain-cpp: cannot work until");
    expect(out).toContain("run `air doctor --fix`");
  });
});

describe("air doctor --fix --dry-run", () => {
  it("lists exactly the commands it would run and runs nothing", async () => {
    const { code, out } = await doctor({ json: true, fix: true, dry_run: true });
    expect(code).toBe(0);
    const printed = JSON.parse(out) as Pick<DoctorReport, "capabilities"> & { dry_run: boolean; plan: { steps: { command: string; consent: string }[] } };
    expect(printed.dry_run).toBe(true);
    expect(printed.plan.steps.map((step) => step.command)).toEqual(expected_commands(printed));
    if (current_platform() === "debian") expect(printed.plan.steps.map((step) => step.command)).toContain("apt-get install -y cmake");
    for (const step of printed.plan.steps) expect(step.consent).toBe("ask");
    expect(fs.existsSync(first_fix_marker(path.join(temp, "air-home")))).toBe(false);
    expect(fs.readdirSync(temp).sort()).toEqual(["CMakeLists.txt", "bin"]);
  });

  it("says so in text", async () => {
    const { out } = await doctor({ json: false, fix: true, dry_run: true });
    const report = JSON.parse((await doctor({ json: true })).out) as DoctorReport;
    if (current_platform() === "debian") {
      expect(out).toContain(`Would run ${expected_commands(report).length} command(s); nothing is run now:`);
      expect(out).toContain(
        "  $ apt-get install -y cmake\n      for toolchain-cpp/cmake, toolchain-cpp/ctest; ask (the first fix on this machine always asks)",
      );
    } else expect(out).toContain("Doctor cannot install:");
  });

  it("--dry-run without --fix is a user error", async () => {
    await expect(doctor({ json: false, dry_run: true })).rejects.toMatchObject({ error: { kind: "user_error", message: "--dry-run and --yes go with --fix" } });
  });
});

describe("air doctor --fix without a terminal and without --yes", () => {
  it("asks nobody, installs nothing, records the run in a session and exits 1 while cmake is missing", async () => {
    const { project } = init_project(temp, { name: "doctor-fix" });
    const { code, out } = await doctor({ json: true, fix: true });
    expect(code).toBe(1);
    const printed = JSON.parse(out) as Pick<DoctorReport, "capabilities"> & { results: { outcome: string; detail: string }[] };
    expect(printed.results.length).toBeGreaterThan(0);
    for (const result of printed.results) expect(result).toMatchObject({ outcome: "denied", detail: "not asked: no terminal to ask and no --yes" });
    expect(printed.capabilities.find((capability) => capability.capability_id === "toolchain-cpp")?.status).toBe("error");
    expect(fs.existsSync(first_fix_marker(path.join(temp, "air-home")))).toBe(false);
    const session_id = latest_session_id(project.layout);
    if (session_id === undefined) throw new Error("air doctor --fix opened no session");
    const session = open_session(project, { session_id: session_id as SessionId });
    const types = rows_of(session.connection, "events").map((row) => String(row.type));
    session.close();
    expect(types).toContain("doctor.run.completed");
    expect(types).toContain("doctor.check.completed");
    expect(types).not.toContain("tool.started");
    expect(types).not.toContain("doctor.fix.applied");
  });
});

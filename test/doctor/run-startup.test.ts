/**
 * `air run` makes the startup dependency check before anything else, and says one line on stderr only when a
 * required dependency of a capability is not ready. An empty requirement stops the run right after it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_run } from "../../src/cli/commands/run.js";
import type { Io } from "../../src/cli/output.js";

const VARIABLES = ["AIR_HOME", "PATH"];
/** toolchain-cpp's required dependencies, by the first name each is looked for under. */
const REQUIRED = ["cmake", "ctest", "c++"];

function which(program: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).stdout.trim();
  return found === "" ? undefined : found;
}

/** Where this machine has them (looked up before any test narrows PATH). */
const INSTALLED = REQUIRED.map((program) => ({ program, at: which(program) }));

let temp: string;
let bin: string;
let saved: Record<string, string | undefined>;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-doctor-run-"));
  // A C++ project: toolchain-cpp applies, so its dependencies are checked at startup.
  fs.writeFileSync(path.join(temp, "CMakeLists.txt"), "project(doctor CXX)\n");
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  bin = path.join(temp, "bin");
  fs.mkdirSync(bin);
  process.env.PATH = bin;
  process.env.AIR_HOME = path.join(temp, "air-home");
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(temp, { recursive: true, force: true });
});

async function stderr_of_empty_run(): Promise<string> {
  let err = "";
  const io: Io = { out: () => undefined, err: (text) => (err += text), cwd: temp };
  await expect(run_run(io, { print: " " })).rejects.toMatchObject({ error: { kind: "user_error" } });
  return err;
}

describe("air run's startup dependency check", () => {
  it("prints one line pointing at air doctor --fix when a required tool is missing", async () => {
    const err = await stderr_of_empty_run();
    expect(err.split("\n").filter((line) => line !== "")).toEqual([
      "air: required tools are not ready (toolchain-cpp: cmake missing, toolchain-cpp: ctest missing, toolchain-cpp: cxx-compiler missing); run `air doctor --fix` to install them.",
    ]);
  });

  it("prints nothing in a project toolchain-cpp does not apply to, however much of the toolchain is missing", async () => {
    fs.rmSync(path.join(temp, "CMakeLists.txt"));
    expect(await stderr_of_empty_run()).toBe("");
  });

  it.skipIf(INSTALLED.some(({ at }) => at === undefined))("prints nothing when every required tool is there", async () => {
    for (const { program, at } of INSTALLED) fs.symlinkSync(at ?? program, path.join(bin, program));
    expect(await stderr_of_empty_run()).toBe("");
  });
});

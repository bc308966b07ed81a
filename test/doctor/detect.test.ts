import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { check_dependencies, type DetectContext } from "../../src/doctor/detect.js";
import { meets_minimum, probe_version } from "../../src/doctor/version.js";
import { airtest_manifest, tool_box, write_tool, type ToolBox } from "./helpers.js";

let box: ToolBox;
let context: DetectContext;
beforeEach(() => {
  box = tool_box();
  context = { env: box.env, project_root: box.root, versions: probe_version };
});
afterEach(() => box.cleanup());

function only(manifest = airtest_manifest()) {
  const [capability] = check_dependencies([manifest], context);
  const dependency = capability?.dependencies[0];
  if (capability === undefined || dependency === undefined) throw new Error("no dependency checked");
  return { capability, dependency };
}

describe("dependency detection", () => {
  it("an executable missing from PATH is missing, and a required one makes its capability an error", () => {
    const { capability, dependency } = only();
    expect(dependency).toMatchObject({ id: "airtest-tool", state: "missing", severity: "required", detected_by: "none of airtest-tool on PATH" });
    expect(capability.status).toBe("error");
  });

  it("an executable on PATH is found with its path and the first line of its version output", () => {
    write_tool(path.join(box.bin, "airtest-tool"), "2.4.1");
    const { capability, dependency } = only();
    expect(dependency).toMatchObject({ state: "found", path: path.join(box.bin, "airtest-tool"), version: "airtest-tool 2.4.1" });
    expect(dependency.detected_by).toContain("`airtest-tool --version`");
    expect(capability.status).toBe("ok");
  });

  it("an executable older than min_version is too_old", () => {
    write_tool(path.join(box.bin, "airtest-tool"), "1.9.7");
    expect(only().dependency).toMatchObject({ state: "too_old", version: "airtest-tool 1.9.7", min_version: "2.0" });
  });

  it("the first of several names on PATH wins", () => {
    write_tool(path.join(box.bin, "airtest-tool-3"), "3.0.0");
    const manifest = airtest_manifest({ detect: { by: "executable", names: ["airtest-tool", "airtest-tool-3"], version_args: ["--version"] } });
    expect(only(manifest).dependency).toMatchObject({ state: "found", path: path.join(box.bin, "airtest-tool-3"), version: "airtest-tool 3.0.0" });
  });

  it("a missing optional dependency is a warning, not an error", () => {
    expect(only(airtest_manifest({ severity: "optional" })).capability.status).toBe("warning");
  });

  it("an environment variable is found when set and not empty", () => {
    const manifest = airtest_manifest({ kind: "env_var", detect: { by: "env_var", name: "AIRTEST_TOKEN_PATH" } });
    expect(only(manifest).dependency.state).toBe("missing");
    context = { ...context, env: { ...context.env, AIRTEST_TOKEN_PATH: "/somewhere" } };
    expect(only(manifest).dependency).toMatchObject({ state: "found", detected_by: "environment variable AIRTEST_TOKEN_PATH" });
  });

  it("a file is looked for relative to the project, or absolute", () => {
    const manifest = airtest_manifest({ kind: "system_package", detect: { by: "file", paths: ["include/airtest.h", path.join(box.root, "abs.h")] } });
    expect(only(manifest).dependency.state).toBe("missing");
    fs.writeFileSync(path.join(box.root, "abs.h"), "");
    expect(only(manifest).dependency).toMatchObject({ state: "found", path: path.join(box.root, "abs.h") });
    fs.mkdirSync(path.join(box.root, "include"));
    fs.writeFileSync(path.join(box.root, "include", "airtest.h"), "");
    expect(only(manifest).dependency).toMatchObject({ state: "found", path: path.join(box.root, "include", "airtest.h") });
  });
});

describe("min_version", () => {
  it("compares the first dotted number of the version line", () => {
    expect(meets_minimum("cmake version 3.25.1", "3.21")).toBe(true);
    expect(meets_minimum("cmake version 3.20.9", "3.21")).toBe(false);
    expect(meets_minimum("Cppcheck 2.10", "2.9")).toBe(true);
    expect(meets_minimum("GNU Make 4.3", "4.3.0")).toBe(true);
    expect(meets_minimum("no number here", "1")).toBe(false);
    expect(meets_minimum(null, "1")).toBe(false);
  });
});

import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { version_cache_file } from "../../src/doctor/cache.js";
import type { VersionSource } from "../../src/doctor/detect.js";
import { dependency_issues, startup_dependency_check } from "../../src/doctor/startup.js";
import { probe_version } from "../../src/doctor/version.js";
import { airtest_manifest, tool_box, write_tool, type ToolBox } from "./helpers.js";

let box: ToolBox;
let probed: string[];
/** The real probe, counted. */
const counting: VersionSource = (program, args) => {
  probed.push(program);
  return probe_version(program, args);
};
beforeEach(() => {
  box = tool_box();
  probed = [];
});
afterEach(() => box.cleanup());

function check() {
  return startup_dependency_check({
    manifests: [airtest_manifest()],
    project_root: box.root,
    env: box.env,
    air_home: path.join(box.root, "home"),
    probe: counting,
  });
}

describe("the startup dependency check", () => {
  it("prints one line naming what is missing, only when a required dependency is not ready", () => {
    expect(check().line).toBe("air: required tools are not ready (airtest: airtest-tool missing); run `air doctor --fix` to install them.");
    write_tool(path.join(box.bin, "airtest-tool"), "2.4.1");
    expect(check().line).toBeUndefined();
  });

  it("spawns no version probe the second time when nothing changed", () => {
    const tool = path.join(box.bin, "airtest-tool");
    write_tool(tool, "2.4.1");
    const cold = check();
    expect(cold.probes).toBe(1);
    const warm = check();
    expect(warm.probes).toBe(0);
    expect(probed).toEqual([tool]);
    expect(warm.capabilities[0]?.dependencies[0]).toMatchObject({ state: "found", version: "airtest-tool 2.4.1" });
  });

  it("probes again once the executable is touched, and sees the new version", () => {
    const tool = path.join(box.bin, "airtest-tool");
    write_tool(tool, "2.4.1");
    check();
    write_tool(tool, "2.5.0");
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(tool, later, later);
    const touched = check();
    expect(touched.probes).toBe(1);
    expect(touched.capabilities[0]?.dependencies[0]).toMatchObject({ state: "found", version: "airtest-tool 2.5.0" });
  });

  it("probes again when the executable is only touched", () => {
    const tool = path.join(box.bin, "airtest-tool");
    write_tool(tool, "2.4.1");
    check();
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(tool, later, later);
    expect(check().probes).toBe(1);
    expect(check().probes).toBe(0);
  });

  it("ignores a corrupt cache and rewrites it, never failing", () => {
    write_tool(path.join(box.bin, "airtest-tool"), "2.4.1");
    const file = version_cache_file(path.join(box.root, "home"));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"version": 1, "entries": {"x": {"mtime_ms": "not a number"}}}');
    expect(check()).toMatchObject({ probes: 1, line: undefined });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({
      version: 1,
      entries: { [JSON.stringify([path.join(box.bin, "airtest-tool"), "--version"])]: { line: "airtest-tool 2.4.1" } },
    });
    fs.writeFileSync(file, "\u0000 not json");
    expect(check().probes).toBe(1);
    expect(check().probes).toBe(0);
  });

  it("counts a manifest's unready dependencies for the lifecycle's doctor_checked step", () => {
    const options = { project_root: box.root, env: box.env, air_home: path.join(box.root, "home") };
    expect(dependency_issues(airtest_manifest(), options)).toEqual({ issues: 1 });
    write_tool(path.join(box.bin, "airtest-tool"), "2.4.1");
    expect(dependency_issues(airtest_manifest(), options)).toEqual({ issues: 0 });
  });
});

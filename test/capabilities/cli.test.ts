import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_air, temp_workspace } from "../fixtures/cli.js";
import { manifest, write_project_manifest, write_user_manifest } from "./helpers.js";

let workspace: ReturnType<typeof temp_workspace>;
let home: string;
beforeEach(() => {
  workspace = temp_workspace("air-cli-caps-");
  home = String(workspace.env.AIR_HOME);
  expect(run_air(["init", "--yes"], { cwd: workspace.root, env: workspace.env }).status).toBe(0);
});
afterEach(() => workspace.cleanup());

const air = (...args: string[]) => run_air(args, { cwd: workspace.root, env: workspace.env });

type Listed = {
  capabilities: { id: string; trust: string; status: string; source: unknown; tools: string[] }[];
  problems: { id: string; error: { message: string } }[];
};

describe("air capability list", () => {
  it("lists built-in, user and project capabilities with trust, source, status and tools, and a problems section", () => {
    const user_file = write_user_manifest(home, "user-tools", manifest("user-tools", { trust: "user_installed" }));
    write_project_manifest(workspace.root, "echo-tools", manifest("echo-tools"));
    const broken = write_project_manifest(workspace.root, "broken", "[");
    const result = air("capability", "list", "--json");
    expect(result.status).toBe(0);
    const listed = JSON.parse(result.stdout) as Listed;
    expect(listed.capabilities.map((entry) => [entry.id, entry.trust, entry.status])).toEqual([
      ["toolchain-cpp", "built_in", "does_not_apply"],
      ["user-tools", "user_installed", "enabled"],
      ["echo-tools", "project_local", "enabled"],
      ["broken", "project_local", "failed"],
    ]);
    expect(listed.capabilities[1]).toMatchObject({ source: { place: "user", file: user_file }, tools: ["user_tools.echo"] });
    expect(listed.problems).toMatchObject([{ id: "broken" }]);
    expect(listed.problems[0]?.error.message).toContain(broken);

    const text = air("capability", "list");
    expect(text.stdout).toMatch(/toolchain-cpp\s+1\.0\.0\s+built_in\s+does-not-apply\s+built-in\s+cpp\.detect/);
    expect(text.stdout).toContain("Problems:");
  });

  it("shows a capability disabled with air capability disable, and enabled again", () => {
    write_project_manifest(workspace.root, "echo-tools", manifest("echo-tools"));
    expect(air("capability", "disable", "echo-tools").status).toBe(0);
    expect(fs.readFileSync(path.join(workspace.root, ".air", "shared", "capabilities.yaml"), "utf8")).toContain("echo-tools");
    const status = () => (JSON.parse(air("capability", "list", "--json").stdout) as Listed).capabilities.find((entry) => entry.id === "echo-tools")?.status;
    expect(status()).toBe("disabled");
    expect(air("capability", "enable", "echo-tools").status).toBe(0);
    expect(status()).toBe("enabled");
  });

  it("refuses to enable a capability it does not know", () => {
    const result = air("capability", "enable", "nothing-here");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("there is no capability nothing-here");
  });
});

describe("air capability validate", () => {
  it("accepts a good manifest given as a file or as its folder", () => {
    const file = write_project_manifest(workspace.root, "echo-tools", manifest("echo-tools"));
    expect(air("capability", "validate", file)).toMatchObject({ status: 0, stdout: expect.stringContaining("ok echo-tools 1.0.0") });
    expect(air("capability", "validate", path.dirname(file)).status).toBe(0);
  });

  it("exits 1 naming the file and the field of a broken manifest", () => {
    const tools = [{ ...(manifest("bad").tools as object[])[0], category: "painting" }];
    const file = write_project_manifest(workspace.root, "bad", manifest("bad", { tools }));
    const result = air("capability", "validate", file);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("tools[0].category");
  });

  it("reports a clash with another capability for a discovered manifest", () => {
    const file = write_project_manifest(workspace.root, "toolchain-cpp", manifest("toolchain-cpp", { tools: [] }));
    const result = air("capability", "validate", file);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("id: toolchain-cpp is already a built-in capability");
  });

  it("with --all checks every discovered capability and fails on any broken one", () => {
    write_project_manifest(workspace.root, "echo-tools", manifest("echo-tools"));
    expect(air("capability", "validate", "--all").status).toBe(0);
    const broken = write_project_manifest(workspace.root, "broken", manifest("broken", { trust: "built_in" }));
    const result = air("capability", "validate", "--all");
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("ok echo-tools");
    expect(result.stderr).toContain(`${broken}: trust:`);
  });
});

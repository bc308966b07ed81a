import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applies_to } from "../../src/capabilities/applies.js";
import { discover_capabilities } from "../../src/capabilities/discover.js";
import { validate_manifest } from "../../src/capabilities/validate.js";
import { air_home } from "../../src/project/layout.js";
import { temp_project, type TempProject } from "../fixtures/session.js";
import { manifest, write_project_manifest, write_user_manifest } from "./helpers.js";

let temp: TempProject;
let root: string;
let home: string;
beforeEach(() => {
  temp = temp_project();
  root = temp.project.layout.root;
  home = air_home();
});
afterEach(() => temp.cleanup());

const discover = () => discover_capabilities({ project_root: root, air_home: home });

describe("capability discovery", () => {
  it("finds the built-ins, then the user's, then the project's, each with the trust its place allows", () => {
    const user_file = write_user_manifest(home, "user-tools", manifest("user-tools", { trust: "user_installed" }));
    const project_file = write_project_manifest(root, "project-tools", manifest("project-tools"));
    const { capabilities, problems } = discover();
    expect(problems).toEqual([]);
    expect(capabilities.map((capability) => [capability.manifest.id, capability.trust, capability.source])).toEqual([
      ["toolchain-cpp", "built_in", "built_in"],
      ["user-tools", "user_installed", { place: "user", file: user_file }],
      ["project-tools", "project_local", { place: "project", file: project_file }],
    ]);
    expect(capabilities[0]?.builtin).toBeDefined();
  });

  it("never lets a project capability replace a built-in or a user one: the same id is a problem", () => {
    write_user_manifest(home, "shared-id", manifest("shared-id", { trust: "user_installed" }));
    const clash_user = write_project_manifest(root, "shared-id", manifest("shared-id", { tools: [] }));
    const clash_builtin = write_project_manifest(root, "toolchain-cpp", manifest("toolchain-cpp", { tools: [] }));
    const { capabilities, problems } = discover();
    expect(capabilities.map((capability) => capability.manifest.id)).toEqual(["toolchain-cpp", "shared-id"]);
    expect(capabilities[1]?.trust).toBe("user_installed");
    expect(problems.map((problem) => problem.file).sort()).toEqual([clash_user, clash_builtin].sort());
    for (const problem of problems) expect(problem.error.message).toMatch(/: id: .* is already (a built-in capability|the capability in)/);
  });

  it("refuses a tool name another capability has, or one in air's own namespaces", () => {
    write_user_manifest(home, "first", manifest("first", { trust: "user_installed" }));
    const [first_tool] = manifest("first").tools as Record<string, unknown>[];
    const copy = write_project_manifest(root, "copy", manifest("copy", { tools: [first_tool] }));
    const shadow = write_project_manifest(root, "shadow", manifest("shadow", { tools: [{ ...first_tool, name: "fs.read" }] }));
    const namespace = write_project_manifest(root, "namespace", manifest("namespace", { tools: [{ ...first_tool, name: "shell.exec" }] }));
    const { problems } = discover();
    const message_of = (file: string) => problems.find((problem) => problem.file === file)?.error.message;
    expect(message_of(copy)).toContain("tools[0].name: first.echo is already a tool of first");
    expect(message_of(shadow)).toContain("tools[0].name: fs.read is in air's own fs.* tools");
    expect(message_of(namespace)).toContain("shell.exec is in air's own shell.* tools");
  });

  it("reports a broken manifest as a problem with its folder's id, and keeps the others", () => {
    const broken = write_project_manifest(root, "broken", "{");
    write_project_manifest(root, "fine", manifest("fine"));
    const { capabilities, problems } = discover();
    expect(capabilities.map((capability) => capability.manifest.id)).toContain("fine");
    expect(problems).toMatchObject([{ file: broken, place: "project", id: "broken" }]);
  });

  it("wants the folder named after the manifest's id", () => {
    const file = write_project_manifest(root, "folder-name", manifest("other-name"));
    expect(discover().problems).toMatchObject([{ file, id: "folder-name" }]);
    expect(discover().problems[0]?.error.message).toContain(`${file}: id: is other-name`);
  });
});

describe("whether a capability applies to a project", () => {
  const with_triggers = (triggers: unknown[]) => validate_manifest(manifest("probe", { triggers }), { file: "probe", place: "project" });

  it("applies when a named file exists, and not for a path outside the project", () => {
    expect(applies_to(with_triggers([{ kind: "file", path: "CMakeLists.txt" }]), root)).toBe(false);
    fs.writeFileSync(path.join(root, "CMakeLists.txt"), "project(x)\n");
    expect(applies_to(with_triggers([{ kind: "file", path: "CMakeLists.txt" }]), root)).toBe(true);
    expect(applies_to(with_triggers([{ kind: "file", path: "../air-home" }]), root)).toBe(false);
  });

  it("finds an extension within max_depth, and not beyond it", () => {
    fs.mkdirSync(path.join(root, "a", "b"), { recursive: true });
    fs.writeFileSync(path.join(root, "a", "b", "main.cpp"), "int main() {}\n");
    expect(applies_to(with_triggers([{ kind: "extension", extensions: [".cpp"], max_depth: 2 }]), root)).toBe(true);
    expect(applies_to(with_triggers([{ kind: "extension", extensions: [".cpp"], max_depth: 1 }]), root)).toBe(false);
  });

  it("does not look into .git, .air, node_modules or build folders", () => {
    for (const folder of [".git", ".air/local", "node_modules/pkg", "build", "cmake-build-debug"]) {
      fs.mkdirSync(path.join(root, folder), { recursive: true });
      fs.writeFileSync(path.join(root, folder, "x.cpp"), "");
    }
    expect(applies_to(with_triggers([{ kind: "extension", extensions: [".cpp"], max_depth: 3 }]), root)).toBe(false);
  });

  it("always applies with an always trigger", () => {
    expect(applies_to(with_triggers([{ kind: "always" }]), root)).toBe(true);
  });
});

/**
 * The one way into `.air/shared` for a write: the runtime's own call for a store that owns the folder (a
 * promotion's rules and skills). An agent's call, another folder, or a path that only looks inside are refused.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import { PermissionEngine, type PermissionRequest } from "../../src/permissions/engine.js";
import { ACCEPT_EDITS } from "../fixtures/permissions.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
});
afterEach(() => temp.cleanup());

const engine = new PermissionEngine({ policy: ACCEPT_EDITS });

function write(target: string, extra: Partial<PermissionRequest> = {}): PermissionRequest {
  return {
    tool_name: "fs.write",
    category: "filesystem",
    declared: { reads: false, writes: true, executes: false, network: false },
    reads: [],
    writes: [target],
    project_root: temp.project.layout.root,
    ...extra,
  };
}

const OWNED = [".air/shared/rules", ".air/shared/skills"];

describe("writes a store owns in .air/shared", () => {
  it("allows the runtime's own write into a folder its store owns", async () => {
    expect((await engine.classify(write(".air/shared/rules/run-ctest.md", { owned_paths: OWNED }))).action).toBe("allow");
    expect((await engine.classify(write(".air/shared/skills/build/SKILL.md", { owned_paths: OWNED }))).action).toBe("allow");
  });

  it("refuses the same write without the ownership, from an agent, or into another .air folder", async () => {
    expect((await engine.classify(write(".air/shared/rules/run-ctest.md"))).action).toBe("refuse");
    expect((await engine.classify(write(".air/shared/rules/run-ctest.md", { owned_paths: OWNED, agent_id: new_id("agent") }))).action).toBe("refuse");
    expect((await engine.classify(write(".air/shared/permissions.yaml", { owned_paths: OWNED }))).action).toBe("refuse");
    expect((await engine.classify(write(".air/shared/rules", { owned_paths: OWNED }))).action).toBe("refuse");
    expect((await engine.classify(write(".air/local/learned-memory.db", { owned_paths: [".air/local"] }))).action).toBe("refuse");
    expect((await engine.classify(write(".air/shared/rules/../permissions.yaml", { owned_paths: OWNED }))).action).toBe("refuse");
  });

  it("refuses an owned folder that is a symlink out of .air/shared", async () => {
    fs.rmSync(temp.project.layout.rules, { recursive: true, force: true });
    fs.symlinkSync(path.join(temp.project.layout.local), path.join(temp.project.layout.shared, "rules"));
    expect((await engine.classify(write(".air/shared/rules/x.md", { owned_paths: OWNED }))).action).toBe("refuse");
  });
});

/**
 * `plan.write`: the only way into `.air/shared/plan/`, through the ToolRegistry and the PermissionEngine. The
 * tools a model is offered are still refused there, and the plan tool writes nowhere else.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plan_write_tool } from "../../src/architecture/plan-write-tool.js";
import { tool_harness, type ToolHarness } from "../tools/helpers.js";

let harness: ToolHarness;
beforeEach(() => {
  harness = tool_harness();
  harness.registry.register(plan_write_tool);
});
afterEach(() => harness.cleanup());

const plan_file = (name: string) => path.join(harness.root, ".air/shared/plan", name);

describe("plan.write", () => {
  it("writes a plan document, recorded as a tool run with its diff, and says when nothing changed", async () => {
    const outcome = await harness.call("plan.write", { path: "architecture.md", content: "# Plan\n" });
    expect(outcome).toMatchObject({ ok: true, output: { path: ".air/shared/plan/architecture.md", created: true, changed: true } });
    expect(fs.readFileSync(plan_file("architecture.md"), "utf8")).toBe("# Plan\n");
    expect(harness.artifacts().map((row) => row.type)).toContain("diff");
    const again = await harness.call("plan.write", { path: ".air/shared/plan/architecture.md", content: "# Plan\n" });
    expect(again).toMatchObject({ ok: true, output: { changed: false } });
  });

  it("refuses a path that leaves the plan folder", async () => {
    for (const name of ["../rules/x.md", "a/../../permissions.yaml", "/etc/passwd", "./x.md"]) {
      const outcome = await harness.call("plan.write", { path: name, content: "x" });
      expect(outcome.ok).toBe(false);
    }
    expect(fs.existsSync(path.join(harness.root, ".air/shared/rules/x.md"))).toBe(false);
  });

  it("leaves the plan folder closed to the tools a model is offered", async () => {
    const outcome = await harness.call("fs.write", { path: ".air/shared/plan/architecture.md", content: "# mine\n" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "policy_error", message: expect.stringContaining("inside air's own .air folder") } });
    expect(fs.existsSync(plan_file("architecture.md"))).toBe(false);
  });
});

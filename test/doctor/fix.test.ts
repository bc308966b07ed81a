import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { check_dependencies, type DetectContext } from "../../src/doctor/detect.js";
import { run_fixes } from "../../src/doctor/fix.js";
import { plan_fixes } from "../../src/doctor/plan.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import type { FixAsker } from "../../src/doctor/consent.js";
import { probe_version } from "../../src/doctor/version.js";
import { open_temp_session, rows_of, type TempSession } from "../fixtures/session.js";
import { airtest_manifest, tool_box, type DependencyInput, type ToolBox } from "./helpers.js";

let box: ToolBox;
let temp: TempSession;
let context: DetectContext;
beforeEach(() => {
  box = tool_box();
  temp = open_temp_session();
  context = { env: box.env, project_root: temp.project.layout.root, versions: probe_version };
});
afterEach(() => {
  temp.cleanup();
  box.cleanup();
});

/** The test's install: copy the script into the bin folder on PATH — no network, no root. */
function installable(extra: DependencyInput = {}) {
  const command = `install -m 755 ${box.source} ${path.join(box.bin, "airtest-tool")}`;
  return airtest_manifest({ install: { low_permission: "prompt", high_permission: "announce_then_run", commands: [{ command, platform: "any" }] }, ...extra });
}

function fix(manifest: ReturnType<typeof installable>, asker: FixAsker, first_fix = true) {
  const plan = plan_fixes([manifest], check_dependencies([manifest], context), { platform: "other", posture: "low", first_fix });
  return run_fixes({ session: temp.session, manifests: [manifest], plan, context, asker });
}

function events(...types: string[]) {
  return rows_of(temp.session.connection, "events")
    .filter((row) => types.includes(String(row.type)))
    .map((row) => ({ type: String(row.type), payload: JSON.parse(String(row.payload_json)) as Record<string, unknown> }));
}

describe("planning fixes", () => {
  it("plans each missing dependency's commands for this platform once, and names what it cannot install", () => {
    const manifest = airtest_manifest({
      install: {
        low_permission: "prompt",
        high_permission: "announce_then_run",
        commands: [
          { command: "apt-get install -y airtest-tool", platform: "debian" },
          { command: "echo any-platform", platform: "any" },
        ],
      },
      risk: "needs_root",
    });
    const checked = check_dependencies([manifest], context);
    const debian = plan_fixes([manifest, manifest], checked, { platform: "debian", posture: "low", first_fix: false });
    expect(debian.steps.map((step) => step.command)).toEqual(["apt-get install -y airtest-tool", "echo any-platform"]);
    expect(debian.steps[0]).toMatchObject({ consent: "ask", why: "needs_root risk", fixes: ["airtest/airtest-tool", "airtest/airtest-tool"] });
    expect(plan_fixes([manifest], checked, { platform: "other", posture: "low", first_fix: false }).steps.map((step) => step.command)).toEqual([
      "echo any-platform",
    ]);
    const never = airtest_manifest({
      install: { low_permission: "never", high_permission: "never", commands: [{ command: "echo x" }], docs: "See airtest.example" },
    });
    expect(plan_fixes([never], checked, { platform: "debian", posture: "low", first_fix: false })).toEqual({
      steps: [],
      manual: [{ fixes: "airtest/airtest-tool", reason: "its manifest says doctor never installs it", docs: "See airtest.example" }],
    });
  });

  it("asks on the first fix, announces under high permission after it, and always confirms credentials", () => {
    const manifest = installable();
    const checked = check_dependencies([manifest], context);
    const consent = (options: Parameters<typeof plan_fixes>[2], of = manifest) => plan_fixes([of], checked, options).steps[0]?.consent;
    expect(consent({ platform: "other", posture: "high", first_fix: true })).toBe("ask");
    expect(consent({ platform: "other", posture: "high", first_fix: false })).toBe("announce");
    expect(consent({ platform: "other", posture: "low", first_fix: false })).toBe("ask");
    expect(consent({ platform: "other", posture: "high", first_fix: false }, installable({ risk: "credentials" }))).toBe("confirm");
    expect(consent({ platform: "other", posture: "high", first_fix: false }, installable({ risk: "system_sensitive" }))).toBe("confirm");
  });

  it("plans nothing for a dependency that is found", () => {
    fs.copyFileSync(box.source, path.join(box.bin, "airtest-tool"));
    const manifest = installable();
    expect(plan_fixes([manifest], check_dependencies([manifest], context), { platform: "other", posture: "low", first_fix: true }).steps).toEqual([]);
  });
});

describe("air doctor --fix, through the module", () => {
  it("installs a missing executable through doctor.install under the permission engine, then detects it with its version", async () => {
    const run = await fix(installable(), { yes: true });
    expect(run.results).toMatchObject([{ outcome: "installed", exit_code: 0, detail: "exited with 0" }]);
    expect(run.after[0]?.dependencies[0]).toMatchObject({ state: "found", path: path.join(box.bin, "airtest-tool"), version: "airtest-tool 2.4.1" });
    expect(run.after[0]?.status).toBe("ok");
    const recorded = events("doctor.run.started", "doctor.fix.applied", "doctor.run.completed", "tool.completed", "permission.prompt.resolved");
    expect(recorded.map((event) => event.type)).toEqual([
      "doctor.run.started",
      "permission.prompt.resolved",
      "tool.completed",
      "doctor.fix.applied",
      "doctor.run.completed",
    ]);
    expect(recorded[1]?.payload).toMatchObject({ answer: "allow", grant_scope: "once" });
    expect(recorded[3]?.payload).toMatchObject({
      check_id: "airtest/airtest-tool",
      action: installable().dependencies[0]?.install?.commands[0]?.command,
      succeeded: true,
    });
    expect(recorded[4]?.payload).toMatchObject({ run_id: run.run_id, issues: 0 });
  });

  it("installs nothing when the prompt is denied", async () => {
    const asked: string[] = [];
    const run = await fix(installable(), {
      yes: false,
      ask: async (question) => {
        asked.push(question);
        return false;
      },
    });
    expect(asked).toEqual([expect.stringContaining(`Run \`install -m 755 ${box.source}`)]);
    expect(run.results).toMatchObject([{ outcome: "denied", detail: "denied at the prompt" }]);
    expect(fs.readdirSync(box.bin)).toEqual([]);
    expect(events("tool.started", "command.started", "doctor.fix.applied")).toEqual([]);
    expect(events("doctor.check.completed")[0]?.payload).toMatchObject({ check_id: "airtest/airtest-tool", outcome: "skipped" });
    expect(run.after[0]?.status).toBe("error");
  });

  it("installs nothing without a terminal and without --yes", async () => {
    const run = await fix(installable(), { yes: false });
    expect(run.results).toMatchObject([{ outcome: "denied", detail: "not asked: no terminal to ask and no --yes" }]);
    expect(fs.readdirSync(box.bin)).toEqual([]);
  });

  it("never takes --yes for a credentials risk: only a yes at the prompt installs it", async () => {
    const manifest = installable({ risk: "credentials" });
    const refused = await fix(manifest, { yes: true }, false);
    expect(refused.results).toMatchObject([{ outcome: "denied", detail: "not asked: credentials risk: always confirmed explicitly; --yes does not give it" }]);
    expect(fs.readdirSync(box.bin)).toEqual([]);
    const confirmed = await fix(manifest, { yes: true, ask: async () => true }, false);
    expect(confirmed.results).toMatchObject([{ outcome: "installed", detail: "exited with 0" }]);
  });

  it("keeps the permission engine's refusal even after the user said yes: apt-get in bypass mode installs nothing", async () => {
    const manifest = airtest_manifest({
      install: { low_permission: "prompt", high_permission: "prompt", commands: [{ command: "apt-get install -y airtest-tool-not-a-package" }] },
    });
    const plan = plan_fixes([manifest], check_dependencies([manifest], context), { platform: "other", posture: "high", first_fix: false });
    const run = await run_fixes({
      session: temp.session,
      manifests: [manifest],
      plan,
      context,
      asker: { yes: true },
      engine: (answerer) => new PermissionEngine({ policy: { mode: "bypass", rules: [] }, answerer }),
    });
    expect(run.results).toMatchObject([{ outcome: "failed", detail: expect.stringContaining("system sensitive") }]);
    expect(events("command.started")).toEqual([]);
    expect(events("permission.decision.recorded")[0]?.payload).toMatchObject({ action: "refuse" });
  });

  it("reports a failing install command as failed, with what it printed last", async () => {
    const manifest = airtest_manifest({
      install: { low_permission: "prompt", high_permission: "prompt", commands: [{ command: "ls /no/such/folder-airtest" }] },
    });
    const run = await fix(manifest, { yes: true });
    expect(run.results).toMatchObject([{ outcome: "failed", exit_code: 2, detail: expect.stringContaining("/no/such/folder-airtest") }]);
    expect(events("doctor.fix.applied")[0]?.payload).toMatchObject({ succeeded: false });
  });
});

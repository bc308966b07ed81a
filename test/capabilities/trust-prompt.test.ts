import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { command_tool } from "../../src/capabilities/command-tool.js";
import { ToolDeclaration } from "../../src/capabilities/manifest.js";
import { CapabilityRegistry } from "../../src/capabilities/registry.js";
import type { CapabilityTrust } from "../../src/contracts/events/capability.js";
import type { PromptAnswer } from "../../src/permissions/prompts.js";
import { air_home } from "../../src/project/layout.js";
import { scripted_answers } from "../fixtures/permissions.js";
import { error_of, output_of, tool_harness, type ToolHarness } from "../tools/helpers.js";
import { manifest, write_project_manifest } from "./helpers.js";

const DENY: PromptAnswer = { answer: "deny", grant_scope: "once", resolved_by: "user" };
const ALLOW_SESSION: PromptAnswer = { answer: "allow", grant_scope: "session", resolved_by: "user" };
const ALLOW_ONCE: PromptAnswer = { answer: "allow", grant_scope: "once", resolved_by: "user" };

let h: ToolHarness | undefined;
let registry: CapabilityRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
  h?.cleanup();
  h = undefined;
});

/** A harness whose prompts get `answers`, with the project capability `echo-tools` discovered and activated. */
function with_project_capability(...answers: PromptAnswer[]) {
  const answerer = scripted_answers(...answers);
  const harness = tool_harness({ answerer });
  h = harness;
  write_project_manifest(harness.root, "echo-tools", manifest("echo-tools", { tools: [touch_tool()] }));
  registry = new CapabilityRegistry({ project_root: harness.root, air_home: air_home() });
  registry.activate(harness.temp.session, harness.registry);
  return { h: harness, asked: answerer.asked };
}

/** A tool that leaves a trace: it creates the file it is given. */
function touch_tool() {
  return {
    name: "echo_tools.touch",
    description: "Creates a file.",
    category: "project",
    implementation: { kind: "command", argv: ["touch", "{file}"], parameters: { file: { type: "string", description: "The file." } }, required: ["file"] },
  };
}

describe("a project-local capability's tool", () => {
  it("asks before its first use, and a denied prompt runs nothing", async () => {
    const { h, asked } = with_project_capability(DENY);
    const error = error_of(await h.call("echo_tools.touch", { file: "made" }));
    expect(error.kind).toBe("permission_error");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.subjects).toEqual([{ kind: "capability_tool", capability_id: "echo-tools", tool_name: "echo_tools.touch" }]);
    expect(asked[0]?.offered_scopes).toEqual(["once", "session", "project", "global"]);
    expect(h.events("command.started")).toEqual([]);
    expect(fs.existsSync(path.join(h.root, "made"))).toBe(false);
    expect(h.events("permission.prompt.requested")).toHaveLength(1);
  });

  it("does not ask again after the user allowed it for the session", async () => {
    const { h, asked } = with_project_capability(ALLOW_SESSION);
    output_of(await h.call("echo_tools.touch", { file: "first" }));
    output_of(await h.call("echo_tools.touch", { file: "second" }));
    expect(asked).toHaveLength(1);
    expect(fs.existsSync(path.join(h.root, "first"))).toBe(true);
    expect(fs.existsSync(path.join(h.root, "second"))).toBe(true);
  });

  it("asks again after an answer for one call only", async () => {
    const { h, asked } = with_project_capability(ALLOW_ONCE, DENY);
    output_of(await h.call("echo_tools.touch", { file: "first" }));
    error_of(await h.call("echo_tools.touch", { file: "second" }));
    expect(asked).toHaveLength(2);
    expect(fs.existsSync(path.join(h.root, "second"))).toBe(false);
  });
});

describe("a tool of a capability someone vouched for", () => {
  const declaration = v.parse(ToolDeclaration, touch_tool());

  for (const trust of ["built_in", "user_installed", "verified_publisher"] satisfies CapabilityTrust[]) {
    it(`runs without a prompt when the capability is ${trust}`, async () => {
      // The harness's engine denies every prompt: a question would fail the call.
      const harness = tool_harness();
      h = harness;
      if (declaration.implementation.kind !== "command") throw new Error("a command tool");
      harness.registry.register(command_tool(declaration, declaration.implementation, { id: "vouched", trust }));
      output_of(await harness.call("echo_tools.touch", { file: "made" }));
      expect(harness.events("permission.prompt.requested")).toEqual([]);
    });
  }

  it("of air itself never meets the capability question", async () => {
    const harness = tool_harness();
    h = harness;
    output_of(await harness.call("fs.write", { path: "note.txt", content: "hi" }));
    expect(harness.events("permission.prompt.requested")).toEqual([]);
  });
});

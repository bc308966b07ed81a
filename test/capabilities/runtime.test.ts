import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import type { BuiltinCapability } from "../../src/capabilities/builtin.js";
import { CapabilityRegistry } from "../../src/capabilities/registry.js";
import { validate_manifest } from "../../src/capabilities/validate.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { air_home } from "../../src/project/layout.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { define_tool } from "../../src/tools/define.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { manifest, write_project_manifest } from "./helpers.js";

let temp: TempSession | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

/** A built-in for tests with one tool whose `close` is counted, as clangd's would stop its process. */
function counted_builtin(): { builtin: BuiltinCapability; closes: () => number } {
  let closes = 0;
  const Empty = v.strictObject({});
  const builtin: BuiltinCapability = {
    manifest: validate_manifest(
      {
        schema_version: 1,
        id: "test-server",
        version: "1.0.0",
        description: "holds a process",
        trust: "built_in",
        tools: [{ name: "test_server.query", description: "asks the server", category: "project", implementation: { kind: "builtin" } }],
        triggers: [{ kind: "always" }],
      },
      { file: "built-in capability test-server", place: "built_in" },
    ),
    create_tools: () => ({
      definitions: [
        define_tool({
          name: "test_server.query",
          version: 1,
          description: "asks",
          category: "project",
          input: Empty,
          output: Empty,
          permissions: {},
          execute: async () => ({}),
        }),
      ],
      close: async () => void closes++,
    }),
  };
  return { builtin, closes: () => closes };
}

describe("capabilities in a session runtime", () => {
  it("offers the tools of an applicable project capability and records its lifecycle", async () => {
    temp = open_temp_session();
    write_project_manifest(temp.project.layout.root, "echo-tools", manifest("echo-tools"));
    const providers = ProviderManager.load({ home: temp.root, env: { ANTHROPIC_API_KEY: "sk-caps-runtime-test" } });
    const runtime = await start_runtime(temp.session, {
      provider: providers.for_session(),
      permissions: permissions_for_project(temp.project.layout, {}),
      task_defaults: DEFAULT_TASK_DEFAULTS,
    });
    expect(runtime.registry.schemas().map((schema) => schema.name)).toContain("echo_tools.echo");
    expect(runtime.registry.get("echo_tools.echo")?.capability).toEqual({ id: "echo-tools", trust: "project_local" });
    const recorded = temp.session.store.query({ types: ["capability.activated"] });
    expect(recorded).toHaveLength(1);
    await runtime.stop();
  });

  it("closes a built-in's tools when the registry closes, once", async () => {
    temp = open_temp_session();
    const { builtin, closes } = counted_builtin();
    const registry = new CapabilityRegistry({ project_root: temp.project.layout.root, air_home: air_home(), builtins: [builtin] });
    const tools = create_tool_registry({ permissions: new PermissionEngine() });
    expect(registry.activate(temp.session, tools).map((entry) => [entry.id, entry.status])).toEqual([["test-server", "enabled"]]);
    expect(tools.get("test_server.query")).toBeDefined();
    expect(closes()).toBe(0);
    await registry.close();
    await registry.close();
    expect(closes()).toBe(1);
  });
});

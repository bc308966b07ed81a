import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { choose } from "../../src/capabilities/choices.js";
import { CapabilityRegistry } from "../../src/capabilities/registry.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import { air_home } from "../../src/project/layout.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { ACCEPT_EDITS } from "../fixtures/permissions.js";
import { decode_json_columns, open_temp_session, rows_of, type TempSession } from "../fixtures/session.js";
import { error_of } from "../tools/helpers.js";
import { manifest, write_project_manifest, write_user_manifest } from "./helpers.js";

let temp: TempSession;
let root: string;
let tools: ToolRegistry;
let registry: CapabilityRegistry | undefined;
beforeEach(() => {
  temp = open_temp_session();
  root = temp.project.layout.root;
  tools = create_tool_registry({ permissions: new PermissionEngine({ policy: ACCEPT_EDITS }) });
});
afterEach(async () => {
  await registry?.close();
  registry = undefined;
  temp.cleanup();
});

function activate(check_dependencies?: (manifest: { id: string }) => { issues: number }) {
  registry = new CapabilityRegistry({ project_root: root, air_home: air_home(), ...(check_dependencies === undefined ? {} : { check_dependencies }) });
  return registry.activate(temp.session, tools);
}

/** The `capability.*` events of the session, in order, for the capability recorded under `name`. */
function lifecycle_of(name: string): { type: string; payload: Record<string, unknown> }[] {
  const rows = temp.session.connection.client.prepare("SELECT type, payload_json FROM events WHERE type LIKE 'capability.%' ORDER BY seq").all() as {
    type: string;
    payload_json: string;
  }[];
  const events = rows.map((row) => ({ type: row.type, payload: JSON.parse(row.payload_json) as Record<string, unknown> }));
  const id = events.find((event) => event.type === "capability.discovered" && event.payload.name === name)?.payload.capability_id;
  return events.filter((event) => event.payload.capability_id === id);
}

const types = (events: { type: string }[]) => events.map((event) => event.type);

function row_of(name: string) {
  return rows_of(temp.session.connection, "capabilities")
    .map(decode_json_columns)
    .find((row) => row.name === name);
}

describe("the capability lifecycle in a session", () => {
  it("takes an applicable project capability from discovered to activated, in the machine's order, and registers its tools", () => {
    write_project_manifest(root, "echo-tools", manifest("echo-tools"));
    const entries = activate((checked) => ({ issues: checked.id === "echo-tools" ? 2 : 0 }));
    const events = lifecycle_of("echo-tools");
    expect(types(events)).toEqual([
      "capability.discovered",
      "capability.validated",
      "capability.doctor_checked",
      "capability.enabled",
      "capability.tools_registered",
      "capability.activated",
    ]);
    expect(events[0]?.payload).toMatchObject({ name: "echo-tools", version: "1.0.0", trust_level: "project_local" });
    expect(events[2]?.payload).toMatchObject({ issues: 2 });
    expect(events[4]?.payload).toMatchObject({ tool_names: ["echo_tools.echo"] });
    expect(row_of("echo-tools")).toMatchObject({ status: "active", trust_level: "project_local" });
    expect(tools.schemas().map((schema) => schema.name)).toContain("echo_tools.echo");
    expect(entries.find((entry) => entry.id === "echo-tools")).toMatchObject({ status: "enabled" });
  });

  it("records a capability that does not apply to the project as disabled with the reason, and offers none of its tools", () => {
    activate();
    const events = lifecycle_of("toolchain-cpp");
    expect(types(events)).toEqual(["capability.discovered", "capability.validated", "capability.disabled"]);
    expect(String(events[2]?.payload.reason)).toContain("does not apply to this project");
    expect(tools.schemas().some((schema) => schema.name.startsWith("cpp."))).toBe(false);
    expect(row_of("toolchain-cpp")).toMatchObject({ status: "disabled" });
  });

  it("does not offer the tools of a capability the user disabled: a call to one is an unknown tool", async () => {
    write_project_manifest(root, "echo-tools", manifest("echo-tools"));
    choose(root, "echo-tools", "disabled");
    activate();
    expect(types(lifecycle_of("echo-tools")).at(-1)).toBe("capability.disabled");
    expect(tools.get("echo_tools.echo")).toBeUndefined();
    const error = error_of(await tools.call({ tool_name: "echo_tools.echo", input: { value: "x" } }, { session: temp.session }));
    expect(error.message).toBe('unknown tool "echo_tools.echo"');
  });

  it("leaves an untrusted capability off until the user enables it", () => {
    write_user_manifest(air_home(), "wild", manifest("wild", { trust: "untrusted" }));
    expect(activate().find((entry) => entry.id === "wild")).toMatchObject({ status: "disabled", reason: expect.stringContaining("untrusted") });
    expect(tools.get("wild.echo")).toBeUndefined();
  });

  it("registers an untrusted capability the user enabled", () => {
    write_user_manifest(air_home(), "wild", manifest("wild", { trust: "untrusted" }));
    choose(root, "wild", "enabled");
    expect(activate().find((entry) => entry.id === "wild")).toMatchObject({ status: "enabled" });
    expect(tools.get("wild.echo")?.capability).toEqual({ id: "wild", trust: "untrusted" });
  });

  it("records a broken manifest as discovered, then failed with the error naming the file and the field", () => {
    const file = write_project_manifest(root, "broken", manifest("broken", { version: 7 }));
    activate();
    const events = lifecycle_of("broken");
    expect(types(events)).toEqual(["capability.discovered", "capability.failed"]);
    const error = events[1]?.payload.error as { message: string; kind: string };
    expect(error.kind).toBe("user_error");
    expect(error.message).toContain(file);
    expect(error.message).toContain(": version:");
    expect(row_of("broken")).toMatchObject({ status: "failed" });
  });

  it("fails a capability whose dependency check throws, with the check's error", () => {
    write_project_manifest(root, "echo-tools", manifest("echo-tools"));
    activate((checked) => {
      if (checked.id === "echo-tools") throw new Error("the doctor could not look");
      return { issues: 0 };
    });
    const events = lifecycle_of("echo-tools");
    expect(types(events)).toEqual(["capability.discovered", "capability.validated", "capability.failed"]);
    expect(tools.get("echo_tools.echo")).toBeUndefined();
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BuiltinCapability } from "../../src/capabilities/builtin.js";
import type { CapabilityManifest } from "../../src/capabilities/manifest.js";
import { make_tools } from "../../src/capabilities/plan.js";
import { read_manifest_file, validate_manifest, type ManifestPlace } from "../../src/capabilities/validate.js";
import { is_air_failure, type AirError } from "../../src/contracts/errors.js";
import { define_tool } from "../../src/tools/define.js";
import * as v from "valibot";
import { manifest, write_manifest, type ManifestJson } from "./helpers.js";

let folder: string;
beforeEach(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "air-caps-"));
});
afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

/** The AirError reading `content` as a manifest found in `place` throws. */
function error_reading(content: ManifestJson | string, place: ManifestPlace = "project"): { error: AirError; file: string } {
  const file = write_manifest(folder, "broken", content);
  try {
    read_manifest_file({ file, place });
  } catch (error) {
    if (is_air_failure(error)) return { error: error.error, file };
    throw error;
  }
  throw new Error("the manifest was accepted");
}

function tool(overrides: ManifestJson): ManifestJson {
  const [first] = manifest("broken").tools as ManifestJson[];
  return { ...first, ...overrides };
}

describe("a broken capability manifest", () => {
  it("that is not JSON is a user error naming the file", () => {
    const { error, file } = error_reading("{ not json");
    expect(error.kind).toBe("user_error");
    expect(error.message).toContain(file);
    expect(error.message).toContain("not valid JSON");
    expect(error.user_action).toContain(file);
  });

  it("with a field of the wrong type names the file and the field's path", () => {
    const tools = [tool({}), tool({ name: "broken.second", category: 42 })];
    const { error, file } = error_reading(manifest("broken", { tools }));
    expect(error.message).toContain(file);
    expect(error.message).toContain("tools[1].category");
  });

  it("with an unknown field names it", () => {
    const { error } = error_reading(manifest("broken", { colour: "blue" }));
    expect(error.message).toContain("colour: unknown field");
  });

  it.each([
    ["built_in", "project"],
    ["verified_publisher", "project"],
    ["user_installed", "project"],
    ["built_in", "user"],
    ["verified_publisher", "user"],
  ] as const)("claiming %s trust from the %s folder is refused", (trust, place) => {
    const { error } = error_reading(manifest("broken", { trust }), place);
    expect(error.message).toMatch(/trust: a (project|user-installed) capability may claim at most/);
  });

  it("claiming less trust than its place allows keeps the lower trust", () => {
    const file = write_manifest(folder, "humble", manifest("humble", { trust: "untrusted" }));
    expect(read_manifest_file({ file, place: "user" }).trust).toBe("untrusted");
  });

  it("with a builtin tool outside air is refused: only air ships code", () => {
    const { error } = error_reading(manifest("broken", { tools: [tool({ implementation: { kind: "builtin" } })] }));
    expect(error.message).toContain("tools[0].implementation.kind");
  });

  it("whose dependency is required for a tool it does not have names the entry", () => {
    const dependencies = [
      {
        id: "printf",
        kind: "executable",
        required_for: ["broken.echo", "broken.missing"],
        severity: "required",
        detect: { by: "executable", names: ["printf"] },
        risk: "none",
      },
    ];
    const { error } = error_reading(manifest("broken", { dependencies }));
    expect(error.message).toContain("dependencies[0].required_for[1]: broken.missing is not a tool of this capability");
  });

  it("whose command uses a placeholder it does not declare names the argv element", () => {
    const implementation = {
      kind: "command",
      argv: ["printf", "%s %s", "{value}", "--x={other}"],
      parameters: { value: { type: "string", description: "v" } },
    };
    const { error } = error_reading(manifest("broken", { tools: [tool({ implementation })] }));
    expect(error.message).toContain("tools[0].implementation.argv[3]: the placeholder {other} is not a declared parameter");
  });

  it("that requires a parameter it does not declare names it", () => {
    const implementation = { kind: "command", argv: ["true"], required: ["ghost"] };
    const { error } = error_reading(manifest("broken", { tools: [tool({ implementation })] }));
    expect(error.message).toContain("tools[0].implementation.required[0]");
  });

  it("declaring one tool twice names the second", () => {
    const { error } = error_reading(manifest("broken", { tools: [tool({}), tool({})] }));
    expect(error.message).toContain("tools[1].name: broken.echo is declared twice");
  });
});

const Empty = v.strictObject({});

function builtin_with(declared: string[], defined: string[]): { capability: BuiltinCapability; closed: () => boolean } {
  let closed = false;
  const manifest_value: CapabilityManifest = validate_manifest(
    {
      schema_version: 1,
      id: "test-builtin",
      version: "1.0.0",
      description: "a built-in for tests",
      trust: "built_in",
      tools: declared.map((name) => ({ name, description: name, category: "project", implementation: { kind: "builtin" } })),
      triggers: [{ kind: "always" }],
    },
    { file: "built-in capability test-builtin", place: "built_in" },
  );
  const definitions = defined.map((name) =>
    define_tool({ name, version: 1, description: name, category: "project", input: Empty, output: Empty, permissions: {}, execute: async () => ({}) }),
  );
  const capability: BuiltinCapability = {
    manifest: manifest_value,
    create_tools: () => ({ definitions, close: async () => void (closed = true) }),
  };
  return { capability, closed: () => closed };
}

describe("a built-in capability's tools", () => {
  it("are made when its code defines exactly the tools it declares", () => {
    const { capability } = builtin_with(["test.one", "test.two"], ["test.two", "test.one"]);
    const tools = make_tools({ manifest: capability.manifest, source: "built_in", trust: "built_in", builtin: capability });
    expect(tools.definitions.map((definition) => definition.name)).toEqual(["test.two", "test.one"]);
  });

  it("fail when a declared tool has no code, and what was made is closed", () => {
    const { capability, closed } = builtin_with(["test.one", "test.two"], ["test.one"]);
    expect(() => make_tools({ manifest: capability.manifest, source: "built_in", trust: "built_in", builtin: capability })).toThrow(
      /tools\[1\]\.name: declares test\.two, which its code does not define/,
    );
    expect(closed()).toBe(true);
  });

  it("fail when the code defines a tool the manifest does not declare", () => {
    const { capability } = builtin_with(["test.one"], ["test.one", "test.extra"]);
    expect(() => make_tools({ manifest: capability.manifest, source: "built_in", trust: "built_in", builtin: capability })).toThrow(
      /its code defines test\.extra, which the manifest does not declare/,
    );
  });
});
